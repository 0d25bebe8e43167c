"""Entry points: `summarize` explains a shadowing `summarizer` package; inference needs no training extras."""

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


TRAINING_ONLY = (
    "pytorch_lightning",
    "lightning_fabric",
    "torchmetrics",
    "datasets",
    "pyarrow",
    "rouge_score",
    "tensorboard",
    "aclsum",
)


def test_inference_imports_nothing_of_training():
    """`pip install bertsum` (without [train]) is enough for summarize and Summarizer."""
    code = (
        "import sys, summarizer.cli.command, summarizer.pipeline; "
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({TRAINING_ONLY!r})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("missing", ["datasets", "pytorch_lightning", "torch"])
@pytest.mark.parametrize("module", ["summarizer.train", "summarizer.evaluate"])
def test_training_without_its_extras_says_what_to_install(module, missing):
    """`python -m summarizer.train` on the inference install: one line, whichever module it lacks."""
    blocked = (
        "import importlib.util as u, sys, runpy; real = u.find_spec; "
        f"u.find_spec = lambda n, *a: None if n.split('.')[0] == {missing!r} else real(n, *a); "
        f"sys.modules[{missing!r}] = None; runpy.run_module({module!r}, run_name='__main__')"
    )
    done = subprocess.run([sys.executable, "-c", blocked, "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr == f"{missing} is not installed: training and evaluation need pip install 'bertsum[train]'\n"
