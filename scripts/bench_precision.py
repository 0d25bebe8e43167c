"""Speed of each torch inference precision against fp32, in one run, with a built-in model.

`summarize_batch` over the same BBC News validation articles (40% of the sentences), the
precisions taking turns so that each sees the same machine load; prints documents per second,
the ratio to fp32 and how many documents got the same sentences as with fp32. Quality: run
`python -m summarizer.evaluate ... --precision P` (README, Benchmarks).

    python scripts/bench_precision.py [--model news] [--limit 64] [--repeats 2] [--precisions fp32 int8]
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

import torch

from summarizer.pipeline import Summarizer
from summarizer.runtime.precision import PRECISIONS

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "bbc-news" / "validation.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="news", help="a built-in model's name or a model directory")
    parser.add_argument("--limit", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=2, help="best of this many timings each")
    parser.add_argument("--precisions", nargs="+", choices=PRECISIONS, default=["fp32", "int8"])
    args = parser.parse_args()
    with DATA.open(encoding="utf-8") as lines:
        texts = [json.loads(line)["text"] for line in itertools.islice(lines, args.limit)]
    summarizers = {
        precision: Summarizer.from_pretrained(args.model, precision=precision, backend="torch")
        for precision in ["fp32", *args.precisions]
    }
    best = dict.fromkeys(summarizers, float("inf"))
    chosen = {}
    for _ in range(args.repeats):
        for precision, summarizer in summarizers.items():
            start = time.perf_counter()
            chosen[precision] = [s.indices for s in summarizer.summarize_batch(texts, 16, ratio=0.4)]
            best[precision] = min(best[precision], time.perf_counter() - start)
    print(
        f"CPU capability: {torch.backends.cpu.get_cpu_capability()}, torch threads: "
        f"{torch.get_num_threads()}, model {args.model}, {len(texts)} BBC articles"
    )
    for precision in summarizers:
        same = sum(a == b for a, b in zip(chosen[precision], chosen["fp32"]))
        print(
            f"{precision}: {len(texts) / best[precision]:.2f} docs/s, {best['fp32'] / best[precision]:.2f}x fp32, "
            f"same sentences as fp32 in {same}/{len(texts)} documents"
        )


if __name__ == "__main__":
    main()
