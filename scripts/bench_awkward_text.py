"""Whether reading a document stays linear in its length on awkward text, at two lengths.

    python scripts/bench_awkward_text.py                # 100,000 and 200,000 characters
    python scripts/bench_awkward_text.py --chars 500000

For each shape of text that has made a regular expression or a join go quadratic (a hard-wrapped
paragraph that never ends a sentence, a word hyphenated at every line, a run of dots, a spaced
ellipsis thousands of dots long, ...), times reading it (`read_document`: file to paragraphs) and
splitting its paragraphs into sentences at both lengths, in one run, and prints the ratio of the
times: about 2 when time grows linearly, 4 when quadratically. No model is loaded.
"""

from __future__ import annotations

import argparse
import random
import textwrap
import time
from collections.abc import Callable

from summarizer.readers import read_document
from summarizer.text.sentences import paragraph_sentences

WORDS = "river town flood people water bridge school council road rain storm night".split()


def words(count: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(count))


def sentences(chars: int) -> str:
    return " ".join(words(8, seed).capitalize() + "." for seed in range(chars // 50))


# Each shape: its format and a text of about `chars` characters.
SHAPES: dict[str, tuple[str, Callable[[int], str]]] = {
    "sentences on one line": ("text", sentences),
    "wrapped, no sentence end": ("text", lambda chars: textwrap.fill(words(chars // 6), 72)),
    "wrapped, a hyphen at every line's end": (
        "text",
        lambda chars: "\n".join(words(9, seed) + " infor-" for seed in range(chars // 70)) + "\nmation.",
    ),
    "a word hyphenated at every line": ("text", lambda chars: "\n".join(["a" * 60 + "-"] * (chars // 61)) + "\nb"),
    "one word per line": ("text", lambda chars: "\n".join(["word"] * (chars // 5))),
    "a run of dots": ("text", lambda chars: "." * chars),
    "a run of letters": ("text", lambda chars: "a" * chars),
    "a spaced ellipsis": ("text", lambda chars: "He waited" + " ." * (chars // 2) + " and spoke."),
    "a run of exclamation marks": ("text", lambda chars: "Word" + "!" * chars + " next."),
    "Markdown paragraphs": ("markdown", lambda chars: sentences(chars).replace(". ", ".\n\n")),
    "Markdown list": ("markdown", lambda chars: "\n".join("- " + words(8, seed) for seed in range(chars // 50))),
    "HTML paragraphs": (
        "html",
        lambda chars: "<html><body><p>" + sentences(chars).replace(". ", ".</p><p>") + "</p></body></html>",
    ),
}


def timed(text: str, format: str) -> tuple[float, float]:
    """Seconds to read `text` as `format`, and to split its paragraphs into sentences."""
    started = time.perf_counter()
    document = read_document(text, format, "benchmark")
    read = time.perf_counter() - started
    started = time.perf_counter()
    paragraph_sentences(document.paragraphs)
    return read, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=100_000, help="the shorter length; the longer is twice it")
    args = parser.parse_args()
    print(f"{'shape':40} {'read, s: N, 2N':>17} {'ratio':>6} {'split, s: N, 2N':>17} {'ratio':>6}")
    for name, (format, make) in SHAPES.items():
        (read, split), (read_twice, split_twice) = (
            timed(make(chars), format) for chars in (args.chars, 2 * args.chars)
        )
        print(
            f"{name:40} {read:8.3f} {read_twice:8.3f} {read_twice / max(read, 1e-6):6.1f} "
            f"{split:8.3f} {split_twice:8.3f} {split_twice / max(split, 1e-6):6.1f}"
        )


if __name__ == "__main__":
    main()
