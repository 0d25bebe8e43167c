"""`summarize TABLE --text-field FIELD`: one document a row, in this process (no Ray)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_cli import ARTICLE, OTHER

from summarizer.cli.command import main
from summarizer.pipeline import Summarizer

ROWS = [
    {"id": "a", "body": ARTICLE, "views": 3},
    {"id": "b", "body": "   ", "views": 1},
    {"id": "c", "body": OTHER, "views": 7},
    {"id": "d", "views": 0},
]


@pytest.fixture
def run(tiny_model_dir: Path, capsys: pytest.CaptureFixture[str]):
    def run(*args: object) -> tuple[int, str, str]:
        code = main(["--model", str(tiny_model_dir), *map(str, args)])
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.jsonl"
    path.write_text(
        "".join(json.dumps(row) + "\n" for row in ROWS[:2])
        + "{broken\n"
        + "".join(json.dumps(row) + "\n" for row in ROWS[2:])
    )
    return path


def test_rows_keep_their_columns_and_order_and_bad_rows_say_why(run, table: Path, tiny_model_dir: Path) -> None:
    code, out, err = run(table, "--text-field", "body", "-k", "2")
    assert code == 1
    assert err.splitlines() == [
        f"summarize: {table}, row 2: empty text",
        f"summarize: {table}, row 3: malformed JSON: Expecting property name enclosed in double quotes (column 2)",
        f"summarize: {table}, row 5: no field 'body'",
    ]
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row.get("id") for row in rows] == ["a", "b", None, "c", "d"]
    expected = list(Summarizer.from_pretrained(tiny_model_dir).summarize_batch([ARTICLE, OTHER], k=2))
    for row, summary in zip([rows[0], rows[3]], expected):
        assert (row["summary"], row["indices"], row["error"]) == (str(summary), summary.indices, None)
        assert row["scores"] == pytest.approx(summary.scores)
        assert row["views"] in (3, 7)
    for row in (rows[1], rows[2], rows[4]):
        assert row["summary"] is row["indices"] is row["scores"] is None and row["error"]


def test_parquet_in_parquet_out_whole(run, tmp_path: Path) -> None:
    source = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist([ROWS[0], ROWS[2]]), source)
    target = tmp_path / "out" / "summaries.parquet"
    code, out, err = run(source, "--text-field", "body", "-o", target, "--prefix", "bertsum_")
    assert (code, out, err) == (0, "", "")
    table = pq.read_table(target)
    assert table.column_names == [
        "id",
        "body",
        "views",
        "bertsum_summary",
        "bertsum_indices",
        "bertsum_scores",
        "bertsum_error",
    ]
    assert table["id"].to_pylist() == ["a", "c"] and table["bertsum_error"].to_pylist() == [None, None]
    assert [p.name for p in target.parent.iterdir()] == ["summaries.parquet"]  # no temporary file left


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["--text-field", "missing"],
            2,
            "{table}: no column 'missing' (columns: body, id, views); name it with --text-field",
        ),
        (["--text-field", "body", "--format", "json"], 2, "error: --format is for documents"),
        (["--actors", "2"], 2, "error: --address and --actors need --ray"),
        (["--text-field", "body", "-o", "{table}"], 2, "error: the output {table} would overwrite its input"),
    ],
)
def test_table_usage_errors_are_one_line(run, table: Path, args: list[str], code: int, message: str) -> None:
    result, out, err = run(table, *(arg.format(table=table) for arg in args))
    assert result == code and out == ""
    first, *rest = err.splitlines()
    assert message.format(table=table) in first
    assert rest == (["try 'summarize --help'"] if message.startswith("error: ") else [])  # usage errors: where to look


def test_a_failed_table_leaves_no_output(run, table: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("earlier\n")
    assert run(table, "--text-field", "missing", "-o", target)[0] == 2
    assert target.read_text() == "earlier\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.jsonl", "out.jsonl"]


def test_a_table_with_references_needs_a_prefix(run, tmp_path: Path) -> None:
    source = tmp_path / "references.csv"
    source.write_text(f'text,summary\n"{ARTICLE}",The river flooded.\n')
    code, out, err = run(source, "--text-field", "text")
    assert (code, out) == (2, "")
    assert (
        err == f"summarize: {source}: the input already has a column 'summary'; give the added columns a prefix "
        "(--prefix, prefix=)\n"
    )
    code, out, err = run(source, "--text-field", "text", "--prefix", "bertsum_")
    row = json.loads(out)
    assert code == 0 and row["summary"] == "The river flooded." and row["bertsum_summary"]
