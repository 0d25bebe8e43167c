"""Console-script entry points that first make sure `summarizer` is bertsum's own package.

bert-extractive-summarizer also installs a top-level `summarizer` package; when it shadows
ours, the user gets a plain explanation and the fix instead of an import traceback.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

FIX = (
    "Fix: `pip uninstall -y bert-extractive-summarizer` and then "
    "`pip install --force-reinstall --no-deps bertsum`, or install the two in separate "
    "virtual environments."
)


def shadowing_problem() -> str | None:
    """Why `import summarizer` would not give bertsum's package, or None when it would."""
    spec = importlib.util.find_spec("summarizer")
    if spec is None:
        return "bertsum's `summarizer` package is not installed. " + FIX
    location = Path(spec.origin or next(iter(spec.submodule_search_locations or []), "?"))
    try:
        init_text = location.read_text(encoding="utf-8") if location.suffix == ".py" else ""
    except OSError:
        init_text = ""
    if '__distribution__ = "bertsum"' not in init_text:
        return (
            f"The `summarizer` module found at {location} is not bertsum's: another package "
            "(usually bert-extractive-summarizer) installs the same top-level name and shadows it. " + FIX
        )
    return None


def summarize() -> None:
    """The `summarize` command."""
    problem = shadowing_problem()
    if problem:
        print(f"summarize: {problem}", file=sys.stderr)
        raise SystemExit(2)
    from summarizer.cli.command import main

    raise SystemExit(main())
