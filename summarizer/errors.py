"""Errors about user input and output: their messages name the file, row or field at fault."""

from __future__ import annotations


class InputError(ValueError):
    """Input the package cannot use; the message says where and why."""


class UnreadableDocument(InputError):
    """A document its format's reader cannot turn into running text (the reason, without the
    document's name: `summarizer.text.documents.read_document` adds it)."""


class OutputError(Exception):
    """An output that cannot be written; the message names it."""


class SettingError(ValueError):
    """A setting whose value is not allowed. `field` names it (the configuration reader prefixes
    its section: `model.head`); the message is `"{field} {problem}"`."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field} {problem}")
        self.field = field


def check(ok: bool, field: str, problem: str) -> None:
    """Raise a `SettingError` for `field` with `problem` unless `ok`."""
    if not ok:
        raise SettingError(field, problem)


def check_at_least(settings: object, minimum: float, *fields: str, nullable: bool = False) -> None:
    """Check that each of `fields` of `settings` is at least `minimum` (or None, when `nullable`)."""
    for field in fields:
        value = getattr(settings, field)
        allowed = (value is None and nullable) or (value is not None and value >= minimum)
        check(allowed, field, f"must be at least {minimum}{' or null' if nullable else ''}, got {value}")


def check_fraction(settings: object, *fields: str, nullable: bool = False) -> None:
    """Check that each of `fields` of `settings` is in [0, 1) (or None, when `nullable`)."""
    for field in fields:
        value = getattr(settings, field)
        allowed = (value is None and nullable) or (value is not None and 0.0 <= value < 1.0)
        check(allowed, field, f"must be in [0, 1){' or null' if nullable else ''}, got {value}")


def check_choice(settings: object, field: str, choices: tuple[str, ...]) -> None:
    """Check that `field` of `settings` is one of `choices`."""
    value = getattr(settings, field)
    check(value in choices, field, f"must be one of {', '.join(choices)}, got {value!r}")


def first_line(error: BaseException) -> str:
    """The first line of an error's message (library messages run on with advice)."""
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
