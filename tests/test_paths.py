"""Every way to summarize gives the same summaries: the `summarize` command on files,
`Summarizer.summarize`, `summarize_batch`, table mode (`summarize TABLE --text-field`) and Ray
Data (`summarize TABLE --ray`, on the inference install: torch made unimportable), each with the
built-in model as it resolves by default (backend and precision "auto")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_api import TEXT, documents
from test_cli import ARTICLE, OTHER

from summarizer import Summarizer
from summarizer.cli.command import main

DOCUMENTS = [ARTICLE, OTHER, TEXT, *documents(9), "\n\n".join([ARTICLE, TEXT, OTHER] * 4)]
# A site customization that makes torch and transformers unimportable in every process that
# starts with it on its path (the command and Ray's workers): the inference install.
WITHOUT_TORCH = "import sys\nsys.modules['torch'] = sys.modules['transformers'] = None\n"


def reference() -> list[list[int]]:
    return [summary.indices for summary in Summarizer.from_pretrained().summarize_batch(DOCUMENTS)]


def table(tmp_path: Path) -> Path:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"id": i, "text": text}) + "\n" for i, text in enumerate(DOCUMENTS)))
    return rows


def test_the_command_the_library_and_table_mode_choose_the_same_sentences(tmp_path, capsys):
    expected = reference()
    summarizer = Summarizer.from_pretrained()
    assert [summarizer.summarize(text).indices for text in DOCUMENTS] == expected

    folder = tmp_path / "docs"
    folder.mkdir()
    for i, text in enumerate(DOCUMENTS):
        (folder / f"{i:02d}.txt").write_text(text)
    assert main([str(folder), "--format", "jsonl"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [record["file"] for record in records] == [str(folder / f"{i:02d}.txt") for i in range(len(DOCUMENTS))]
    assert [record["indices"] for record in records] == expected

    assert main([str(table(tmp_path)), "--text-field", "text"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["indices"] for row in rows] == expected


@pytest.mark.slow
def test_ray_chooses_them_too_on_the_inference_install(tmp_path):
    pytest.importorskip("ray.data", reason="Ray is not installed (pip install 'bertsum[ray]')")
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(WITHOUT_TORCH)
    paths = [str(site), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    out = tmp_path / "out.jsonl"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    blocked = subprocess.run(
        [sys.executable, "-c", "import torch"], capture_output=True, text=True, env=env, timeout=60
    )
    assert blocked.returncode == 1 and "import of torch halted" in blocked.stderr  # the customization works
    launcher = "from bertsum.launch import summarize; summarize()"
    done = subprocess.run(
        [sys.executable, "-c", launcher, str(table(tmp_path)), "--ray", "--actors", "2", "-o", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    assert "summarize:" not in done.stderr and "Traceback" not in done.stderr  # (Ray's core may log a line)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["id"] for row in rows] == list(range(len(DOCUMENTS)))
    assert [row["indices"] for row in rows] == reference()
