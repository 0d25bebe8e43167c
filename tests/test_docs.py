"""Every fenced ```python and ```bash example of README.md and docs/*.md runs, as written, in a
folder holding the files it names (report.txt, paper.pdf, corpus.parquet...), with the
`summarize` of this checkout, on this machine's CPUs (two here). Only examples that `SKIPPED`
names are left out, each for its reason: none can rot unnoticed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import ARTICLE, OTHER

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(python|bash)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
# What an example contains -> why it is not run. Keep it short: each entry is an example that
# cannot run in a test, not one that fails.
SKIPPED = {
    "summarizer.train": "trains a model: minutes to hours (tests/test_train.py trains tiny ones)",
    "make main": "trains the main job (about 10 minutes) and sets up a virtual environment",
    "runs/": "needs a model that a training run exports",
    "pip ": "installs or removes packages in the environment",
    "shared/data": "measures on the project's evaluation data for minutes (the figures' own commands)",
    "--cnndm": "measures on the project's CNN/DailyMail evaluation data for minutes (the figures' own commands)",
    "gpu_stage.py": "a training stage prepared for a GPU: minutes to hours",
    "curl -s localhost:8000": "requests to a running summarize serve (tests/test_serve.py sends them to one)",
    "docker ": "needs Docker, which the test machines lack",
    "--ray -o summaries.parquet": "tests/test_ray.py runs these as written, on the Ray cluster its tests share",
}
SLOW = ("ray", "datasets", "torch")  # start a cluster or processes, or import torch
# The names the library examples use for their inputs.
PRELUDE = f"""
text = {ARTICLE!r}
markdown = "# Floods\\n\\n" + text
iter_of_texts = [text, {OTHER!r}]
"""
TEXTS = [ARTICLE, OTHER, ARTICLE.replace("river", "canal"), OTHER.replace("library", "museum")]


def examples() -> list[pytest.param]:
    found: dict[str, tuple[str, str]] = {}  # by code: README.md and docs/usage.md share some
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            line = text[: match.start()].count("\n") + 1
            found.setdefault(match[2], (match[1], f"{page.relative_to(ROOT)}:{line}"))
    params = []
    for code, (language, where) in found.items():
        reasons = [reason for needle, reason in SKIPPED.items() if needle in code]
        marks = [pytest.mark.skip(reason=reasons[0])] if reasons else []
        if any(name in code for name in SLOW):
            marks.append(pytest.mark.slow)
        params.append(pytest.param(language, code, id=where, marks=marks))
    return params


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with every file the examples name."""
    pytest.importorskip("docx")
    from test_documents import pdf_bytes
    from test_ebook_mail import epub_bytes, message_bytes
    from test_office import _zip, odp_files, odt_bytes, pptx_bytes
    from test_word import report_bytes

    root = tmp_path_factory.mktemp("examples")
    paragraphs = "\n\n".join(TEXTS)
    files: dict[str, str | bytes] = {
        "report.txt": paragraphs,
        "article.txt": ARTICLE,
        "one.txt": ARTICLE,
        "LICENSE": paragraphs,
        "docs/flood.txt": ARTICLE,
        "docs/nested/library.md": "# Library\n\n" + OTHER,
        "README.md": "# Notes\n\n" + paragraphs,
        "README.rst": "Notes\n=====\n\n" + paragraphs,
        "manual.html": "<html><body><article>" + "".join(f"<p>{t}</p>" for t in TEXTS) + "</article></body></html>",
        "paper.pdf": pdf_bytes(2),
        "paper/main.tex": "\\documentclass{article}\\begin{document}\n" + paragraphs + "\n\\end{document}\n",
        "report.docx": report_bytes(),
        "notes.ipynb": json.dumps(
            {
                "cells": [{"cell_type": "markdown", "metadata": {}, "source": paragraphs}],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 5,
            }
        ),
        "novel.epub": epub_bytes(),
        "reply.eml": message_bytes(paragraphs),
        "talk.vtt": "WEBVTT\n\n" + "".join(f"00:00:0{i}.000 --> 00:00:0{i}.900\n{t}\n\n" for i, t in enumerate(TEXTS)),
        "report.odt": odt_bytes(),
        "memo.rtf": "{\\rtf1\\ansi " + "\\par ".join(TEXTS) + "}",
        "talk.pptx": pptx_bytes(),
        "talk.odp": _zip(odp_files()),
        "corpus.jsonl": "".join(json.dumps({"id": i, "text": t, "body": t}) + "\n" for i, t in enumerate(TEXTS)),
    }
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist([{"id": i, "text": t} for i, t in enumerate(TEXTS)]), root / "corpus.parquet")
    return root


@pytest.mark.parametrize("language, code", examples())
def test_the_example_runs(language: str, code: str, folder: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    subprocess.run(["cp", "-r", f"{folder}/.", str(work)], check=True)  # each example in a fresh copy
    bin_dir = str(Path(sys.executable).parent)  # where `summarize` is installed
    env = {
        **os.environ,
        "PATH": os.pathsep.join([bin_dir, os.environ.get("PATH", "")]),
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]),
        "HF_DATASETS_CACHE": str(tmp_path / "datasets-cache"),
    }
    env.pop("BERTSUM_MODEL_DIR", None)
    command = (
        ["bash", "-e", "-o", "pipefail", "-c", code] if language == "bash" else [sys.executable, "-c", PRELUDE + code]
    )
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"exit status {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    assert "Traceback" not in done.stderr, done.stderr[-4000:]


def test_every_example_is_found_and_few_are_skipped() -> None:
    params = examples()
    skipped = [p for p in params if any(mark.name == "skip" for mark in p.marks)]
    ran = {p.id.split(":")[0] for p in params if p not in skipped}
    assert {"README.md", "docs/usage.md", "docs/scale.md"} <= ran
    assert len(params) - len(skipped) >= 7
