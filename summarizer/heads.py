"""Scoring heads: sentence vectors of a batch of documents in, one logit per sentence out.

Each head is a class registered under its `kind`, with a `Settings` dataclass of its own;
a model's config stores `{"type": kind, **settings}`. A new head is a new subclass.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn


class SentenceHead(nn.Module):
    """Base of the heads; `SentenceHead.kinds` maps each kind to its class."""

    kinds: ClassVar[dict[str, type[SentenceHead]]] = {}
    kind: ClassVar[str]

    @dataclass(frozen=True)
    class Settings:
        pass

    def __init_subclass__(cls, kind: str, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.kind = kind
        SentenceHead.kinds[kind] = cls

    def forward(self, sentences: torch.Tensor, mask: torch.Tensor, first: torch.Tensor | None = None) -> torch.Tensor:
        """Logits [documents, slots] of `sentences` [documents, slots, dim] where `mask` holds;
        `first[b]`: the place in its document of row b's first sentence (0 when None)."""
        raise NotImplementedError


def head_settings(settings: dict[str, Any] | str | None) -> dict[str, Any]:
    """`settings` with every default filled in, checked: `{"type": kind, ...}` (a kind alone, or
    None for the linear head, take that head's defaults).

    A ValueError starting with "head " names what is wrong.
    """
    if settings is None or isinstance(settings, str):
        settings = {"type": settings or "linear"}
    settings = dict(settings)
    kind = settings.pop("type", None)
    if kind not in SentenceHead.kinds:
        raise ValueError(f"head type must be one of {', '.join(SentenceHead.kinds)}, got {kind!r}")
    settings_class = SentenceHead.kinds[kind].Settings
    hints = typing.get_type_hints(settings_class)
    fields = {f.name: hints.get(f.name) for f in dataclasses.fields(settings_class)}
    unknown = sorted(set(settings) - set(fields))
    if unknown:
        raise ValueError(f"head setting {unknown[0]!r} is not one of the {kind} head's ({', '.join(sorted(fields))})")
    for name, value in settings.items():
        settings[name] = _checked(name, value, fields[name])
    try:
        checked = SentenceHead.kinds[kind].Settings(**settings)
    except (TypeError, ValueError) as error:
        raise ValueError(f"head {error}") from None
    return {"type": kind, **dataclasses.asdict(checked)}


def _checked(name: str, value: Any, hint: Any) -> Any:
    """`value` of a head setting declared as `hint` (int, float, bool and str are checked; a
    whole number is a float too), or a ValueError naming the setting."""
    expected = {int: "an integer", float: "a number", bool: "true or false", str: "text"}.get(hint)
    if expected is None:
        return value
    fits = isinstance(value, hint) if hint in (bool, str) else (
        not isinstance(value, bool) and isinstance(value, (int, float) if hint is float else int)
    )
    if not fits:
        raise ValueError(f"head {name} must be {expected}, got {value!r}")
    return float(value) if hint is float else value


def build_head(dim: int, settings: dict[str, Any]) -> SentenceHead:
    """The head `settings` (as `head_settings` returns them) describe, for vectors of width `dim`."""
    settings = head_settings(settings)
    cls = SentenceHead.kinds[settings.pop("type")]
    return cls(dim, cls.Settings(**settings))


def _check_dropout(dropout: float) -> None:
    if not 0.0 <= dropout < 1.0:
        raise ValueError(f"dropout must be in [0, 1), got {dropout}")


class LinearHead(SentenceHead, kind="linear"):
    """A linear score of each sentence vector on its own."""

    @dataclass(frozen=True)
    class Settings:
        dropout: float = 0.1

        def __post_init__(self) -> None:
            _check_dropout(self.dropout)

    def __init__(self, dim: int, settings: LinearHead.Settings) -> None:
        super().__init__()
        self.dropout = nn.Dropout(settings.dropout)
        self.score = nn.Linear(dim, 1)

    def forward(self, sentences: torch.Tensor, mask: torch.Tensor, first: torch.Tensor | None = None) -> torch.Tensor:
        return self.score(self.dropout(sentences)).squeeze(-1)


class SentencePositions(nn.Module):
    """Sinusoidal encodings of sentence index (unbounded document length). No state: nothing to
    save or load."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, indices: torch.Tensor) -> torch.Tensor:
        """Encodings [*indices.shape, dim] of the sentence indices `indices`."""
        steps = torch.arange(0, self.dim, 2, device=indices.device).float()
        frequencies = torch.exp(steps * (-math.log(10000.0) / self.dim))
        angles = indices.float()[..., None] * frequencies
        encoding = angles.new_zeros(*indices.shape, self.dim)
        encoding[..., 0::2] = torch.sin(angles)
        encoding[..., 1::2] = torch.cos(angles[..., : self.dim // 2])
        return encoding


class InterSentenceHead(SentenceHead, kind="transformer"):
    """BERTSUM's inter-sentence transformer: sentence positions, pre-norm layers, linear score."""

    @dataclass(frozen=True)
    class Settings:
        layers: int = 2
        heads: int = 8
        feedforward: int = 2048
        dropout: float = 0.1

        def __post_init__(self) -> None:
            if self.layers < 1 or self.heads < 1 or self.feedforward < 1:
                raise ValueError("layers, heads and feedforward must be positive")
            _check_dropout(self.dropout)

    def __init__(self, dim: int, settings: InterSentenceHead.Settings) -> None:
        super().__init__()
        if dim % settings.heads:
            raise ValueError(f"head heads ({settings.heads}) must divide the encoder width ({dim})")
        self.positions = SentencePositions(dim)
        layer = nn.TransformerEncoderLayer(
            dim,
            settings.heads,
            settings.feedforward,
            settings.dropout,
            activation="gelu",
            batch_first=True,
            norm_first=True,
        )
        self.layers = nn.TransformerEncoder(layer, settings.layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.score = nn.Linear(dim, 1)

    def forward(self, sentences: torch.Tensor, mask: torch.Tensor, first: torch.Tensor | None = None) -> torch.Tensor:
        indices = torch.arange(sentences.shape[1], device=sentences.device)[None]
        if first is not None:
            indices = first[:, None] + indices
        x = sentences * mask[..., None] + self.positions(indices).to(sentences.dtype)
        padding = ~mask
        # A row without sentences would attend to nothing (NaN); its outputs are ignored anyway.
        padding[:, 0] &= mask.any(dim=1)
        x = self.layers(x, src_key_padding_mask=padding)
        return self.score(self.norm(x)).squeeze(-1)
