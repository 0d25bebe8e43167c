"""The `summarize` entry point explains a shadowing `summarizer` package instead of crashing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bertsum.launch import shadowing_problem

LAUNCH = "from bertsum.launch import summarize; summarize()"
# The first lines of bert-extractive-summarizer's package: importing it would fail here.
PEER_INIT = "from summarizer.bert import Summarizer\nfrom summarizer.sbert import SBertSummarizer\n"


def _run_with_first_on_path(directory: Path) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(directory), os.environ.get("PYTHONPATH", "")]),
    }
    # From `directory`, so that the checkout's own `summarizer` is not found through the current directory.
    return subprocess.run(
        [sys.executable, "-c", LAUNCH],
        cwd=directory,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("layout", ["package", "module"])
def test_shadowing_package_gets_a_plain_message_and_exit_2(tmp_path: Path, layout: str) -> None:
    if layout == "package":
        (tmp_path / "summarizer").mkdir()
        (tmp_path / "summarizer" / "__init__.py").write_text(PEER_INIT, encoding="utf-8")
    else:
        (tmp_path / "summarizer.py").write_text(PEER_INIT, encoding="utf-8")
    result = _run_with_first_on_path(tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("summarize: The `summarizer` module found at ")
    assert str(tmp_path / "summarizer") in result.stderr
    assert "bert-extractive-summarizer" in result.stderr
    assert "pip uninstall -y bert-extractive-summarizer" in result.stderr
    assert "pip install --force-reinstall --no-deps bertsum" in result.stderr
    assert result.stdout == ""


def test_own_package_is_accepted() -> None:
    assert shadowing_problem() is None
