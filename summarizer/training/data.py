"""Load (document, reference) pairs from the formats summarization data comes in.

A spec is `aclsum`, a JSONL / JSON / CSV / Parquet file, a directory written by
`datasets.Dataset.save_to_disk`, a directory of CNN/DailyMail `.story` files, a directory of
data files `datasets.load_dataset` reads (`train.jsonl`, `test.csv`...), or the name of a
Hugging Face Hub dataset with its config after a colon (`cnn_dailymail:3.0.0`). For a file,
the split may be a range of its documents, `START:END` (from 0, END excluded, either may be
left out), so that one file can give both validation and test documents; other split names
are ignored for files. For a dataset, the split is one of its splits (`test`, `test[:100]`).
JSON, JSONL and CSV files are read here rather than by `datasets.load_dataset`, whose JSON
reader names neither file nor line of a bad row ("Expected object or value at position 28").
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from summarizer.errors import InputError, first_line
from summarizer.files import atomic_writer
from summarizer.resources import aclsum_dir
from summarizer.text.sentences import punkt_language
from summarizer.text.tables import Row, file_rows, jsonl_rows, read_text

TEXT_FIELDS = ("text", "article", "document", "source")
SUMMARY_FIELDS = ("summary", "highlights", "abstract", "reference", "target")
ACLSUM_SPLITS = {"train": "train.jsonl", "validation": "val.jsonl", "val": "val.jsonl", "test": "test.jsonl"}
ACLSUM_ASPECTS = ("challenge", "approach", "outcome")
# PTB tokenization splits contractions off their word; word-piece tokenizers split raw "don't"
# as don ' t but "do n't" as do n ' t.
_SPLIT_CONTRACTION = re.compile(r"(?<=\w) (?=(?:n't|'s|'re|'ve|'ll|'d|'m)\b)", re.IGNORECASE)


@dataclass
class Example:
    """One example. `text` holds raw text, or `sentences` holds sentences already split.
    `language`: the Punkt name of its language, from the row's `language` field (an ISO code
    such as `fr` or a name such as `french`), else empty: the run's language."""

    id: str
    text: str = ""
    sentences: list[str] = field(default_factory=list)
    reference: str = ""
    language: str = ""


@dataclass
class LoadedData:
    """Documents read from a source, the rows skipped (with reasons), and a cache key."""

    source: str
    documents: list[Example]
    skipped: list[str]
    fingerprint: str


@dataclass
class _Options:
    text_field: str | None
    summary_field: str | None
    require_reference: bool
    language: str


def load_documents(
    spec: str | Path,
    split: str | None = None,
    *,
    text_field: str | None = None,
    summary_field: str | None = None,
    skip_bad_rows: bool = False,
    require_reference: bool = True,
    language: str | None = None,
) -> LoadedData:
    """Read every document of `spec` (see the module docstring).

    A bad row (missing field, empty document, malformed JSON, undecodable bytes) raises an
    `InputError` naming the file and row, or with `skip_bad_rows` is skipped and reported.
    `language` (an ISO code or Punkt name) is that of the rows whose `language` field names none.
    """
    options = _Options(text_field, summary_field, require_reference, punkt_language(language) if language else "")
    source: Any = None  # what the fingerprint follows besides the settings
    if str(spec) == "aclsum":
        path = aclsum_dir() / ACLSUM_SPLITS.get(split or "train", "")
        if split is not None and split not in ACLSUM_SPLITS:
            raise InputError(f"aclsum has no split {split!r}; choose train, validation or test")
        rows, source = _aclsum_rows(path), _stat(path)
    else:
        path = Path(spec)
        if not path.exists() and (not _HUB_NAME.fullmatch(str(spec)) or path.suffix.lower() in _FILE_SUFFIXES):
            raise InputError(f"{path}: no such file or directory")
        if path.exists():
            rows, source = _rows(path, split), _stat(path)
        else:
            dataset = _load_dataset(str(spec), split)
            rows, source = _dataset_rows(dataset, str(spec), split), dataset._fingerprint
    documents, skipped = [], []
    for location, row in rows:
        try:
            if isinstance(row, InputError):
                raise row
            documents.append(_document(row, location, options))
        except InputError as error:
            if not skip_bad_rows:
                raise
            skipped.append(str(error))
    if split is not None and ":" in split and path.is_file():  # aclsum's splits never hold ":"
        documents = documents[_row_range(split, path)]
    if not documents:
        raise InputError(f"{path}: no usable documents" + (f" ({len(skipped)} skipped)" if skipped else ""))
    key = json.dumps(
        [str(spec), split, text_field, summary_field, skip_bad_rows, source] + ([language] if language else [])
    )
    return LoadedData(str(spec), documents, skipped, hashlib.sha256(key.encode()).hexdigest()[:16])


