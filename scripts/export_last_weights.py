"""Exports the last step's weights of a weight-averaged training run (`optim.ema_decay`) as a
model directory, as the run would have exported them without the average: its checkpoints keep
those weights beside the average (Lightning's `current_model_state`), so one run gives both
sides of the comparison, with the same data, precision and steps.

    python scripts/export_last_weights.py runs/cnndm-ema runs/cnndm-ema/last-weights

Reads the run's `config.yaml` and the checkpoint its training exported (the best, or with
`--checkpoint FILE` another one).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from summarizer.training.settings import load_config
from summarizer.training.train import build_run_model, build_tokenizer, export_model, export_settings


def main() -> int:
    parser = argparse.ArgumentParser(prog="python scripts/export_last_weights.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="the run directory (runs/NAME)")
    parser.add_argument("target", type=Path, help="the model directory to write")
    parser.add_argument("--checkpoint", type=Path, help="default: the run's best checkpoint (epoch*.ckpt)")
    args = parser.parse_args()
    config = load_config(args.run / "config.yaml")
    checkpoints = sorted((args.run / "checkpoints").glob("epoch*.ckpt"))
    checkpoint = args.checkpoint or (checkpoints[-1] if checkpoints else None)
    if checkpoint is None:
        sys.exit(f"export_last_weights: {args.run}/checkpoints holds no epoch*.ckpt; name one with --checkpoint")
    saved = torch.load(checkpoint, map_location="cpu", weights_only=True)
    if "current_model_state" not in saved:
        sys.exit(f"export_last_weights: {checkpoint} holds no weight average: its weights are the last ones already")
    model = build_run_model(config)
    state = saved["current_model_state"]
    model.load_state_dict({name.removeprefix("model."): value for name, value in state.items()})
    export_model(model.eval(), build_tokenizer(config.model), args.target, *export_settings(config))
    print(f"{checkpoint}: the last step's weights exported to {args.target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
