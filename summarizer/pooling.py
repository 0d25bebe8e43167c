"""Sentence vectors: pooled from the encoder's token vectors, plus the centrality projection.

A pooling is a class registered under its `kind` ("cls": each sentence's `[CLS]` vector;
"mean": the mean of its tokens' vectors). The encoder reads a batch's windows a few at a time
(`Batch.passes`); `gather` puts each pass's vectors into a [documents * slots, dim] grid and
`finish` completes it.
"""

from __future__ import annotations

from typing import Any, ClassVar

import torch
from torch import nn

from summarizer.batch import Batch
from summarizer.centrality import FEATURES_PER_SENTENCE


class Pooling(nn.Module):
    """Base of the poolings; `Pooling.kinds` maps each kind to its class."""

    kinds: ClassVar[dict[str, type[Pooling]]] = {}
    kind: ClassVar[str]
    # Whether batches must be collated with `token_slots=True` (each token's sentence slot).
    needs_token_slots: ClassVar[bool] = False

    def __init_subclass__(cls, kind: str, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.kind = kind
        Pooling.kinds[kind] = cls

    def gather(self, grid: torch.Tensor, hidden: torch.Tensor, batch: Batch, rows: torch.Tensor) -> None:
        """Add to `grid` what the windows `rows` of `batch` (encoded as `hidden`, cut to its
        width) give their sentences."""
        raise NotImplementedError

    def finish(self, grid: torch.Tensor, batch: Batch) -> torch.Tensor:
        """The sentence vectors, once every window is gathered."""
        return grid


def check_pooling(kind: str) -> None:
    """A ValueError starting with "pooling" unless `kind` names a pooling."""
    if kind not in Pooling.kinds:
        raise ValueError(f"pooling must be one of {', '.join(Pooling.kinds)}, got {kind!r}")


def build_pooling(kind: str) -> Pooling:
    check_pooling(kind)
    return Pooling.kinds[kind]()


class ClsPooling(Pooling, kind="cls"):
    """Each sentence's `[CLS]` vector."""

    def gather(self, grid: torch.Tensor, hidden: torch.Tensor, batch: Batch, rows: torch.Tensor) -> None:
        place = torch.full((batch.input_ids.shape[0],), -1, dtype=torch.long, device=rows.device)
        place[rows] = torch.arange(rows.shape[0], device=rows.device)  # each window's row in `hidden`
        row = place[batch.cls_window]
        # Without selecting by a mask (shapes stay fixed, so the network exports to ONNX):
        # sentences of windows outside this pass keep what the grid holds.
        found = hidden[row.clamp(min=0), batch.cls_position.clamp(max=hidden.shape[1] - 1)]
        grid[batch.sentence_slot] = torch.where((row >= 0)[:, None], found, grid[batch.sentence_slot])


class MeanPooling(Pooling, kind="mean"):
    """The mean of each sentence's token vectors (its `[CLS]` and `[SEP]` included)."""

    needs_token_slots = True

    def gather(self, grid: torch.Tensor, hidden: torch.Tensor, batch: Batch, rows: torch.Tensor) -> None:
        if batch.token_slot is None:
            raise ValueError("mean pooling needs a batch collated with token_slots=True")
        slots = batch.token_slot[rows, : hidden.shape[1]]  # the tokens cut off are padding
        # Tokens of no sentence (slot -1) add zeros to slot 0: shapes stay fixed (ONNX export).
        own = (slots >= 0).to(hidden.dtype)[..., None]
        grid.index_add_(0, slots.clamp(min=0).flatten(), (hidden * own).flatten(0, 1))

    def finish(self, grid: torch.Tensor, batch: Batch) -> torch.Tensor:
        token_slot = batch.token_slot.flatten()
        own = (token_slot >= 0).to(grid.dtype)
        counts = grid.new_zeros(grid.shape[0]).index_add_(0, token_slot.clamp(min=0), own)
        return grid / counts.clamp(min=1)[:, None]


class CentralityProjection(nn.Linear):
    """Adds a learned projection of each sentence's centrality features to its vector."""

    def __init__(self, dim: int) -> None:
        super().__init__(FEATURES_PER_SENTENCE, dim)

    def forward(self, vectors: torch.Tensor, batch: Batch) -> torch.Tensor:  # type: ignore[override]
        if batch.sentence_features is None:
            raise ValueError("this model reads sentence centrality: collate features built with centrality on")
        added = super().forward(batch.sentence_features.to(vectors.dtype))
        return vectors + added * batch.sentence_mask[..., None]
