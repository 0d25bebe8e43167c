"""Numeric precision of a model at inference: fp32, bf16, or int8 dynamic quantization.

fp32 is the default. int8 (PyTorch's dynamic quantization of the encoder's linear layers; the
head stays fp32) ran 1.20x faster on an AVX2-only CPU (`scripts/bench_precision.py`) and kept
ROUGE-1 on BBC News (68.00 against 67.83) but lost 1.34 on ACLSum (33.73 against 35.07); bf16
suits GPUs and CPUs with AVX512-BF16 or AMX, and runs far slower than fp32 on CPUs without them.
"""

from __future__ import annotations

import warnings

import torch
from torch import nn

PRECISIONS = ("fp32", "bf16", "int8")


def check_precision(precision: str) -> None:
    """A ValueError unless `precision` is one of PRECISIONS."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")


def with_precision(model: nn.Module, precision: str) -> nn.Module:
    """`model` (a `BertSumModel` in eval mode) computing in `precision`."""
    check_precision(precision)
    if precision == "bf16":
        return model.to(torch.bfloat16)
    if precision == "int8":
        if next(model.parameters()).device.type != "cpu":
            raise ValueError("int8 runs on the CPU only; use bf16 on a GPU")
        from torch.ao.quantization import quantize_dynamic

        with warnings.catch_warnings():  # PyTorch announces a successor API; this one still works
            warnings.simplefilter("ignore")
            model.encoder = quantize_dynamic(model.encoder, {nn.Linear}, dtype=torch.qint8)
    return model
