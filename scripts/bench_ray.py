"""One machine's two ways past one process, side by side on the same CNN/DailyMail articles.

The built-in model as `summarize` loads it (backend and precision "auto"), 3 sentences, on the
first `--limit` validation articles:
- `datasets.Dataset.map(num_proc=N)`: N processes of one thread, each loading the model once
  (a pickled `Summarizer` loads again where it is unpickled);
- `summarize_batch` in one process with ONNX Runtime's default threads;
- Ray Data (`summarizer.ray.summarize_dataset`) on a local cluster of N actors of one thread.
Each is timed from its first document to its last summary, model loading in the workers
included; the Ray cluster's own start is printed apart. Prints documents per second, their
ratio to one process, and checks that every way gave the same summaries in the same order.

    python scripts/bench_ray.py [--limit 1000] [--workers 2]
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import os
import time
from pathlib import Path
from typing import Any

import datasets
import ray

from summarizer.pipeline import Summarizer
from summarizer.ray import summarize_dataset

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "cnndm" / "validation.jsonl"


@functools.cache
def process_summarizer() -> Summarizer:
    """One model per process, computing with one thread, as Ray's actors of one CPU do."""
    return Summarizer.from_pretrained(threads=1)


def add_summaries(batch: dict[str, list[Any]]) -> dict[str, list[Any]]:
    summaries = list(process_summarizer().summarize_batch(batch["text"], 16, k=3))
    return {"summary": [str(s) for s in summaries], "indices": [s.indices for s in summaries]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2, help="processes of datasets.map, actors of Ray Data")
    args = parser.parse_args()
    with DATA.open(encoding="utf-8") as lines:
        texts = [json.loads(line)["article"] for line in itertools.islice(lines, args.limit)]
    rows = [{"id": i, "text": text} for i, text in enumerate(texts)]
    seconds: dict[str, float] = {}
    results: dict[str, list[tuple[str, list[int]]]] = {}

    start = time.perf_counter()
    mapped = datasets.Dataset.from_list(rows).map(add_summaries, batched=True, batch_size=128, num_proc=args.workers)
    results["datasets"] = list(zip(mapped["summary"], mapped["indices"]))
    seconds["datasets"] = time.perf_counter() - start

    summarizer = Summarizer.from_pretrained()
    start = time.perf_counter()
    results["one"] = [(str(s), s.indices) for s in summarizer.summarize_batch(texts, 16, k=3)]
    seconds["one"] = time.perf_counter() - start

    start = time.perf_counter()
    ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    cluster_start = time.perf_counter() - start
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    start = time.perf_counter()
    out = summarize_dataset(
        ray.data.from_items(rows), concurrency=args.workers, num_cpus=1, batch_size=16, k=3
    ).take_all()
    seconds["ray"] = time.perf_counter() - start
    ray.shutdown()
    in_order = [row["id"] for row in out] == list(range(len(rows)))
    results["ray"] = [(row["summary"], list(row["indices"])) for row in out]

    print(f"{summarizer!r}, {os.cpu_count()} CPUs, {len(texts)} CNN/DailyMail validation articles, 3 sentences")
    names = {
        "one": "summarize_batch, one process of ONNX Runtime's default threads",
        "datasets": f"datasets.Dataset.map, {args.workers} processes of 1 thread",
        "ray": f"Ray Data, {args.workers} actors of 1 thread (local cluster start, {cluster_start:.1f} s, not counted)",
    }
    for way in ("one", "datasets", "ray"):
        same = sum(a == b for a, b in zip(results[way], results["one"]))
        print(
            f"{names[way]}: {len(texts) / seconds[way]:.2f} docs/s ({seconds[way]:.1f} s), "
            f"{seconds['one'] / seconds[way]:.2f}x one process, same summaries {same}/{len(texts)}"
        )
    print(f"Ray rows in input order: {in_order}")


if __name__ == "__main__":
    main()
