"""Jupyter notebooks: the Markdown of their text cells, read as Markdown is, with their math as
Jupyter renders it (code, its output and raw cells are not running text)."""

from __future__ import annotations

import json
from typing import Any

from summarizer.errors import UnreadableDocument
from summarizer.readers.base import Reader
from summarizer.readers.markdown import markdown_paragraphs


def notebook_markdown(text: str) -> list[str]:
    """The source of each Markdown cell of a notebook (nbformat 4, or 3's worksheets), in order."""
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as error:
        raise UnreadableDocument(f"not a Jupyter notebook: invalid JSON at line {error.lineno}") from None
    except (RecursionError, ValueError) as error:  # nested too deeply; a number too long to read
        raise UnreadableDocument(f"not a Jupyter notebook: {type(error).__name__}") from None
    cells: Any = notebook.get("cells") if isinstance(notebook, dict) else None
    if cells is None and isinstance(notebook, dict) and isinstance(notebook.get("worksheets"), list):
        sheets = [sheet.get("cells") for sheet in notebook["worksheets"] if isinstance(sheet, dict)]
        cells = [cell for sheet in sheets if isinstance(sheet, list) for cell in sheet]
    if not isinstance(cells, list):
        raise UnreadableDocument("not a Jupyter notebook: no list of cells")
    sources = []
    for number, cell in enumerate(cells, 1):
        if isinstance(cell, dict) and cell.get("cell_type") == "markdown":
            source = cell.get("source", "")
            if isinstance(source, list) and all(isinstance(line, str) for line in source):
                source = "".join(source)
            if not isinstance(source, str):
                raise UnreadableDocument(f"not a Jupyter notebook: cell {number}'s source is not text")
            sources.append(source)
    return sources


def notebook_paragraphs(text: str) -> list[str]:
    """The paragraphs of a notebook's Markdown cells, with their math."""
    return [paragraph for cell in notebook_markdown(text) for paragraph in markdown_paragraphs(cell, math=True)]


READER = Reader("notebook", "a Jupyter notebook", (".ipynb",), notebook_paragraphs, running_text=True)
