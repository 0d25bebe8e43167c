"""Jupyter notebooks: their Markdown cells (`summarizer.readers.notebook`)."""

from __future__ import annotations

import json

import pytest
from test_documents import assert_one_line

from summarizer.readers import Document, format_of

NOTEBOOK = {
    "nbformat": 4,
    "nbformat_minor": 5,
    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    "cells": [
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": [
                "# Training a classifier\n",
                "\n",
                "We fit a **logistic regression** to the [iris data](https://example.org).\n",
                "It reaches 96% accuracy.\n",
            ],
        },  # fmt: skip
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": 1,
            "source": "model.fit(X, y)  # not prose.",
            "outputs": [{"output_type": "stream", "name": "stdout", "text": ["Training finished.\n"]}],
        },  # fmt: skip
        {"cell_type": "raw", "metadata": {}, "source": "A raw cell is not rendered."},
        {"cell_type": "markdown", "metadata": {}, "source": "- Scaling the features first helps.\n- More data helps."},
    ],
}


def test_notebook_is_read_by_extension():
    assert format_of("analysis.ipynb") == "notebook"


def test_a_notebook_reads_as_its_markdown_cells():
    assert Document.from_text(json.dumps(NOTEBOOK), "notebook").paragraphs == (
        "We fit a logistic regression to the iris data. It reaches 96% accuracy.",
        "Scaling the features first helps.",
        "More data helps.",
    )


def test_a_notebook_s_math_reads_as_text_and_prices_as_written():
    cell = {"cell_type": "markdown", "source": "We embed $x_t\\in\\mathbb{R}^D$ with $a \\to b$.\n\n$$\ny = Wx\n$$\n\n"
            "It costs $5 and $10 a month."}  # fmt: skip
    notebook = {"cells": [cell]}
    assert Document.from_text(json.dumps(notebook), "notebook").paragraphs == (
        "We embed x_t∈ℝ^D with a → b.",
        "It costs $5 and $10 a month.",
    )


@pytest.mark.parametrize(
    "source",
    [
        "The loss is\n\n$$\nL = \\sum_i x_i\n$$\n\nwhere x is the input.",
        "The loss is\n$$\nL = \\sum_i x_i\n$$\nwhere x is the input.",
        "The loss is $$L = \\sum_i x_i$$ where x is the input.",
    ],
    ids=["block", "block-in-paragraph", "inline"],
)
def test_display_math_reads_within_the_sentence_it_interrupts(source):
    notebook = {"cells": [{"cell_type": "markdown", "source": source}]}
    assert Document.from_text(json.dumps(notebook), "notebook").paragraphs == (
        "The loss is L = ∑_i x_i where x is the input.",
    )


def test_display_math_before_a_new_sentence_is_left_out():
    source = "We minimize the loss:\n\n$$\nL = x\n$$\n\nThe model converges.\n\n$$y$$\n\nand ends."
    notebook = {"cells": [{"cell_type": "markdown", "source": source}]}
    assert Document.from_text(json.dumps(notebook), "notebook").paragraphs == (
        "We minimize the loss:",
        "The model converges.",
        "and ends.",
    )


def test_a_version_3_notebook_s_worksheets_are_read():
    old = {"nbformat": 3, "worksheets": [{"cells": [{"cell_type": "markdown", "source": ["Old notebooks read too."]}]}]}
    assert Document.from_text(json.dumps(old), "notebook").paragraphs == ("Old notebooks read too.",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"cells": [\n{"cell_type": }', "not a Jupyter notebook: invalid JSON at line 2"),
        ('{"metadata": {}}', "not a Jupyter notebook: no list of cells"),
        ("[1, 2]", "not a Jupyter notebook: no list of cells"),
        ('{"cells": [{"cell_type": "markdown", "source": [1, 2]}]}', "not a Jupyter notebook: cell 1's source is not"),
        ("[" * 100_000 + "]" * 100_000, "not a Jupyter notebook: "),
    ],
    ids=["invalid-json", "no-cells", "a-list", "source-not-text", "nested-deeply"],
)
def test_bad_notebooks_are_one_line_naming_the_file(tmp_path, text, message):
    assert_one_line(tmp_path / "broken.ipynb", text, message)
