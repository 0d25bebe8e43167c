"""Summaries of files as people have them: are the chosen sentences whole, without markup?

    python scripts/real_files.py                 # the files below that this machine has
    python scripts/real_files.py FILE... [-k 3] [--model MODEL]

Summarizes each file with `summarize`'s reading (format by extension) and the built-in model,
and judges every summary sentence: whole when it begins as a sentence begins (a capital, a
digit, an opening quote or bracket, or anything right after a sentence that ended) and ends
with a full stop, question or exclamation mark, or colon (perhaps inside quotes or brackets);
markup when it holds HTML tags or entities, Markdown link, image, emphasis, heading or table
syntax, code fences, LaTeX commands or a citation's placeholder. Prints each file's sentences
with their verdicts, then the share of whole sentences without markup over all files. Also
counts the paragraphs read that are a typeset page's apparatus, not its text: a numbered
reference entry ("[12] "), a caption ("Table 1:", "Figure 2.", "Fig. 3:") or a footnote (its
number set against its first word, "1The"), and where summaries come from: how many take their
document's first sentence, and how far into their documents the chosen sentences lie on average
(0 the first sentence, 1 the last).
The default files are licenses, READMEs, manuals, Markdown documents, web pages and PDFs that
ship with Debian, Python and Rust.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from summarizer import Summarizer
from summarizer.cli.command import Source, read_source
from summarizer.errors import InputError

RUST = Path.home() / ".rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc"
DEFAULT_FILES = [
    "/usr/share/common-licenses/GPL-3",
    "/usr/share/common-licenses/Apache-2.0",
    "/usr/share/common-licenses/MPL-2.0",
    "/usr/share/doc/base-files/README.FHS",
    "/usr/share/doc/bash/README.abs-guide",
    "/usr/share/doc/git/README.md",
    "/usr/share/doc/libglib2.0-0/README.md",
    "/usr/share/doc/systemd/DISTRO_PORTING.md",
    "/usr/share/doc/nodejs/BUILDING.md",
    "/usr/share/doc/python3-pip/html/installation.md",
    str(Path.home() / ".pyenv/README.md"),
    str(RUST / "clippy/README.md"),
    str(RUST / "cargo/README.md"),
    str(RUST / "rust/html/book/ch01-01-installation.html"),
    str(RUST / "rust/html/book/ch04-01-what-is-ownership.html"),
    str(RUST / "rust/html/book/ch09-00-error-handling.html"),
    "/usr/share/doc/bzip2/manual.html",
    "/usr/share/doc/libffi-dev/html/Introduction.html",
    "/usr/share/doc/base-passwd/users-and-groups.html",
    "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
    "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
]
_END = re.compile(r"[.!?:][\"'”’)\]]*$")
_START = re.compile(r"[\"'“‘(\[]*[A-Z0-9]")
_TAG = r"</?[a-zA-Z][\w-]*(?:\s+[\w-]+(?:=(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*\s*/?>"  # not "Result<T, E>"
_APPARATUS = re.compile(r"\[\d{1,4}\]\s|(?:Table|Figure|Fig\.)\s+\d{1,3}[:.]\s|\d{1,2}[A-Z][a-z]")
_LATEX = r"|\\[a-zA-Z]+|<cit\.>"  # a command, pylatexenc's placeholder for a citation
_MARKUP = re.compile(_TAG + r"|&[a-z]+;|&#\d+;|\]\(|!\[|\*\*|__\w|^#{1,6} |\|\s*-{3,}|```|\|.*\|.*\|" + _LATEX)


def verdict(sentence: str, previous: str | None) -> str:
    if _MARKUP.search(sentence):
        return "markup"
    begins = previous is None or _START.match(sentence) or _END.search(previous)
    return "whole" if begins and _END.search(sentence) else "fragment"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="files to summarize (default: the list in this script)")
    parser.add_argument("-k", type=int, default=3)
    parser.add_argument("--model", default="news", help="a built-in model or a model directory (default news)")
    args = parser.parse_args()
    files = [Path(f) for f in args.files] or [Path(f) for f in DEFAULT_FILES if Path(f).is_file()]
    summarizer = Summarizer.from_pretrained(args.model, precision="fp32")  # the figures in docs were measured in fp32
    counts = {"whole": 0, "fragment": 0, "markup": 0}
    apparatus = paragraphs = leads = 0
    places: list[float] = []
    for path in files:
        try:
            document = read_source(Source(path, str(path), Path(path.name)), 50_000_000)
        except InputError as error:
            print(f"{error}", file=sys.stderr)
            continue
        summary = summarizer.summarize(document, k=args.k)
        notes = [paragraph for paragraph in document.paragraphs if _APPARATUS.match(paragraph)]
        apparatus, paragraphs = apparatus + len(notes), paragraphs + len(document.paragraphs)
        leads += 0 in summary.indices
        places += [index / max(len(summary.document) - 1, 1) for index in summary.indices]
        print(f"== {path} ({len(summary.document)} sentences, {len(notes)} paragraphs of apparatus)")
        for index, sentence in zip(summary.indices, summary.sentences):
            previous = summary.document[index - 1] if index > 0 else None
            judged = verdict(sentence, previous)
            counts[judged] += 1
            print(f"   [{judged}] {sentence}")
    total = sum(counts.values())
    print(
        f"{len(files)} files, {total} summary sentences: {counts['whole']} whole "
        f"({100 * counts['whole'] / max(total, 1):.1f}%), {counts['fragment']} fragments, {counts['markup']} "
        f"with markup; {apparatus} of {paragraphs} paragraphs read are reference entries, captions or footnotes; "
        f"{leads} summaries take their document's first sentence, the chosen sentences lie "
        f"{sum(places) / max(len(places), 1):.2f} of the way into their documents on average"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
