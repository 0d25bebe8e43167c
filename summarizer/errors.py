"""Errors about user input and output: their messages name the file, row or field at fault."""


class InputError(ValueError):
    """Input the package cannot use; the message says where and why."""


class OutputError(Exception):
    """An output that cannot be written; the message names it."""


def first_line(error: BaseException) -> str:
    """The first line of an error's message (library messages run on with advice)."""
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