def _row_range(split: str, path: Path) -> slice:
    match = re.fullmatch(r"\s*(\d*)\s*:\s*(\d*)\s*", split)
    if match is None:
        raise InputError(f"{path}: a file's split must be a range of documents such as 0:200 or 200:, got {split!r}")
    start, end = (int(group) if group else None for group in match.groups())
    return slice(start, end)


def _stat(path: Path) -> list[Any]:
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    return [(str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in files]


def _rows(path: Path, split: str | None) -> Iterator[Row]:
    if path.is_dir():
        if (path / "dataset_info.json").exists() or (path / "dataset_dict.json").exists():
            return _saved_dataset_rows(path, split)
        stories = sorted(path.rglob("*.story"))
        if stories:
            return _story_rows(stories)
        return _dataset_rows(_load_dataset(str(path), split), str(path), split)
    return file_rows(path)


def _saved_dataset_rows(path: Path, split: str | None) -> Iterator[Row]:
    import datasets

    try:
        loaded = datasets.load_from_disk(str(path))
    except Exception as error:  # datasets raises several types for a damaged directory
        raise InputError(f"{path}: not a readable saved dataset: {error}") from None
    if isinstance(loaded, datasets.DatasetDict):
        if split is None or split not in loaded:
            raise InputError(f"{path}: choose a split with --split: {', '.join(loaded)}")
        loaded = loaded[split]
    for number, row in enumerate(loaded, start=1):
        yield f"{path}, row {number}", row


# A Hub dataset name, `name` or `owner/name`, and its config after a colon; a name that ends
# like a data file is a missing file, never looked up on the Hub.
_HUB_NAME = re.compile(r"[\w.-]+(/[\w.-]+)?(:[\w.-]+)?")
_FILE_SUFFIXES = (".jsonl", ".json", ".csv", ".parquet", ".story", ".txt", ".tsv", ".arrow")


def _load_dataset(spec: str, split: str | None) -> Any:
    """A directory of data files or a Hub dataset, read by `datasets.load_dataset`."""
    import datasets

    local = Path(spec).is_dir()
    name, _, config = (spec, "", "") if local else spec.partition(":")
    if not local and not datasets.config.HF_HUB_OFFLINE and not _hub_reachable():
        raise InputError(
            f"{spec}: no such file or directory, and the Hugging Face Hub, where a dataset of that name would "
            "be, cannot be reached (offline; with a copy in the cache, set HF_HUB_OFFLINE=1)"
        )
    try:
        dataset = datasets.load_dataset(name, config or None, split=split or "train")
    except Exception as error:  # datasets raises many types: no data files, no such split or config...
        what = (
            "not readable as a directory of data files"
            if local
            else "no such file or directory, nor a Hugging Face Hub dataset"
        )
        raise InputError(f"{spec}: {what}: {first_line(error)}") from None
    return dataset


def _dataset_rows(dataset: Any, spec: str, split: str | None) -> Iterator[Row]:
    for number, row in enumerate(dataset, start=1):
        yield f"{spec} ({split or 'train'}), row {number}", row


def _hub_reachable(timeout: float = 3.0) -> bool:
    """Whether the Hugging Face Hub answers within `timeout` seconds (through the proxy and
    endpoint huggingface_hub is set to use)."""
    from huggingface_hub import constants
    from huggingface_hub.utils import get_session

    try:
        get_session().head(constants.ENDPOINT, timeout=timeout)
    except Exception:  # the HTTP client raises its own types for DNS, refused and timed-out connections
        return False
    return True


def _story_rows(stories: list[Path]) -> Iterator[Row]:
    for story in stories:
        try:
            text = read_text(story)
        except InputError as error:
            yield str(story), error
            continue
        body, *highlights = text.split("@highlight")
        yield (
            str(story),
            {
                "id": story.stem,
                "text": body.strip(),
                "summary": "\n".join(h.strip() for h in highlights if h.strip()),
            },
        )


def _aclsum_rows(path: Path) -> Iterator[Row]:
    for where, row in jsonl_rows(path):
        if isinstance(row, dict):
            sections = row.get("sentences", {})
            row = {
                "id": row.get("id", ""),
                "text": sections.get("introduction", []) + sections.get("conclusion", []),
                "summary": "\n".join(row.get("summary", {}).get(a, "") for a in ACLSUM_ASPECTS),
            }
        yield where, row


def _pick_field(row: dict[str, Any], explicit: str | None, candidates: tuple[str, ...], where: str) -> str | None:
    if explicit is not None:
        if explicit not in row:
            raise InputError(f"{where}: no field {explicit!r} (fields: {', '.join(map(str, row))})")
        return explicit
    return next((name for name in candidates if name in row), None)


def _document(row: Any, where: str, options: _Options) -> Example:
    if not isinstance(row, dict):
        raise InputError(f"{where}: expected an object with fields, got {type(row).__name__}")
    text_name = _pick_field(row, options.text_field, TEXT_FIELDS, where)
    if text_name is None:
        raise InputError(
            f"{where}: no document field (looked for {', '.join(TEXT_FIELDS)}; "
            f"fields: {', '.join(map(str, row))}); name it with --text-field"
        )
    document = Example(id=str(row.get("id") or where), language=options.language)
    language = row.get("language")
    if isinstance(language, str) and language.strip():
        try:
            document.language = punkt_language(language)
        except ValueError as error:
            raise InputError(f"{where}: field 'language': {error}") from None
    value = row[text_name]
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        document.sentences = [s for s in value if s.strip()]
    elif isinstance(value, str):
        document.text = value.strip()
    elif value is not None:
        raise InputError(f"{where}: field {text_name!r} must be text or a list of sentences")
    if not document.text and not document.sentences:
        raise InputError(f"{where}: empty document in field {text_name!r}")

    summary_name = _pick_field(row, options.summary_field, SUMMARY_FIELDS, where)
    if summary_name is None:
        if options.require_reference:
            raise InputError(
                f"{where}: no summary field (looked for {', '.join(SUMMARY_FIELDS)}; "
                f"fields: {', '.join(map(str, row))}); name it with --summary-field"
            )
        return document
    summary = row[summary_name]
    if isinstance(summary, list):
        summary = "\n".join(str(s) for s in summary)
    document.reference = (summary or "").strip() if isinstance(summary, str) else ""
    if options.require_reference and not document.reference:
        raise InputError(f"{where}: empty summary in field {summary_name!r}")
    return document


def untokenize(text: str) -> str:
    """`text` with PTB-split contractions rejoined: "do n't" -> "don't", "it 's" -> "it's"."""
    return _SPLIT_CONTRACTION.sub("", text)


def untokenized(data: LoadedData) -> LoadedData:
    """`data` with `untokenize` applied to every document's text, sentences and reference."""
    documents = [
        Example(d.id, untokenize(d.text), [untokenize(s) for s in d.sentences], untokenize(d.reference), d.language)
        for d in data.documents
    ]
    return LoadedData(
        data.source,
        documents,
        data.skipped,
        hashlib.sha256(f"{data.fingerprint}:untokenized".encode()).hexdigest()[:16],
    )


def write_jsonl(path: Path, documents: list[Example]) -> None:
    """Write documents as JSONL (`id`, `text`, `summary`) that `load_documents` reads back."""
    with atomic_writer(path) as out:
        for document in documents:
            text: str | list[str] = document.sentences or document.text
            out.write(json.dumps({"id": document.id, "text": text, "summary": document.reference}) + "\n")
