"""What reading a document's layout adds to `summarize` on the benchmark files.

    python scripts/bench_reading.py [--limit 200]

For BBC News and CNN/DailyMail validation texts, times in one run: the paragraph rule
(`summarizer.text.layout.paragraphs`) over every document, and `Summarizer.summarize_batch` with
the built-in model over the same documents; prints the rule's time as a share of summarizing.
Needs ../shared/data.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from summarizer import Summarizer
from summarizer.text.layout import paragraphs

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
FILES = {"BBC News": ("bbc-news/validation.jsonl", "text"), "CNN/DailyMail": ("cnndm/validation.jsonl", "article")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=200, help="documents per file")
    args = parser.parse_args()
    summarizer = Summarizer.from_pretrained()
    for name, (file, field) in FILES.items():
        with (SHARED / file).open(encoding="utf-8") as lines:
            texts = [json.loads(line)[field] for line, _ in zip(lines, range(args.limit))]
        start = time.perf_counter()
        for text in texts:
            paragraphs(text)
        layout = time.perf_counter() - start
        start = time.perf_counter()
        for _ in summarizer.summarize_batch(texts):
            pass
        total = time.perf_counter() - start
        print(
            f"{name}: {len(texts)} documents, layout {layout:.3f} s, summarize {total:.1f} s: layout is "
            f"{100 * layout / total:.2f}% of summarizing"
        )


if __name__ == "__main__":
    main()
