"""Inference throughput: `summarize_batch` end to end against the bare encoder forward pass.

End to end covers sentence splitting, tokenizing, encoding, scoring and selection; the bare
pass runs only the encoder over the very token batches `summarize_batch` builds. Prints
documents per second for both, their ratio (target: at least 0.85) and peak memory.

    python scripts/bench_inference.py [--model DIR] [--data FILE.jsonl] [--limit N] [--batch-size 16]

Without --model, MiniLM (`default_encoder_dir()`) is wrapped into an untrained summarizer.
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

from summarizer.api import CHUNK_BATCHES, Summarizer
from summarizer.batch import length_batches
from summarizer.batch import Batch
from summarizer.heads import SentenceHead
from summarizer.model import BertSumModel, load_tokenizer
from summarizer.resources import default_encoder_dir

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "bbc-news" / "validation.jsonl"


def untrained_model(directory: Path, head: str) -> Path:
    """MiniLM wrapped into an untrained summarizer, exported to `directory`."""
    encoder = default_encoder_dir()
    model = BertSumModel.from_encoder(encoder, head=head)
    model.save_pretrained(str(directory))
    load_tokenizer(encoder).save_pretrained(str(directory))
    return directory


def encoder_batches(summarizer: Summarizer, texts: list[str], batch_size: int) -> list[Batch]:
    """The batches `summarize_batch` encodes: chunks of documents, grouped by length."""
    batches = []
    for start in range(0, len(texts), batch_size * CHUNK_BATCHES):
        prepared = summarizer.prepare(texts[start : start + batch_size * CHUNK_BATCHES])
        sections = [section for document in prepared for section in document.sections]
        for group in length_batches([section.num_tokens for section in sections], batch_size):
            chosen = [sections[i] for i in group if sections[i].features.windows]
            if chosen:
                batches.append(summarizer.collate(chosen))
    return batches


def bare_forward(summarizer: Summarizer, batches: list[Batch]) -> None:
    """The encoder calls `summarize_batch` makes: at most `max_windows_per_pass` windows each."""
    with torch.inference_mode():
        for batch in batches:
            windows = batch.input_ids.shape[0]
            step = summarizer.max_windows_per_pass or windows
            for start in range(0, windows, step):
                summarizer.model.encoder(**batch.encoder_inputs(start, start + step))


def best_times(runs: list[Callable[[], object]], repeats: int) -> list[float]:
    """Fastest wall time of each run; the runs alternate so that both see the same machine load."""
    best = [float("inf")] * len(runs)
    for _ in range(repeats):
        for i, run in enumerate(runs):
            start = time.perf_counter()
            run()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, help="exported model directory (default: untrained MiniLM summarizer)")
    parser.add_argument("--head", choices=sorted(SentenceHead.kinds), default="transformer", help="head of the untrained model")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="JSONL file with a `text` field")
    parser.add_argument("--limit", type=int, help="use only the first N documents")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=1, help="time both sides this many times, keep the best")
    parser.add_argument("--threads", type=int, help="torch intra-op threads (default: torch's choice)")
    args = parser.parse_args()

    if args.threads:
        torch.set_num_threads(args.threads)
    with args.data.open(encoding="utf-8") as lines:
        texts = [json.loads(line)["text"] for line in itertools.islice(lines, args.limit)]
    with tempfile.TemporaryDirectory() as scratch:
        model_dir = args.model or untrained_model(Path(scratch), args.head)
        summarizer = Summarizer.from_pretrained(model_dir)
    rss_loaded = peak_rss_mib()

    list(summarizer.summarize_batch(texts[: args.batch_size], args.batch_size))  # warm-up
    batches = encoder_batches(summarizer, texts, args.batch_size)
    windows = sum(batch.input_ids.shape[0] for batch in batches)
    tokens = sum(int(batch.attention_mask.sum()) for batch in batches)
    padded = sum(batch.input_ids.numel() for batch in batches)

    bare, end_to_end = best_times(
        [lambda: bare_forward(summarizer, batches), lambda: list(summarizer.summarize_batch(texts, args.batch_size))],
        args.repeats,
    )

    print(f"documents: {len(texts)} ({windows} windows, {tokens} tokens, {padded / tokens - 1:.1%} padding)")
    print(f"torch threads: {torch.get_num_threads()}, batch size: {args.batch_size}")
    print(f"bare encoder forward: {len(texts) / bare:8.2f} docs/s ({bare:.1f} s)")
    print(f"summarize_batch:      {len(texts) / end_to_end:8.2f} docs/s ({end_to_end:.1f} s)")
    print(f"end to end / bare:    {bare / end_to_end:8.1%} (target >= 85%)")
    print(f"peak RSS: {peak_rss_mib():.0f} MiB ({rss_loaded:.0f} MiB after loading the model)")


if __name__ == "__main__":
    main()
