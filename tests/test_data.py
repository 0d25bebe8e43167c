"""Loading (document, reference) pairs from every supported format, and every kind of bad input."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from summarizer.errors import InputError
from summarizer.training import data as data_module
from summarizer.training.data import Example, load_documents, untokenize, untokenized, write_jsonl

ROWS = [
    {"id": "a", "text": "First document. It has two sentences.", "summary": "First summary."},
    {"id": "b", "text": "Second document.\nNew paragraph.", "summary": "Second summary."},
]
EXPECTED = [
    Example(id="a", text="First document. It has two sentences.", reference="First summary."),
    Example(id="b", text="Second document.\nNew paragraph.", reference="Second summary."),
]


def _jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def _error(spec: str | Path, **kwargs: Any) -> str:
    with pytest.raises(InputError) as caught:
        load_documents(spec, **kwargs)
    return str(caught.value)


# Formats


def test_jsonl(tmp_path: Path) -> None:
    loaded = load_documents(_jsonl(tmp_path / "d.jsonl", ROWS))
    assert loaded.documents == EXPECTED
    assert loaded.skipped == []
    assert loaded.source == str(tmp_path / "d.jsonl")


@pytest.mark.parametrize("wrap", [False, True])
def test_json_list_or_object_with_one_list(tmp_path: Path, wrap: bool) -> None:
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"data": ROWS} if wrap else ROWS), encoding="utf-8")
    assert load_documents(path).documents == EXPECTED


def test_csv_with_a_multi_line_field(tmp_path: Path) -> None:
    assert load_documents(_csv(tmp_path / "d.csv", ROWS)).documents == EXPECTED


def test_parquet(tmp_path: Path) -> None:
    path = tmp_path / "d.parquet"
    pq.write_table(pa.Table.from_pylist(ROWS), path)
    assert load_documents(path).documents == EXPECTED


def test_saved_dataset(tmp_path: Path) -> None:
    datasets.Dataset.from_list(ROWS).save_to_disk(str(tmp_path / "saved"))
    assert load_documents(tmp_path / "saved").documents == EXPECTED


def test_saved_dataset_dict_needs_a_split(tmp_path: Path) -> None:
    splits = datasets.DatasetDict(
        {"train": datasets.Dataset.from_list(ROWS), "test": datasets.Dataset.from_list(ROWS[:1])}
    )
    splits.save_to_disk(str(tmp_path / "saved"))
    assert load_documents(tmp_path / "saved", split="test").documents == EXPECTED[:1]
    assert load_documents(tmp_path / "saved", split="train").documents == EXPECTED
    message = _error(tmp_path / "saved", split="validation")
    assert str(tmp_path / "saved") in message and "train, test" in message


def test_a_directory_of_data_files_reads_as_a_dataset_with_splits(tmp_path: Path) -> None:
    # load_dataset reads it exactly as it reads a Hub dataset (`cnn_dailymail:3.0.0`), without a network.
    _jsonl(tmp_path / "train.jsonl", ROWS)
    _jsonl(tmp_path / "test.jsonl", ROWS[1:])
    assert load_documents(tmp_path).documents == EXPECTED
    test = load_documents(tmp_path, "test")
    assert test.documents == EXPECTED[1:] and test.fingerprint != load_documents(tmp_path).fingerprint
    assert load_documents(tmp_path, "train[:1]").documents == EXPECTED[:1]
    assert "not readable as a directory of data files: " in _error(tmp_path, split="validation")


def test_a_hub_dataset_name_gives_one_line_when_the_hub_cannot_be_reached(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(data_module, "_hub_reachable", lambda: False)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", False)
    message = _error("cnn_dailymail:3.0.0", split="test")
    assert message == (
        "cnn_dailymail:3.0.0: no such file or directory, and the Hugging Face Hub, where a dataset of that "
        "name would be, cannot be reached (offline; with a copy in the cache, set HF_HUB_OFFLINE=1)"
    )
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)  # offline mode: the cache only, at once
    message = _error("owner/no-such-dataset", split="test")
    assert message.startswith("owner/no-such-dataset: no such file or directory, nor a Hugging Face Hub dataset: ")
    assert "\n" not in message
    for missing in ("missing.jsonl", "data/train.csv", "no such/file"):  # files, never looked up on the Hub
        assert _error(missing) == f"{missing}: no such file or directory"


def test_story_directory(tmp_path: Path) -> None:
    stories = tmp_path / "stories"
    (stories / "nested").mkdir(parents=True)
    (stories / "one.story").write_text(
        "Body sentence one.\n\nBody sentence two.\n\n@highlight\n\nFirst point\n\n@highlight\n\nSecond point\n",
        encoding="utf-8",
    )
    (stories / "nested" / "two.story").write_text("Other body.\n\n@highlight\n\nOnly point", encoding="utf-8")
    (stories / "notes.txt").write_text("not a story", encoding="utf-8")
    assert load_documents(stories).documents == [
        Example(id="two", text="Other body.", reference="Only point"),
        Example(id="one", text="Body sentence one.\n\nBody sentence two.", reference="First point\nSecond point"),
    ]


@pytest.mark.parametrize(
    ("split", "count"), [(None, 100), ("train", 100), ("validation", 50), ("val", 50), ("test", 100)]
)
def test_aclsum_splits(split: str | None, count: int) -> None:
    loaded = load_documents("aclsum", split)
    assert len(loaded.documents) == count
    first = loaded.documents[0]
    assert first.sentences and not first.text  # introduction + conclusion, already split
    assert len(first.reference.splitlines()) >= 3  # challenge, approach and outcome summaries


def test_aclsum_unknown_split() -> None:
    assert "no split 'dev'" in _error("aclsum", split="dev")


# Fields


@pytest.mark.parametrize(
    ("text_name", "summary_name"),
    [("article", "highlights"), ("document", "summary"), ("text", "abstract"), ("source", "target")],
)
def test_fields_are_detected(tmp_path: Path, text_name: str, summary_name: str) -> None:
    path = _jsonl(tmp_path / "d.jsonl", [{text_name: "Body.", summary_name: ["Point one.", "Point two."]}])
    [document] = load_documents(path).documents
    assert (document.text, document.reference) == ("Body.", "Point one.\nPoint two.")
    assert document.id == f"{path}, line 1"  # no id field: the location identifies the row


def test_explicit_fields_win_over_detected_ones(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path / "d.jsonl",
        [{"id": 7, "text": "Ignored.", "body": "Used.", "summary": "No.", "tldr": "Yes."}],
    )
    [document] = load_documents(path, text_field="body", summary_field="tldr").documents
    assert document == Example(id="7", text="Used.", reference="Yes.")


def test_sentence_lists_are_kept_as_sentences(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "d.jsonl", [{"text": ["One.", "  ", "Two."], "summary": "S."}])
    [document] = load_documents(path).documents
    assert (document.sentences, document.text) == (["One.", "Two."], "")


def test_reference_is_optional_when_not_required(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "d.jsonl", [{"text": "Body."}])
    assert load_documents(path, require_reference=False).documents == [Example(id=f"{path}, line 1", text="Body.")]


def test_fingerprint_follows_the_file(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "d.jsonl", ROWS)
    first = load_documents(path).fingerprint
    assert load_documents(path).fingerprint == first
    assert load_documents(path, text_field="text").fingerprint != first
    _jsonl(path, ROWS[:1])
    assert load_documents(path).fingerprint != first


# Bad input: each error names the file and the line or row.


def _bad_jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(
        b"\n".join(
            [
                json.dumps(ROWS[0]).encode(),  # line 1: good
                b'{"text": "Body.", "summary": "caf\xe9"}',  # line 2: Latin-1, not UTF-8
                b'{"text": "Body.", "summary": ',  # line 3: malformed JSON
                json.dumps({"summary": "No document."}).encode(),  # line 4: missing document field
                json.dumps({"text": "   ", "summary": "S."}).encode(),  # line 5: empty document
                json.dumps({"text": "Body."}).encode(),  # line 6: missing summary field
                json.dumps({"text": "Body.", "summary": ""}).encode(),  # line 7: empty summary
                json.dumps(["not", "an", "object"]).encode(),  # line 8
                json.dumps({"text": 3, "summary": "S."}).encode(),  # line 9: wrong type
                b"",
                json.dumps(ROWS[1]).encode(),  # line 11: good
            ]
        )
    )
    return path


BAD_LINES = [
    (2, "not valid UTF-8"),
    (3, "malformed JSON"),
    (4, "no document field"),
    (5, "empty document"),
    (6, "no summary field"),
    (7, "empty summary"),
    (8, "expected an object"),
    (9, "must be text or a list of sentences"),
]


@pytest.mark.parametrize(("line", "problem"), BAD_LINES)
def test_each_bad_line_is_an_input_error_naming_file_and_line(tmp_path: Path, line: int, problem: str) -> None:
    path = _bad_jsonl(tmp_path)
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(lines[:1] + [b""] * (line - 2) + [lines[line - 1]]))
    message = _error(path)
    assert message.startswith(f"{path}, line {line}: ")
    assert problem in message


def test_skip_bad_rows_skips_and_counts_them(tmp_path: Path) -> None:
    path = _bad_jsonl(tmp_path)
    loaded = load_documents(path, skip_bad_rows=True)
    assert [d.id for d in loaded.documents] == ["a", "b"]
    assert len(loaded.skipped) == len(BAD_LINES)
    for message, (line, problem) in zip(loaded.skipped, BAD_LINES):
        assert message.startswith(f"{path}, line {line}: ") and problem in message


def test_only_bad_rows_leave_nothing_to_use(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "d.jsonl", [{"text": "", "summary": "S."}])
    assert re.fullmatch(rf"{re.escape(str(path))}: no usable documents \(1 skipped\)", _error(path, skip_bad_rows=True))


def test_missing_explicit_field(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "d.jsonl", ROWS)
    message = _error(path, text_field="body")
    assert message.startswith(f"{path}, line 1: no field 'body'") and "id, text, summary" in message


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv", ".parquet"])
def test_empty_file(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"empty{suffix}"
    path.write_bytes(b"")
    assert _error(path) == f"{path}: empty file"


def test_empty_parquet_table(tmp_path: Path) -> None:
    path = tmp_path / "d.parquet"
    pq.write_table(pa.Table.from_pylist([], schema=pa.schema([("text", pa.string()), ("summary", pa.string())])), path)
    assert _error(path) == f"{path}: empty file"


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_non_utf8_file_names_the_line(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"d{suffix}"
    good = json.dumps(ROWS, indent=1) if suffix == ".json" else "text,summary\nBody.,Summary.\n"
    path.write_bytes(good.encode() + b"\n\xff\xfe")
    line = good.count("\n") + 2
    assert _error(path).startswith(f"{path}, line {line}: not valid UTF-8")


def test_malformed_json_file_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text('[\n{"text": "a", "summary": "b"},\n{"text": \n', encoding="utf-8")
    assert _error(path).startswith(f"{path}, line 4: malformed JSON")


def test_json_that_is_not_a_list(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text('{"text": "a", "summary": "b"}', encoding="utf-8")
    assert _error(path) == f"{path}: expected a JSON list of objects"


def test_bad_json_record_names_the_record(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text(json.dumps([ROWS[0], {"text": "", "summary": "S."}]), encoding="utf-8")
    assert _error(path).startswith(f"{path}, record 2: empty document")


def test_bad_csv_row_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("text,summary\nBody.,Summary.\nOnly a body\n", encoding="utf-8")
    assert _error(path).startswith(f"{path}, line 3: empty summary")
    assert len(load_documents(path, skip_bad_rows=True).skipped) == 1


def test_bad_parquet_and_saved_dataset_rows_name_the_row(tmp_path: Path) -> None:
    rows = [ROWS[0], {"id": "c", "text": "", "summary": "S."}]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "d.parquet")
    datasets.Dataset.from_list(rows).save_to_disk(str(tmp_path / "saved"))
    assert _error(tmp_path / "d.parquet").startswith(f"{tmp_path / 'd.parquet'}, row 2: empty document")
    assert _error(tmp_path / "saved").startswith(f"{tmp_path / 'saved'}, row 2: empty document")


def test_damaged_parquet(tmp_path: Path) -> None:
    path = tmp_path / "d.parquet"
    path.write_bytes(b"PAR1 this is not parquet")
    assert _error(path).startswith(f"{path}: not a readable Parquet file")


def test_bad_story_is_skippable(tmp_path: Path) -> None:
    (tmp_path / "good.story").write_text("Body.\n@highlight\nPoint", encoding="utf-8")
    (tmp_path / "latin.story").write_bytes(b"Caf\xe9.\n@highlight\nPoint")
    (tmp_path / "bare.story").write_text("Body without highlights.", encoding="utf-8")
    assert _error(tmp_path).startswith(f"{tmp_path / 'bare.story'}: empty summary")
    loaded = load_documents(tmp_path, skip_bad_rows=True)
    assert [d.id for d in loaded.documents] == ["good"]
    assert loaded.skipped[1].startswith(f"{tmp_path / 'latin.story'}, line 1: not valid UTF-8")


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("missing.jsonl", "no such file or directory"),
        ("d.txt", "unknown format .txt"),
        ("folder", "not readable as a directory of data files"),
    ],
)
def test_unusable_paths(tmp_path: Path, name: str, problem: str) -> None:
    (tmp_path / "d.txt").write_text("x", encoding="utf-8")
    (tmp_path / "folder").mkdir()
    message = _error(tmp_path / name)
    assert message.startswith(str(tmp_path / name)) and problem in message


def test_written_documents_load_back_unchanged(tmp_path: Path) -> None:
    documents = [
        Example(id="a", sentences=["First sentence.", "Second one, Mr. Smith."], reference="Ref one.\nRef two."),
        Example(id="b", text="Raw text stays raw. Really.", reference="Short."),
    ]
    path = tmp_path / "held-out" / "test.jsonl"
    write_jsonl(path, documents)
    assert load_documents(path).documents == documents
    assert not list(path.parent.glob(".*.tmp"))


def test_csv_with_a_document_longer_than_the_default_field_limit(tmp_path: Path) -> None:
    text = "A long sentence of words. " * 10_000
    path = tmp_path / "long.csv"
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["text", "summary"])
        writer.writerow([text, "A summary."])
    assert load_documents(path).documents[0].text == text.strip()


# Row ranges and PTB text


@pytest.mark.parametrize(("split", "ids"), [(":1", ["a"]), ("1:", ["b"]), ("0:2", ["a", "b"]), ("train", ["a", "b"])])
def test_a_files_split_may_be_a_range_of_its_documents(tmp_path: Path, split: str, ids: list[str]) -> None:
    path = _jsonl(tmp_path / "d.jsonl", ROWS)
    assert [d.id for d in load_documents(path, split).documents] == ids


def test_ranges_of_one_file_have_their_own_fingerprints(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "d.jsonl", ROWS)
    assert load_documents(path, ":1").fingerprint != load_documents(path, "1:").fingerprint


@pytest.mark.parametrize("split", ["1:x", "-1:", "1:2:3"])
def test_a_bad_range_names_the_file(tmp_path: Path, split: str) -> None:
    path = _jsonl(tmp_path / "d.jsonl", ROWS)
    assert (
        _error(path, split=split)
        == f"{path}: a file's split must be a range of documents such as 0:200 or 200:, got {split!r}"
    )


def test_an_empty_range_leaves_no_documents(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "d.jsonl", ROWS)
    assert _error(path, split="5:") == f"{path}: no usable documents"


@pytest.mark.parametrize(
    ("ptb", "raw"),
    [
        ("he wo n't say it 's over , they 're sure", "he won't say it's over , they're sure"),
        ("we ca n't , i 'm told , and you 'll see", "we can't , i'm told , and you'll see"),
        ("a quote ' n't ' stays", "a quote ' n't ' stays"),
        ("the 'sixties and rock 'n' roll", "the 'sixties and rock 'n' roll"),
    ],
)
def test_untokenize_rejoins_contractions_only(ptb: str, raw: str) -> None:
    assert untokenize(ptb) == raw


def test_untokenized_text_reads_like_raw_text_to_the_tokenizer(tokenizer) -> None:
    raw = "Don't worry, it's what they can't see."
    ptb = "do n't worry , it 's what they ca n't see ."
    assert tokenizer.tokenize(ptb) != tokenizer.tokenize(raw)
    assert tokenizer.tokenize(untokenize(ptb)) == tokenizer.tokenize(raw)


def test_untokenized_data_changes_every_field_and_the_fingerprint(tmp_path: Path) -> None:
    rows = [{"id": "a", "article": ["it 's one .", "do n't ."], "highlights": "they 're here"}]
    data = load_documents(_jsonl(tmp_path / "d.jsonl", rows))
    (document,) = untokenized(data).documents
    assert document.sentences == ["it's one .", "don't ."] and document.reference == "they're here"
    assert untokenized(data).fingerprint != data.fingerprint


def test_a_rows_language_field_names_its_language_and_the_default_fills_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    rows = [
        {"id": "fr", "language": "fr", "text": "Un texte.", "summary": "Un."},
        {"id": "de", "language": "German", "text": "Ein Text.", "summary": "Ein."},
        {"id": "none", "text": "A text.", "summary": "A."},
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert [d.language for d in load_documents(path).documents] == ["french", "german", ""]
    english = load_documents(path, language="en")
    assert [d.language for d in english.documents] == ["french", "german", "english"]
    assert english.fingerprint != load_documents(path).fingerprint  # features split otherwise


def test_an_unknown_language_names_the_row_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "Ein Text.", "summary": "Ein."}\n{"language": "xx", "text": "T.", "summary": "S."}\n')
    with pytest.raises(InputError, match=r"bad\.jsonl, line 2: field 'language': unknown language 'xx'; an ISO code"):
        load_documents(path)
