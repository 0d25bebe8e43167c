"""What a request asks for: its documents and the summary options, each field checked.

A request is JSON (`{"text": ...}`, or `{"documents": [...]}` for a batch) or a multipart form
of uploaded files (`file`, once or, for a batch, several times), with the options beside them.
The body is read into memory, never past the size limit; an upload stays in memory too, and its
name only chooses its format (`format_of`): nothing from a request reaches a path or a shell.
A `RequestError` carries the HTTP status and a one-line message naming the field at fault.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers, UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from summarizer.errors import InputError, SettingError, first_line
from summarizer.readers import Document, format_of, formats, read_document, reader
from summarizer.selection import SelectionConfig
from summarizer.text.sentences import punkt_language

OPTIONS = ("format", "k", "ratio", "max_words", "trigram_blocking", "order", "language")
LENGTHS = ("k", "ratio", "max_words")  # at most one of them
MAX_FIELD_BYTES = 64 * 1024  # a form field other than a file: an option's value
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class RequestError(Exception):
    """A request the service cannot answer: `status`, a one-line message, and the field at fault."""

    def __init__(self, status: int, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status, self.field = status, field

    def body(self) -> dict[str, str]:
        return {"error": str(self), **({"field": self.field} if self.field else {})}


@dataclass(frozen=True)
class Source:
    """One document of a request: `name` in messages (a field, or the file's name), `file` the
    uploaded file's name (None for JSON text), its text or bytes and the format to read it in."""

    name: str
    file: str | None
    data: str | bytes
    format: str


@dataclass(frozen=True)
class Ask:
    sources: list[Source]
    selection: SelectionConfig
    language: str | None = None  # an ISO 639-1 code or Punkt name, checked; None: each document's, detected


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, or a 413 as soon as it is known to be longer than `limit` bytes."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(limit: int) -> RequestError:
    return RequestError(413, f"the request is larger than the limit of {limit / 1_000_000:g} MB")


async def parse(headers: Headers, body: bytes, batch: bool, max_documents: int) -> Ask:
    """The documents and options of a request (JSON or a multipart form, by its content type)."""
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "application/json":
        return _from_json(body, batch, max_documents)
    if kind == "multipart/form-data":
        return await _from_form(headers, body, batch, max_documents)
    raise RequestError(415, "send application/json or multipart/form-data (a file upload)", "content-type")


def _from_json(body: bytes, batch: bool, max_documents: int) -> Ask:
    try:
        payload = json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise RequestError(400, f"the body is not valid JSON: {first_line(error)}") from None
    if not isinstance(payload, dict):
        raise RequestError(422, "the body must be a JSON object")
    main = "documents" if batch else "text"
    _no_unknown(payload, (main, *OPTIONS))
    format = _format(payload.get("format", "text"))
    selection = _selection(payload, text_values=False)
    if main not in payload:
        raise RequestError(422, f"{main}: missing", main)
    language = _language(payload.get("language"))
    if not batch:
        return Ask([Source("text", None, _text(payload["text"], "text"), format)], selection, language)
    documents = payload["documents"]
    if not isinstance(documents, list) or not documents:
        raise RequestError(422, "documents: expected a list of texts, at least one", "documents")
    _count(len(documents), max_documents)
    names = [f"documents[{i}]" for i in range(len(documents))]
    return Ask(
        [Source(name, None, _text(text, name), format) for name, text in zip(names, documents)], selection, language
    )


async def _from_form(headers: Headers, body: bytes, batch: bool, max_documents: int) -> Ask:
    async def stream() -> AsyncGenerator[bytes, None]:
        yield body

    parser = MultiPartParser(
        headers,
        stream(),
        max_files=max_documents if batch else 1,
        max_fields=len(OPTIONS),
        max_part_size=MAX_FIELD_BYTES,
    )
    parser.spool_max_size = len(body) + 1  # every file stays in memory: the body is within the limit
    try:
        form = await parser.parse()
    except MultiPartException as error:  # "Too many files..." is a limit; anything else, a malformed form
        too_many = "Too many" in str(error)
        field = "file" if "files" in str(error) else None
        raise RequestError(422 if too_many else 400, f"form: {error}", field) from None
    _no_unknown(form, ("file", *OPTIONS))
    options: dict[str, Any] = {name: form[name] for name in OPTIONS if name in form}
    for name, value in options.items():
        if not isinstance(value, str):
            raise RequestError(422, f"{name}: expected a value, not a file", name)
    uploads = form.getlist("file")
    if not uploads:
        raise RequestError(422, "file: missing (upload a document as the form field `file`)", "file")
    if not all(isinstance(upload, UploadFile) for upload in uploads):
        raise RequestError(422, "file: expected a file upload, not a value", "file")
    _count(len(uploads), max_documents)
    format = _format(options["format"]) if "format" in options else None
    selection = _selection(options, text_values=True)
    language = _language(options.get("language") or None)
    sources = []
    for upload in uploads:
        assert isinstance(upload, UploadFile)
        name = _CONTROL.sub("?", upload.filename or "file")  # one line in messages
        sources.append(Source(name, upload.filename, await upload.read(), format or format_of(name)))
    return Ask(sources, selection, language)


def read(source: Source) -> Document:
    """The running text of `source`, or an `InputError` naming it when it has none."""
    document = read_document(source.data, source.format, source.name)
    if not document.paragraphs:
        data = source.data.encode() if isinstance(source.data, str) else source.data
        blank = not data.removeprefix(b"\xef\xbb\xbf").strip()
        kind = reader(source.format).description.split(" ", 1)[1]  # "a Word document": "Word document"
        raise InputError(f"{source.name}: " + ("empty" if blank else f"no running text found in this {kind}"))
    return document


def _no_unknown(fields: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(fields) - set(allowed))
    if unknown:
        raise RequestError(422, f"{unknown[0]}: unknown field (known: {', '.join(allowed)})", unknown[0])


def _count(documents: int, max_documents: int) -> None:
    if documents > max_documents:
        raise RequestError(
            422, f"documents: {documents} documents, more than the limit of {max_documents} a request", "documents"
        )


def _text(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise RequestError(422, f"{field}: expected text (a JSON string), got {_kind(value)}", field)
    return value


def _format(value: object) -> str:
    if value not in formats():
        raise RequestError(422, f"format: expected one of {', '.join(formats())}, got {_shown(value)}", "format")
    assert isinstance(value, str)
    return value


def _language(value: object) -> str | None:
    """A request's language: an ISO 639-1 code or Punkt name that `punkt_language` knows (null:
    each document's own, detected)."""
    if value is None:
        return None
    if not isinstance(value, str):
        problem = f"expected text (an ISO 639-1 code such as fr), got {_shown(value)}"
        raise RequestError(422, f"language: {problem}", "language")
    try:
        punkt_language(value)
    except ValueError as error:
        raise RequestError(422, f"language: {first_line(error)}", "language") from None
    return value


def _selection(fields: Mapping[str, Any], text_values: bool) -> SelectionConfig:
    """The summary options of a request: JSON values, or a form's text (`text_values`)."""
    given = [name for name in LENGTHS if fields.get(name) is not None]
    if len(given) > 1:
        raise RequestError(422, f"{given[1]}: give only one of k, ratio and max_words", given[1])
    convert = _from_text if text_values else _checked
    values: dict[str, Any] = {
        name: convert(name, fields[name]) for name in (*LENGTHS, "trigram_blocking", "order") if name in fields
    }
    try:
        return SelectionConfig(**{"k": 3, **{name: value for name, value in values.items() if value is not None}})
    except SettingError as error:  # "k must be at least 1, got 0"
        problem = str(error).removeprefix(f"{error.field} ")
        raise RequestError(422, f"{error.field}: {problem}", error.field) from None


_KINDS = {"k": "a whole number", "max_words": "a whole number", "ratio": "a number", "order": "text"}


def _checked(name: str, value: object) -> object:
    """A JSON option's value, if it is of its type (null leaves the option to its default)."""
    if value is None:
        return None
    if name == "trigram_blocking":
        fits = isinstance(value, bool)
    elif name == "ratio":
        fits = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    elif name == "order":
        fits = isinstance(value, str)
    else:
        fits = isinstance(value, int) and not isinstance(value, bool)
    if not fits:
        expected = _KINDS.get(name, "true or false")
        raise RequestError(422, f"{name}: expected {expected}, got {_shown(value)}", name)
    return value


def _from_text(name: str, value: str) -> object:
    """A form option's value from its text."""
    try:
        if name == "trigram_blocking":
            return {"true": True, "false": False}[value.strip().lower()]
        if name == "order":
            return value
        number = float(value) if name == "ratio" else int(value)
    except (KeyError, ValueError):
        raise RequestError(422, f"{name}: expected {_KINDS.get(name, 'true or false')}, got {value!r}", name) from None
    if not math.isfinite(number):
        raise RequestError(422, f"{name}: expected a number, got {value!r}", name)
    return number


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", bool: "true or false", type(None): "null"}.get(
        type(value), type(value).__name__
    )


def _shown(value: object) -> str:
    """A request's value in a message, cut short."""
    text = json.dumps(value) if not isinstance(value, (dict, list)) else _kind(value)
    return text if len(text) <= 40 else text[:37] + "..."
