"""Time and peak memory of `summarize` on one very long document, at two lengths.

A synthetic document of short sentences on one line (the hardest case for sentence splitting)
is summarized by the installed command with the built-in model, as a user would run it; the
ratio of the times against the ratio of the lengths shows whether time grows linearly.

    python scripts/bench_long_document.py            # 12,500 and 50,000 sentences (about 2 MB)
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

WORDS = (
    "river town flood people water bridge school council road rain storm night officials "
    "residents repair week food help city money"
).split()


def document(sentences: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    return " ".join(
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 8))).capitalize() + "." for _ in range(sentences)
    )


def run(path: Path) -> tuple[float, float]:
    """Seconds and peak resident memory (MB) of `summarize path` in a fresh process."""
    launcher = "from bertsum.launch import summarize; summarize()"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", launcher, str(path)], check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - started
    return seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, nargs=2, default=[12_500, 50_000], metavar=("SHORT", "LONG"))
    args = parser.parse_args()
    print(f"CPU capability: {torch.backends.cpu.get_cpu_capability()}, threads: {torch.get_num_threads()}")
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for count in args.sentences:
            path = Path(folder) / f"{count}.txt"
            path.write_text(document(count))
            seconds, peak = run(path)  # peak: the largest of the runs so far (RUSAGE_CHILDREN)
            results.append((count, seconds))
            size = path.stat().st_size / 1e6
            print(
                f"{count:>7,} sentences ({size:.2f} MB): {seconds:6.1f} s, {1000 * seconds / count:.2f} s "
                f"per 1,000 sentences, peak memory so far {peak:,.0f} MB"
            )
    (short, short_s), (long, long_s) = results
    print(f"{long / short:.1f}x the sentences took {long_s / short_s:.2f}x the time")


if __name__ == "__main__":
    main()
