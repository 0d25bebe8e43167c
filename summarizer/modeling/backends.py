"""Which runtime scores sentences: ONNX Runtime (`onnx_model`) or torch (`modeling_bertsum`).

"auto" (the default) takes ONNX Runtime on a CPU in fp32 when the model directory holds its
graph and onnxruntime is installed: it starts several times faster and needs neither torch nor
transformers. Otherwise torch, which also runs GPUs and the other precisions.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from summarizer.errors import InputError

BACKENDS = ("auto", "onnx", "torch")
GRAPH_FILE = "model.onnx"  # the scoring network as one ONNX graph, beside config.json
TORCH_EXTRA = "pip install 'bertsum[torch]'"


def check_backend(backend: str) -> None:
    """A ValueError unless `backend` is one of BACKENDS."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")


def installed(*modules: str) -> bool:
    return all(importlib.util.find_spec(module) is not None for module in modules)


def add_graph_hint(directory: Path) -> str:
    return f"add it with `python -m summarizer.modeling.onnx_export {directory}` (needs {TORCH_EXTRA})"


def resolve_backend(directory: Path, device: str, precision: str, backend: str = "auto") -> str:
    """ "onnx" or "torch" for the model in `directory`, or an `InputError` saying what to install
    or add."""
    check_backend(backend)
    has_torch = installed("torch", "transformers")
    has_graph = (directory / GRAPH_FILE).is_file()
    if backend == "torch" or (
        backend == "auto"
        and has_torch
        and not (device == "cpu" and precision == "fp32" and has_graph and installed("onnxruntime"))
    ):
        if not has_torch:
            raise InputError(f"the torch backend needs torch and transformers: {TORCH_EXTRA}")
        return "torch"
    if device != "cpu":
        raise InputError(f"the onnx backend runs on the CPU only; --device {device} needs torch ({TORCH_EXTRA})")
    if precision != "fp32":
        raise InputError(f"the onnx backend computes in fp32; --precision {precision} needs torch ({TORCH_EXTRA})")
    if not has_graph:
        without = "" if backend == "onnx" else " and torch is not installed"
        raise InputError(f"{directory}: no ONNX graph ({GRAPH_FILE}){without}: {add_graph_hint(directory)}")
    if not installed("onnxruntime"):
        raise InputError("the onnx backend needs onnxruntime: pip install onnxruntime")
    return "onnx"
