"""The torch runtime: a `BertSumModel` and its transformers tokenizer loaded from a model directory,
on a device, in a precision (`precision.with_precision`). Needs torch and transformers
(`bertsum[torch]`)."""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import PreTrainedTokenizerBase

from summarizer.errors import InputError, first_line
from summarizer.modeling.modeling_bertsum import BertSumModel, load_tokenizer
from summarizer.resources import base_encoder_dir
from summarizer.runtime.precision import with_precision


def load_torch_model(
    directory: Path, device: str | torch.device = "cpu", precision: str = "fp32"
) -> tuple[BertSumModel, PreTrainedTokenizerBase]:
    """The model in `directory` in eval mode on `device`, computing in `precision` (not "auto"),
    and its tokenizer (a compact model's is its base encoder's); an `InputError` names what does
    not load."""
    try:
        model = with_precision(
            # transformers wraps `to` in functools.wraps, which typeshed types as not binding `self`.
            BertSumModel.from_pretrained(directory).to(device),  # type: ignore[arg-type]
            precision,
        )
        base = model.config.base_encoder  # a compact model reads its base encoder's tokenizer
        tokenizer = load_tokenizer(base_encoder_dir(base) if base else directory)
    except InputError:
        raise
    except Exception as error:  # damaged files raise many types (OSError, ValueError, SafetensorError...)
        raise InputError(f"{directory}: cannot load the model: {first_line(error)}") from error
    return model, tokenizer
