"""The ONNX Runtime path against the torch path (fp32), same model, same documents.

For the BBC News validation articles (40% of the sentences) and the CNN/DailyMail validation
articles (3 sentences), prints in how many documents both paths choose the same sentences, the
largest difference between their sentence scores, and ROUGE-1/2/Lsum of each path against the
references (rouge-score, from `bertsum[train]`).

    python scripts/onnx_parity.py [--model DIR] [--limit N]
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

from summarizer.pipeline import Summarizer
from summarizer.training.rouge import rouge

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
DATASETS = {  # name: (file, text field, summary field, summary length)
    "BBC News validation (40%)": (SHARED / "bbc-news" / "validation.jsonl", "text", "summary", {"ratio": 0.4}),
    "CNN/DailyMail validation (3 sentences)": (
        SHARED / "cnndm" / "validation.jsonl",
        "article",
        "highlights",
        {"k": 3},
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, help="model directory with its graph (default: the built-in model)")
    parser.add_argument("--limit", type=int, help="documents of each dataset (default: all)")
    args = parser.parse_args()
    paths = {
        backend: Summarizer.from_pretrained(args.model, precision="fp32", backend=backend)
        for backend in ("onnx", "torch")
    }
    for name, (path, text_field, summary_field, options) in DATASETS.items():
        with path.open(encoding="utf-8") as lines:
            rows = [json.loads(line) for line in itertools.islice(lines, args.limit)]
        texts = [row[text_field] for row in rows]
        summaries = {backend: list(s.summarize_batch(texts, **options)) for backend, s in paths.items()}
        same = sum(a.indices == b.indices for a, b in zip(summaries["onnx"], summaries["torch"]))
        largest = max(
            abs(x - y)
            for a, b in zip(summaries["onnx"], summaries["torch"])
            for x, y in zip(a.sentence_scores, b.sentence_scores)
            if x is not None
        )
        print(
            f"{name}, {len(texts)} documents: the same sentences in {same} ({same / len(texts):.1%}); "
            f"largest score difference {largest:.2e}"
        )
        references = [paths["torch"].sentences(row[summary_field]) for row in rows]
        for backend, chosen in summaries.items():
            scores = rouge(
                [s.sentences for s in chosen], references, bootstrap_samples=1, language=paths["torch"].language
            )
            print(f"  ROUGE {backend}: " + ", ".join(f"{metric} {value:.2f}" for metric, value in scores.mean.items()))


if __name__ == "__main__":
    main()
