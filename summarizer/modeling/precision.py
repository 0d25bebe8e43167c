"""Numeric precision of a model at inference: fp32, bf16, or int8 dynamic quantization.

fp32 is the default: the model as trained. int8 is PyTorch's dynamic quantization of the
encoder's linear layers, with a weight scale per output row; the head stays fp32. bf16 suits
GPUs and CPUs with AVX512-BF16 or AMX; CPUs without them compute it far more slowly than fp32.
Speed and ROUGE of each: docs/benchmarks.md.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from torch import nn

Model = TypeVar("Model", bound="nn.Module")

PRECISIONS = ("fp32", "bf16", "int8")


def check_precision(precision: str) -> None:
    """A ValueError unless `precision` is one of PRECISIONS."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")


def with_precision(model: Model, precision: str) -> Model:
    """`model` (a `BertSumModel` in eval mode) computing in `precision`."""
    import torch  # here, so that the choices above are known without torch
    from torch import nn

    check_precision(precision)
    if precision == "bf16":
        return model.to(torch.bfloat16)
    if precision == "int8":
        if next(model.parameters()).device.type != "cpu":
            raise ValueError("int8 runs on the CPU only; use bf16 on a GPU")
        from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

        with warnings.catch_warnings():  # PyTorch announces a successor API; this one still works
            warnings.simplefilter("ignore")  # one weight scale per output row: closer to fp32 than one per matrix
            model.encoder = quantize_dynamic(model.encoder, {nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8)
    return model
