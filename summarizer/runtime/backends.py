"""Which runtime scores sentences: ONNX Runtime (`onnx_model`) or torch (`modeling_bertsum`).

"auto" (the default) takes ONNX Runtime on a CPU when the model directory holds the graph of
the precision asked for (fp32: `model.onnx`, int8: `model.int8.onnx`) and onnxruntime is
installed: it starts several times faster and needs neither torch nor transformers. Otherwise
torch, which also runs GPUs and bf16.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from summarizer.errors import InputError
from summarizer.modeling.settings import read_settings
from summarizer.runtime.precision import check_precision, resolve_precision

BACKENDS = ("auto", "onnx", "torch")
GRAPH_FILE = "model.onnx"  # the scoring network as one ONNX graph, beside config.json
INT8_GRAPH_FILE = "model.int8.onnx"  # the same with int8 linear layers in the encoder
GRAPH_FILES = {"fp32": GRAPH_FILE, "int8": INT8_GRAPH_FILE}  # by precision
TORCH_EXTRA = "pip install 'bertsum[torch]'"


def check_backend(backend: str) -> None:
    """A ValueError unless `backend` is one of BACKENDS."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")


def installed(*modules: str) -> bool:
    return all(importlib.util.find_spec(module) is not None for module in modules)


def add_graph_hint(directory: Path) -> str:
    return f"add it with `python -m summarizer.runtime.onnx_export {directory}` (needs {TORCH_EXTRA})"


def encoder_width(directory: Path) -> int | None:
    """The hidden size of the encoder the settings of the model in `directory` name (read as
    data), or None where they cannot be read: loading the model then says what is wrong."""
    try:
        width = read_settings(directory).values["encoder"]["hidden_size"]
    except (InputError, KeyError, TypeError):
        return None
    return width if isinstance(width, int) else None


def resolve_backend(directory: Path, device: str, precision: str = "auto", backend: str = "auto") -> tuple[str, str]:
    """("onnx" or "torch", the precision it computes in) for the model in `directory`, or an
    `InputError` saying what to install or add. "auto" precision is `resolve_precision`'s for
    the backend chosen, and fp32 on ONNX Runtime for a directory whose graph lacks its int8 twin
    (written by an earlier release)."""
    check_backend(backend)
    check_precision(precision)
    graphs = {name: (directory / file).is_file() for name, file in GRAPH_FILES.items()}
    runs_onnx = device == "cpu" and installed("onnxruntime")
    has_torch = installed("torch", "transformers")
    wanted = "fp32" if precision == "auto" else precision
    if backend == "torch" or (backend == "auto" and has_torch and not (runs_onnx and graphs.get(wanted))):
        if not has_torch:
            raise InputError(f"the torch backend needs torch and transformers: {TORCH_EXTRA}")
        return "torch", resolve_precision(precision, device, "torch", encoder_width(directory))
    if device != "cpu":
        raise InputError(f"the onnx backend runs on the CPU only; --device {device} needs torch ({TORCH_EXTRA})")
    if wanted not in GRAPH_FILES:
        raise InputError(f"the onnx backend computes in fp32 or int8; --precision {wanted} needs torch ({TORCH_EXTRA})")
    if not graphs[wanted]:
        without = "" if backend == "onnx" else " and torch is not installed"
        raise InputError(f"{directory}: no ONNX graph ({GRAPH_FILES[wanted]}){without}: {add_graph_hint(directory)}")
    if not installed("onnxruntime"):
        raise InputError("the onnx backend needs onnxruntime: pip install onnxruntime")
    chosen = resolve_precision(precision, device, "onnx")
    return "onnx", chosen if graphs[chosen] else "fp32"
