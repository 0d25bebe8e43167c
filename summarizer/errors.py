"""Errors about user input and output: their messages name the file, row or field at fault."""

from __future__ import annotations

import re

# Characters that are no text to show: C0 and C1 controls, DEL, line and paragraph separators, and
# the bytes of a file name that are not UTF-8 (Python's surrogate escapes).
_CONTROLS = "\x00-\x1f\x7f-\x9f\u2028\u2029\udc80-\udcff"
_CONTROL = re.compile(f"[{_CONTROLS}]")
_RUNS = re.compile(f"([^{_CONTROLS}]+)|([{_CONTROLS}]+)")  # text, or control characters
_SHELL_SAFE = re.compile(r"[\w%+,\-./:=@^]+")  # as `ls` shows them unquoted (\w: any letter or digit)
_NAMED_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r"}


class InputError(ValueError):
    """Input the package cannot use; the message says where and why."""


class UnreadableDocument(InputError):
    """A document its format's reader cannot turn into running text (the reason, without the
    document's name: `summarizer.readers.read_document` adds it)."""


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


def quoted(name: str) -> str:
    """A file name as `ls` shows it (GNU's shell-escape quoting), so that a message naming it stays
    one line and can be pasted into a shell: as it is when it holds only letters, digits and
    `%+,-./:=@^_`; else in single quotes (double quotes when it holds a single quote and nothing
    a shell expands), with each run of control characters as `$'\\n'` (octal for those without a
    letter, and for bytes that are not UTF-8): `'bad'$'\\n''name.txt'`."""
    if _SHELL_SAFE.fullmatch(name) and not _CONTROL.search(name):
        return name
    if not _CONTROL.search(name):
        if "'" in name and not any(c in name for c in '"$`\\!'):
            return f'"{name}"'
        return "'" + name.replace("'", "'\\''") + "'"
    parts = []
    for text, control in _RUNS.findall(name):
        if text:
            parts.append("'" + text.replace("'", "'\\''") + "'")
        else:
            parts.append("$'" + "".join(_escaped(character) for character in control) + "'")
    return "".join(parts)


def printable(text: str) -> str:
    """`text` with each control character (`_CONTROL`) written as its escape (`\\x1b`), so that it
    prints as one line and nothing in it acts on a terminal."""
    return _CONTROL.sub(lambda found: ascii(found[0])[1:-1], text)


def _escaped(character: str) -> str:
    if character in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[character]
    return "".join(f"\\{byte:03o}" for byte in character.encode("utf-8", "surrogateescape"))
