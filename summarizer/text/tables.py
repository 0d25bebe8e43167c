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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from summarizer.errors import InputError

Row = tuple[str, "dict[str, Any] | InputError"]


def file_rows(path: Path) -> Iterator[Row]:
    """The rows of a JSONL, JSON, CSV or Parquet file, each with where it is (file and line or
    row); a row that cannot be read is an `InputError` in its place."""
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return jsonl_rows(path)
    if suffix == ".json":
        return _json_rows(path)
    if suffix == ".csv":
        return _csv_rows(path)
    if suffix == ".parquet":
        return _parquet_rows(path)
    raise InputError(f"{path}: unknown format {suffix or '(no suffix)'}; use .jsonl, .json, .csv or .parquet")


def _read_bytes(path: Path) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror}") from None
    if not data.strip():
        raise InputError(f"{path}: empty file")
    return data


def _decode(data: bytes, path: Path, first_line: int = 1) -> str:
    """UTF-8 text of `data` (lines of `path` from `first_line`); the error names the bad byte's line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = first_line + data.count(b"\n", 0, error.start)
        raise InputError(f"{path}, line {line}: not valid UTF-8 (byte {error.start})") from None


def read_text(path: Path) -> str:
    return _decode(_read_bytes(path), path)


def jsonl_rows(path: Path) -> Iterator[Row]:
    for number, raw in enumerate(_read_bytes(path).splitlines(), start=1):
        where = f"{path}, line {number}"
        if not raw.strip():
            continue
        try:
            row = json.loads(_decode(raw, path, number))
        except InputError as error:
            yield where, error
            continue
        except json.JSONDecodeError as error:
            yield where, InputError(f"{where}: malformed JSON: {error.msg} (column {error.colno})")
            continue
        yield where, row


def _json_rows(path: Path) -> Iterator[Row]:
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as error:
        raise InputError(f"{path}, line {error.lineno}: malformed JSON: {error.msg}") from None
    if isinstance(data, dict) and len(data) == 1 and isinstance(next(iter(data.values())), list):
        data = next(iter(data.values()))
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of objects")
    for number, row in enumerate(data, start=1):
        yield f"{path}, record {number}", row


def _csv_rows(path: Path) -> Iterator[Row]:
    text = read_text(path)
    csv.field_size_limit(sys.maxsize)  # whole articles exceed the default limit of 128 KiB
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            yield f"{path}, line {reader.line_num}", {k: v for k, v in row.items() if k is not None}
    except csv.Error as error:
        raise InputError(f"{path}, line {reader.line_num}: malformed CSV: {error}") from None


def _parquet_rows(path: Path) -> Iterator[Row]:
    import pyarrow.parquet as pq

    if path.stat().st_size == 0:
        raise InputError(f"{path}: empty file")
    try:
        table = pq.read_table(path)
    except Exception as error:  # pyarrow raises several types for a damaged file
        raise InputError(f"{path}: not a readable Parquet file: {error}") from None
    if table.num_rows == 0:
        raise InputError(f"{path}: empty file")
    for number, row in enumerate(table.to_pylist(), start=1):
        yield f"{path}, row {number}", row
