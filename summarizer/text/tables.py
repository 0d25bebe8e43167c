"""Rows of a JSONL, JSON, CSV or Parquet table, each with where it is (file and line or row).

A row that cannot be read is an `InputError` in its place, naming the file and line, so that a
caller may stop at it or skip it and go on. The `summarize` command reads tables of documents
with it, and training and evaluation read their data files.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from summarizer.errors import InputError, quoted

Row = tuple[str, "dict[str, Any] | InputError"]


def file_rows(path: Path) -> Iterator[Row]:
    """The rows of a JSONL, JSON, CSV or Parquet file, each with where it is (file and line or
    row); a row that cannot be read is an `InputError` in its place."""
    suffix = path.suffix.lower()
    if suffix not in _TABLES:
        raise InputError(f"{quoted(str(path))}: unknown format {suffix or '(no suffix)'}; use {SUFFIXES_NAMED}")
    return _TABLES[suffix](path)


def _read_bytes(path: Path) -> bytes:
    name = quoted(str(path))
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"{name}: cannot read: {error.strerror}") from None
    if not data.strip():
        raise InputError(f"{name}: empty file")
    return data


def _decode(data: bytes, path: Path, first_line: int = 1) -> str:
    """UTF-8 text of `data` (lines of `path` from `first_line`); the error names the bad byte's line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = first_line + data.count(b"\n", 0, error.start)
        raise InputError(f"{quoted(str(path))}, line {line}: not valid UTF-8 (byte {error.start})") from None


def json_value(text: str, where: str, whole_file: bool = False) -> Any:
    """The JSON value of `text`; an `InputError` from `where` on ("file, line 3"; a `whole_file`'s
    line is added) when it is malformed, nested past what the reader follows, or holds an integer of more digits than
    Python converts (naming its field)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        line = f", line {error.lineno}" if whole_file else ""
        raise InputError(f"{where}{line}: malformed JSON: {error.msg} (column {error.colno})") from None
    except RecursionError:
        raise InputError(f"{where}: malformed JSON: arrays or objects nested too deeply") from None
    except ValueError:  # an integer too long to convert (sys.get_int_max_str_digits)
        digits, field = _long_integer(text)
        raise InputError(
            f"{where}{field}: an integer of {digits} digits (more than the {sys.get_int_max_str_digits()} Python reads)"
        ) from None


class _LongInteger(int):
    """Where the JSON held an integer too long to convert: its number of digits."""


def _long_integer(text: str) -> tuple[int, str]:
    """The number of digits of the first integer in the JSON `text` too long to convert, and
    where it is (", field 'id'", ", field 'ids[2]'" or "" at the top)."""
    limit = sys.get_int_max_str_digits()
    value = json.loads(
        text, parse_int=lambda digits: _LongInteger(len(digits.lstrip("-"))) if len(digits) > limit else 0
    )
    pending: list[tuple[str, Any]] = [("", value)]
    while pending:
        where, item = pending.pop(0)
        if isinstance(item, _LongInteger):
            return int(item), f", field {where!r}" if where else ""
        if isinstance(item, dict):
            pending += [(f"{where}.{key}" if where else key, inner) for key, inner in item.items()]
        elif isinstance(item, list):
            pending += [(f"{where}[{index}]", inner) for index, inner in enumerate(item)]
    return 0, ""


def read_text(path: Path) -> str:
    return _decode(_read_bytes(path), path)


def jsonl_rows(path: Path) -> Iterator[Row]:
    name = quoted(str(path))
    for number, raw in enumerate(_read_bytes(path).splitlines(), start=1):
        where = f"{name}, line {number}"
        if not raw.strip():
            continue
        try:
            row = json_value(_decode(raw, path, number), where)
        except InputError as error:
            yield where, error
            continue
        yield where, row


def _json_rows(path: Path) -> Iterator[Row]:
    name = quoted(str(path))
    data = json_value(read_text(path), name, whole_file=True)
    if isinstance(data, dict) and len(data) == 1 and isinstance(next(iter(data.values())), list):
        data = next(iter(data.values()))
    if not isinstance(data, list):
        raise InputError(f"{name}: expected a JSON list of objects")
    for number, row in enumerate(data, start=1):
        yield f"{name}, record {number}", row


def _csv_rows(path: Path) -> Iterator[Row]:
    name = quoted(str(path))
    text = read_text(path)
    csv.field_size_limit(sys.maxsize)  # whole articles exceed the default limit of 128 KiB
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            yield f"{name}, line {reader.line_num}", {k: v for k, v in row.items() if k is not None}
    except csv.Error as error:
        raise InputError(f"{name}, line {reader.line_num}: malformed CSV: {error}") from None


def _parquet_rows(path: Path) -> Iterator[Row]:
    import pyarrow.parquet as pq

    name = quoted(str(path))
    if path.stat().st_size == 0:
        raise InputError(f"{name}: empty file")
    try:
        table = pq.read_table(path)
    except Exception as error:  # pyarrow raises several types for a damaged file
        raise InputError(f"{name}: not a readable Parquet file: {error}") from None
    if table.num_rows == 0:
        raise InputError(f"{name}: empty file")
    for number, row in enumerate(table.to_pylist(), start=1):
        yield f"{name}, row {number}", row


# The tables read, by suffix: `summarize --text-field` and training's data files take these.
_TABLES: dict[str, Callable[[Path], Iterator[Row]]] = {
    ".jsonl": jsonl_rows,
    ".json": _json_rows,
    ".csv": _csv_rows,
    ".parquet": _parquet_rows,
}
SUFFIXES = tuple(_TABLES)
SUFFIXES_NAMED = f"{', '.join(SUFFIXES[:-1])} or {SUFFIXES[-1]}"  # ".jsonl, .json, .csv or .parquet"
