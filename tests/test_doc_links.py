"""The README and docs/ stay short enough to read, and their relative links lead somewhere."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").glob("*.md")])
WORD_LIMITS = {"README.md": 1_500, "docs/results.md": 5_000}

_PARSER = MarkdownIt("commonmark").enable("table")
_NOT_IN_SLUG = re.compile(r"[^\w\- ]")  # GitHub drops punctuation, keeps letters, digits, _ and -


def words(path: Path) -> int:
    """Words as `wc -w` counts them: runs of non-space characters."""
    return len(path.read_text(encoding="utf-8").split())


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading (before numbering repeats)."""
    return _NOT_IN_SLUG.sub("", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown page, repeats numbered -1, -2... as GitHub does."""
    tokens = _PARSER.parse(path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    found = set()
    for opening, inline in zip(tokens, tokens[1:], strict=False):
        if opening.type != "heading_open":
            continue
        text = "".join(child.content for child in inline.children or () if child.type in {"text", "code_inline"})
        base = slug(text)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> Iterator[str]:
    """The targets of a page's links and images (not of text inside code)."""
    for token in _PARSER.parse(path.read_text(encoding="utf-8")):
        for child in token.children or ():
            target = child.attrGet("href") if child.type == "link_open" else child.attrGet("src")
            if isinstance(target, str):
                yield target


def broken_links(path: Path) -> list[str]:
    """The relative links of a page whose file, or whose heading in a Markdown file, is missing."""
    broken = []
    for target in links(path):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):  # https:, mailto: ...
            continue
        name, _, anchor = target.partition("#")
        linked = (path.parent / name).resolve() if name else path
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no such heading in {linked.name}")
    return broken


@pytest.mark.parametrize("page", sorted(WORD_LIMITS))
def test_page_within_word_limit(page: str) -> None:
    assert words(ROOT / page) <= WORD_LIMITS[page]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_relative_links_lead_to_files_and_headings(page: Path) -> None:
    assert broken_links(page) == []


def test_readme_links_every_docs_page() -> None:
    linked = {target.partition("#")[0] for target in links(ROOT / "README.md")}
    assert {f"docs/{page.name}" for page in (ROOT / "docs").glob("*.md")} <= linked


def test_broken_links_are_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# The `summarize` command\n\n## Memory over 1,000 articles\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\n## Title\n\n"
        "[a](other.md#the-summarize-command) [b](other.md#memory-over-1000-articles) [c](#title-1)\n"
        "[d](missing.md) [e](other.md#nowhere) [f](https://example.org/x.md) `[g](in-code.md)`\n\n"
        "| table |\n|---|\n| [h](#nowhere-either) |\n\n"
        "```bash\n# [i](fenced.md)\n```\n"
    )
    assert broken_links(page) == [
        "missing.md: no such file",
        "other.md#nowhere: no such heading in other.md",
        "#nowhere-either: no such heading in page.md",
    ]
