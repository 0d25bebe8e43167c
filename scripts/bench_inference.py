"""Inference throughput: `summarize_batch` end to end against the bare encoder forward pass.

End to end covers sentence splitting, tokenizing, encoding, scoring and selection; the bare
pass runs only the encoder over the very token batches `summarize_batch` builds. Prints
documents per second for both, their ratio (target: at least 0.85) and peak memory; what
cutting each encoder pass to its longest window gains over padding it to its batch's longest;
and the encoder's arithmetic rate (GFLOP/s, padding included) beside the rate of fp32 matrix
products shaped like its linear layers, timed in the same run: how near the bare encoder runs
to this CPU's fp32 ceiling.

    python scripts/bench_inference.py [--model DIR] [--data FILE.jsonl] [--limit N] [--batch-size 16] [--repeats 1]

Without --model, MiniLM (`default_encoder_dir()`) is wrapped into an untrained summarizer.
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn

from summarizer.modeling.batch import Batch, length_batches
from summarizer.modeling.modeling_bertsum import BertSumModel, SentenceHead, load_tokenizer
from summarizer.pipeline import CHUNK_BATCHES, Summarizer
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
                batches.append(summarizer._collate(chosen))
    return batches


def encoder_passes(summarizer: Summarizer, batches: list[Batch], cut: bool = True) -> list[dict[str, torch.Tensor]]:
    """The encoder calls `summarize_batch` makes (`Batch.passes`), as their inputs; `cut=False`:
    the same windows padded to the longest of their batch instead of their pass."""
    return [
        batch.encoder_inputs(rows, width if cut else None)
        for batch in batches
        for rows, width in batch.passes(summarizer.max_windows_per_pass)
    ]


def bare_forward(summarizer: Summarizer, passes: list[dict[str, torch.Tensor]]) -> None:
    with torch.inference_mode():
        for inputs in passes:
            summarizer.model.encoder(**inputs)


def linear_layers(encoder: nn.Module) -> list[nn.Linear]:
    """The encoder's linear layers that run on every token (not the pooler, on the first only)."""
    return [m for name, m in encoder.named_modules() if isinstance(m, nn.Linear) and "pooler" not in name]


def encoder_flops(encoder: nn.Module, passes: list[dict[str, torch.Tensor]]) -> float:
    """Floating-point operations of the encoder over `passes`, padding included: its linear
    layers on every token, and attention's two products (scores, weighted values)."""
    per_token = sum(layer.in_features * layer.out_features for layer in linear_layers(encoder))
    hidden, layers = encoder.config.hidden_size, encoder.config.num_hidden_layers
    total = 0.0
    for inputs in passes:
        windows, length = inputs["input_ids"].shape
        total += 2 * windows * length * per_token + 4 * windows * length**2 * hidden * layers
    return total


def matmul_gflops(encoder: nn.Module, rows: int = 4096, repeats: int = 5) -> float:
    """GFLOP/s of fp32 `linear` products shaped like the encoder's layers, `rows` tokens each,
    weighted as the encoder uses them: the rate its dense work can reach on this CPU."""
    shapes = Counter((layer.in_features, layer.out_features) for layer in linear_layers(encoder))
    flops = seconds = 0.0
    for (inputs, outputs), count in shapes.items():
        x, weight, bias = torch.randn(rows, inputs), torch.randn(outputs, inputs), torch.randn(outputs)
        with torch.inference_mode():
            (best,) = best_times([lambda x=x, weight=weight, bias=bias: nn.functional.linear(x, weight, bias)], repeats)
        flops += count * 2 * rows * inputs * outputs
        seconds += count * best
    return flops / seconds / 1e9


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
    parser.add_argument(
        "--head", choices=sorted(SentenceHead.kinds), default="transformer", help="head of the untrained model"
    )
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
        summarizer = Summarizer.from_pretrained(model_dir, backend="torch")  # it times the torch encoder
    rss_loaded = peak_rss_mib()

    list(summarizer.summarize_batch(texts[: args.batch_size], args.batch_size))  # warm-up
    batches = encoder_batches(summarizer, texts, args.batch_size)
    passes, uncut = encoder_passes(summarizer, batches), encoder_passes(summarizer, batches, cut=False)
    windows = sum(inputs["input_ids"].shape[0] for inputs in passes)
    tokens = sum(int(inputs["attention_mask"].sum()) for inputs in passes)
    padded, padded_uncut = (sum(inputs["input_ids"].numel() for inputs in p) for p in (passes, uncut))

    bare, end_to_end, bare_uncut = best_times(
        [
            lambda: bare_forward(summarizer, passes),
            lambda: list(summarizer.summarize_batch(texts, args.batch_size)),
            lambda: bare_forward(summarizer, uncut),
        ],
        args.repeats,
    )

    print(
        f"documents: {len(texts)} ({windows} windows, {tokens} tokens, {padded / tokens - 1:.1%} padding; "
        f"{padded_uncut / tokens - 1:.1%} if each pass were padded to its batch's longest window)"
    )
    print(f"torch threads: {torch.get_num_threads()}, batch size: {args.batch_size}")
    print(f"bare encoder forward: {len(texts) / bare:8.2f} docs/s ({bare:.1f} s)")
    print(f"summarize_batch:      {len(texts) / end_to_end:8.2f} docs/s ({end_to_end:.1f} s)")
    print(f"end to end / bare:    {bare / end_to_end:8.1%} (target >= 85%)")
    print(f"passes cut to their longest window: {bare_uncut / bare:.2f}x the bare encoder padded to the batch's")
    encoder = summarizer.model.encoder
    achieved, ceiling = encoder_flops(encoder, passes) / bare / 1e9, matmul_gflops(encoder)
    print(
        f"bare encoder:         {achieved:8.1f} GFLOP/s, {achieved / ceiling:.0%} of fp32 matrix products "
        f"shaped like its layers ({ceiling:.1f} GFLOP/s, {torch.backends.cpu.get_cpu_capability()})"
    )
    print(f"peak RSS: {peak_rss_mib():.0f} MiB ({rss_loaded:.0f} MiB after loading the model)")


if __name__ == "__main__":
    main()
