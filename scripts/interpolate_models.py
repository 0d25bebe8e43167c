"""Interpolates the weights of two models of one lineage (WiSE-FT, Wortsman et al. 2022) and
exports the result as a model directory: every parameter the two share is (1 - a) x the first's
+ a x the second's, and so is each low-rank adapter's change of its weight (`model.lora_rank`:
B A). Where the first's adapters change nothing (B = 0: a model without adapters, or a stage's
start) or share the second's A, that is one adapter of their rank, A with (1 - a) B1 + a B2;
where both changed their A (a stage that trained on from a model with adapters), it is one of
twice their rank, [(1 - a) B1, a B2] [A1; A2], exactly.

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
from summarizer.resources import model_dir
from summarizer.training.settings import load_config
from summarizer.training.train import build_model, build_run_model, build_tokenizer, export_model, export_settings

Weights = dict[str, torch.Tensor]


def interpolate(first: Weights, second: Weights, factor: float) -> Weights:
    """The weights (state dicts) interpolated at `factor`: 0 gives `first`'s, 1 `second`'s."""
    adapters = [name.removesuffix(".lora_b") for name in second if name.endswith(".lora_b")]
    stacked = any(
        first[f"{name}.lora_b"].any() and not torch.equal(first[f"{name}.lora_a"], second[f"{name}.lora_a"])
        for name in adapters
    )
    mixed = {}
    for name, weight in second.items():
        if not weight.is_floating_point():
            mixed[name] = weight
        elif name.endswith(".lora_a"):
            mixed[name] = torch.cat([first[name], weight]) if stacked else weight
        elif name.endswith(".lora_b") and stacked:
            mixed[name] = torch.cat([(1 - factor) * first[name], factor * weight], dim=1)
        else:
            mixed[name] = (1 - factor) * first[name] + factor * weight
    return mixed


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
    weights = interpolate(*(model.state_dict() for model in models), args.factor)
    config.model.lora_rank = next((w.shape[0] for name, w in weights.items() if name.endswith(".lora_a")), 0)
    model = build_run_model(config).eval()  # the run's selection default with the weights
    model.load_state_dict(weights)
    export_model(model, build_tokenizer(config.model), args.target, *export_settings(config))
    print(f"{args.target}: {1 - args.factor:g} x {args.first} + {args.factor:g} x {args.second}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
