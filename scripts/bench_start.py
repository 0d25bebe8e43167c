"""`summarize --model M FILE` from start to output, for several models, as the ratio to the first.

    python scripts/bench_start.py FILE [--models news multilingual] [--runs 5]

Each run is a fresh process (start-up, model loading, reading, scoring and printing), the models
taken in turn so that a busy machine slows each alike; the median wall-clock and CPU times of
each model are printed with their ratios to the first model's, measured in this one run.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path


def timed(model: str, path: Path) -> tuple[float, float]:
    """Wall-clock and CPU seconds (the child's, all threads) of one `summarize` run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [str(Path(sys.executable).with_name("summarize")), "--model", model, str(path)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--models", nargs="+", default=["news", "multilingual"])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    times: dict[str, list[tuple[float, float]]] = {model: [] for model in args.models}
    for model in args.models:  # once each first: caches, an encoder unpacked on first use
        timed(model, args.file)
    for _ in range(args.runs):
        for model in args.models:
            times[model].append(timed(model, args.file))
    first = args.models[0]
    base_wall = statistics.median(w for w, _ in times[first])
    base_cpu = statistics.median(c for _, c in times[first])
    print(f"{args.file} ({args.file.stat().st_size:,} bytes), median of {args.runs} runs each")
    for model in args.models:
        wall = statistics.median(w for w, _ in times[model])
        cpu = statistics.median(c for _, c in times[model])
        ratios = f"{wall / base_wall:.2f}x {first}'s wall, {cpu / base_cpu:.2f}x its CPU"
        print(f"{model:>14}: {wall:5.2f} s wall, {cpu:5.2f} s CPU ({ratios})")


if __name__ == "__main__":
    main()
