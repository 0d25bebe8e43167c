"""Errors about user input: their messages name the file, row or field at fault."""


class InputError(ValueError):
    """Input the package cannot use; the message says where and why."""
