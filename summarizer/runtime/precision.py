"""Numeric precision of a model at inference: auto, fp32, bf16, or int8 dynamic quantization.

fp32 is the model as trained. int8 quantizes the encoder's linear layers with a weight scale per
output row and each pass's activations on the fly; the head stays fp32. On ONNX Runtime it is the
graph `model.int8.onnx`, whose int8 weights are computed from the stored ones as the model loads;
on torch, PyTorch's dynamic quantization. bf16 (torch only) suits GPUs and CPUs with AVX512-BF16
or AMX; CPUs without them compute it far more slowly than fp32.

"auto" (the default) picks, on a CPU, the fastest option measured to keep ROUGE-1 within 0.3
of fp32 on BBC News, ACLSum and CNN/DailyMail (docs/benchmarks.md, Precision): int8 on ONNX
Runtime where the CPU has VNNI instructions (int8 products without an int16 step that can
saturate); on torch, int8 on any x86 CPU with AVX2 (PyTorch's kernels guard against that
saturation themselves), but bf16 for an encoder at least `BF16_MIN_WIDTH` wide where the CPU
computes bf16 natively (torch's bf16 outruns its int8 there for the 768-wide `news-accurate`,
not for the 384-wide `news`: scripts/bench_precision.py); fp32 elsewhere, GPUs included. On a
CPU without VNNI, ONNX Runtime's int8 keeps its weights to 7 bits (its documented remedy),
which cost 0.34 ROUGE-1 on BBC News: `--precision int8` still asks for it there. The CPU's
features are read from /proc/cpuinfo, so that the ONNX Runtime path needs no torch to choose.
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from torch import nn

Model = TypeVar("Model", bound="nn.Module")

PRECISIONS = ("auto", "fp32", "bf16", "int8")
# Instructions that multiply int8 by int8 into int32 without an int16 step that can saturate.
_VNNI = ("avx512_vnni", "avx_vnni", "amx_int8")
BF16_MIN_WIDTH = 768  # hidden size from which torch's "auto" takes bf16 over int8 on a native-bf16 CPU


def check_precision(precision: str) -> None:
    """A ValueError unless `precision` is one of PRECISIONS."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")


@functools.cache
def cpu_flags() -> frozenset[str]:
    """The instruction-set flags of this machine's CPU (Linux), empty where they cannot be read."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.partition(":")[2].split())
    return frozenset()


def native_bf16_cpu() -> bool:
    """Whether this CPU computes bf16 matrix products natively (AVX512-BF16 or AMX, with torch's
    AVX512 kernels); without them bf16 runs far slower than fp32. Needs torch."""
    import torch

    native = bool({"avx512_bf16", "amx_bf16"} & cpu_flags())
    return native and torch.backends.cpu.get_cpu_capability().startswith("AVX512")


def has_vnni() -> bool:
    flags = cpu_flags()
    return any(flag in flags for flag in _VNNI)


def resolve_precision(precision: str, device: str = "cpu", backend: str = "onnx", width: int | None = None) -> str:
    """`precision` itself, or for "auto" what it picks for `backend` ("onnx" or "torch") on
    `device` and this CPU, for an encoder of hidden size `width` (None: unknown)."""
    check_precision(precision)
    if precision != "auto":
        return precision
    if device != "cpu":
        return "fp32"
    if backend == "onnx":
        return "int8" if has_vnni() else "fp32"
    if width is not None and width >= BF16_MIN_WIDTH and native_bf16_cpu():
        return "bf16"
    return "int8" if "avx2" in cpu_flags() else "fp32"


def int8_weight_bits() -> int:
    """ONNX Runtime's int8 weights: 8 bits where the CPU has VNNI instructions (or its flags
    are unknown), else 7."""
    return 8 if not cpu_flags() or has_vnni() else 7


def with_precision(model: Model, precision: str) -> Model:
    """`model` (a `BertSumModel` in eval mode) computing in `precision` (not "auto": see
    `resolve_precision`)."""
    import torch  # here, so that the choices above are known without torch
    from torch import nn

    check_precision(precision)
    if precision == "auto":
        raise ValueError("resolve the precision first (resolve_precision)")
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
