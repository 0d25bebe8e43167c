"""What scoring each document alone costs int8 on ONNX Runtime, and what it buys.

int8 quantizes each call's activations with one scale over all the call holds, so
`Summarizer.from_pretrained(precision="int8")` scores each document (each section of a long one)
in a call of its own: a summary never depends on the documents read with it. A `Summarizer`
built by hand around the same `OnnxModel` still batches documents of similar length together,
as every precision did before. On the first `--limit` BBC News validation articles, 3 sentences,
`--rounds` rounds in turn (best of each), prints docs/s of int8 alone, int8 batched and fp32
batched, their ratios, and for how many articles each way chooses what `summarize` chooses for
the article alone.

    python scripts/bench_int8_alone.py [--limit 100] [--rounds 3]
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

from summarizer import Summarizer
from summarizer.resources import builtin_model_dir
from summarizer.runtime.onnx_model import OnnxModel
from summarizer.runtime.precision import int8_weight_bits

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "bbc-news" / "validation.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with DATA.open(encoding="utf-8") as lines:
        texts = [json.loads(line)["text"] for line in itertools.islice(lines, args.limit)]
    alone = Summarizer.from_pretrained(precision="int8", backend="onnx")
    model = OnnxModel.from_pretrained(builtin_model_dir(), precision="int8", weight_bits=int8_weight_bits())
    batched = Summarizer(model, model.tokenizer)  # not from from_pretrained: batches as before
    fp32 = Summarizer.from_pretrained(precision="fp32", backend="onnx")
    ways = {"int8, each document alone": alone, "int8, batched": batched, "fp32, batched": fp32}
    best = dict.fromkeys(ways, float("inf"))
    indices: dict[str, list[list[int]]] = {}
    for _ in range(args.rounds):
        for name, summarizer in ways.items():
            start = time.perf_counter()
            indices[name] = [s.indices for s in summarizer.summarize_batch(texts, 16, k=3)]
            best[name] = min(best[name], time.perf_counter() - start)
    print(f"{alone!r}, {len(texts)} BBC News articles, 3 sentences, best of {args.rounds} rounds")
    reference = best["int8, each document alone"]
    for name, seconds in best.items():
        print(f"{name}: {len(texts) / seconds:.2f} docs/s, {reference / seconds:.2f}x int8 alone")
    for name, summarizer in ways.items():
        one_by_one = [summarizer.summarize(text, k=3).indices for text in texts]
        same = sum(a == b for a, b in zip(indices[name], one_by_one))
        print(f"{name}: the sentences its summarize() chooses one at a time for {same}/{len(texts)}")


if __name__ == "__main__":
    main()
