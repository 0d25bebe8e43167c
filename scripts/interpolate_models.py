"""Interpolates the weights of two models of one lineage (WiSE-FT, Wortsman et al. 2022) and
exports the result as a model directory: every parameter the two share is (1 - a) x the first's
+ a x the second's; the low-rank adapters (`model.lora_rank`) keep the second's A and get
(1 - a) x the first's B + a x the second's, so that their change of each weight (B A) is
interpolated too. That holds where the first's adapter is no change (B = 0: a model without
adapters, or a stage's start) or has the same A; two adapters with different A's mix into no
adapter of their rank, and are refused.

    python scripts/interpolate_models.py runs/cnndm-accurate-lora-mix STAGE2 \\
        runs/cnndm-accurate-lora-mix/model 0.7 runs/wise-0.7

This command wrote the shipped `news-accurate` (STAGE2: its stage 2; docs/results.md, "Between
stage 2 and the adapters").

Builds both models with the settings of the second one's run (`RUN/config.yaml`), so their
settings must be the same, as a warm start (`model.init_from`) requires.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from summarizer.errors import InputError
from summarizer.modeling.modeling_bertsum import BertSumModel
from summarizer.resources import model_dir
from summarizer.training.settings import load_config
from summarizer.training.train import build_model, build_tokenizer, compact_export, export_model


def interpolate(first: BertSumModel, second: BertSumModel, factor: float) -> None:
    """`second`'s weights become the interpolation at `factor` (0: `first`'s, 1: its own).

    Raises ValueError, naming the adapter, where both models change a weight through adapters
    with different A's: (1 - a) B1 A1 + a B2 A2 is then no adapter of their rank."""
    ours, theirs = second.state_dict(), first.state_dict()
    mixed = {}
    for name, weight in ours.items():
        if name.endswith(".lora_a") or not weight.is_floating_point():
            mixed[name] = weight
            continue
        if name.endswith(".lora_b"):
            down = name.removesuffix(".lora_b") + ".lora_a"
            if theirs[name].any() and not torch.equal(theirs[down], ours[down]):
                rank = weight.shape[1]
                raise ValueError(f"{down}: the two models' adapters differ, so their mix is no rank-{rank} adapter")
        mixed[name] = (1 - factor) * theirs[name] + factor * weight
    second.load_state_dict(mixed)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python scripts/interpolate_models.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="the second model's run directory (runs/NAME), for its settings")
    parser.add_argument("first", help="the first model (a directory or a built-in model's name): factor 0")
    parser.add_argument("second", help="the second model: factor 1")
    parser.add_argument("factor", type=float, help="a, from 0 to 1")
    parser.add_argument("target", type=Path, help="the model directory to write")
    args = parser.parse_args()
    if not 0.0 <= args.factor <= 1.0:
        sys.exit(f"interpolate_models: factor must be from 0 to 1, got {args.factor}")
    config = load_config(args.run / "config.yaml")
    config.model.init_from = None
    models = []
    for source in (args.first, args.second):
        model = build_model(config.model)
        try:
            model.warm_start(model_dir(source), config.model.base_encoder)
        except InputError as error:
            sys.exit(f"interpolate_models: {error}")
        models.append(model.eval())
    try:
        interpolate(*models, args.factor)
    except ValueError as error:
        sys.exit(f"interpolate_models: {error}")
    export_model(models[1], build_tokenizer(config.model), args.target, *compact_export(config))
    print(f"{args.target}: {1 - args.factor:g} x {args.first} + {args.factor:g} x {args.second}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
