"""Size and fidelity of a compact model stored as int8 against float16, in one run.

    python scripts/bench_compact.py --model runs/cnndm-accurate/model-600 \
        --data ../shared/data/cnndm/validation.jsonl --split :20 [-k 3] [--save-int8 DIR]

Reads a compact model saved in float16 (`output.compact=true`), saves its trained parameters
again as int8 (`output.compact_weights=int8`: matrices as 8-bit integers with a scale per row),
scores the documents with both and prints the two sizes, the largest difference of a sentence
score and how many documents get the same k sentences. `--save-int8 DIR` keeps the int8 export,
its files readable as any new file is under the umask (safetensors writes its own 0600).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import torch
from safetensors import safe_open

from summarizer.files import new_file_mode
from summarizer.modeling.modeling_bertsum import BertSumModel
from summarizer.modeling.settings import WEIGHTS_FILE
from summarizer.pipeline import Summarizer
from summarizer.training.data import load_documents


def size_mb(directory: Path) -> float:
    return sum(p.stat().st_size for p in directory.iterdir()) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="a compact model saved in float16")
    parser.add_argument("--data", required=True)
    parser.add_argument("--split", default=None)
    parser.add_argument("-k", type=int, default=3)
    parser.add_argument("--save-int8", type=Path, help="keep the int8 export here")
    args = parser.parse_args()

    model = BertSumModel.from_pretrained(args.model)
    base = model.config.base_encoder
    if base is None:
        parser.error(f"{args.model} is not a compact model")
    with safe_open(str(args.model / WEIGHTS_FILE), "pt") as weights:
        trained = set(weights.keys())
    for name, parameter in model.named_parameters():
        parameter.requires_grad_(name in trained)
    with tempfile.TemporaryDirectory() as tmp:
        target = args.save_int8 or Path(tmp) / "int8"
        model.save_compact(target, base, torch.int8)
        mode = new_file_mode()
        for name in ("config.json", WEIGHTS_FILE):  # the files save_compact wrote
            os.chmod(target / name, mode)
        sizes = size_mb(args.model), size_mb(target)
        fp16, int8 = Summarizer.from_pretrained(args.model), Summarizer.from_pretrained(target)

    documents = [document.sentences or document.text for document in load_documents(args.data, args.split).documents]
    same, largest = 0, 0.0
    for first, second in zip(fp16.summarize_batch(documents, k=args.k), int8.summarize_batch(documents, k=args.k)):
        same += first.indices == second.indices
        pairs = [(a, b) for a, b in zip(first.sentence_scores, second.sentence_scores) if a is not None]
        largest = max([largest, *(abs(a - b) for a, b in pairs)])
    print(f"CPU capability: {torch.backends.cpu.get_cpu_capability()}")
    print(f"size: float16 {sizes[0]:.1f} MB, int8 {sizes[1]:.1f} MB ({sizes[0] / sizes[1]:.2f}x smaller)")
    print(
        f"same {args.k} sentences chosen: {same} of {len(documents)} documents; largest sentence score "
        f"difference {largest:.4f}"
    )


if __name__ == "__main__":
    main()
