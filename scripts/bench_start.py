"""`summarize --model M FILE` from start to output, for several models, as the ratio to the first.

    python scripts/bench_start.py FILE [--models news multilingual] [--runs 5]

Each run is a fresh process (start-up, model loading, reading, scoring and printing), the models
taken in turn so that a busy machine slows each alike; the median wall-clock and CPU times of
each model are printed with their ratios to the first model's, measured in this one run, and
the peak resident memory of each model's process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def timed(model: str, path: Path) -> tuple[float, float, float]:
    """Wall-clock and CPU seconds (all threads) and peak resident MB of one `summarize` run."""
    started = time.perf_counter()
    command = [str(Path(sys.executable).with_name("summarize")), "--model", model, str(path)]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if status:
        raise SystemExit(f"{' '.join(command)} failed")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--models", nargs="+", default=["news", "multilingual"])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    times: dict[str, list[tuple[float, float, float]]] = {model: [] for model in args.models}
    for model in args.models:  # once each first: caches, an encoder unpacked on first use
        timed(model, args.file)
    for _ in range(args.runs):
        for model in args.models:
            times[model].append(timed(model, args.file))
    first = args.models[0]
    base_wall = statistics.median(w for w, _, _ in times[first])
    base_cpu = statistics.median(c for _, c, _ in times[first])
    print(f"{args.file} ({args.file.stat().st_size:,} bytes), median of {args.runs} runs each")
    for model in args.models:
        wall = statistics.median(w for w, _, _ in times[model])
        cpu = statistics.median(c for _, c, _ in times[model])
        peak = max(m for _, _, m in times[model])
        ratios = f"{wall / base_wall:.2f}x {first}'s wall, {cpu / base_cpu:.2f}x its CPU"
        print(f"{model:>14}: {wall:5.2f} s wall, {cpu:5.2f} s CPU ({ratios}), peak {peak:,.0f} MB")


if __name__ == "__main__":
    main()
