"""Batches: the windows of documents collated into padded tensors that keep track of each
sentence's slot (laid out by `summarizer.modeling.arrays`, which also groups documents by length)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import torch

from summarizer.modeling.arrays import by_length, collate_arrays, cut, length_batches

__all__ = ["Batch", "by_length", "collate", "cut", "length_batches"]


@dataclass
class Batch:
    """Windows of several documents, padded, and the map from `[CLS]` tokens to sentences.

    Sentence j of document b has slot `b * max_sentences + j` in the flattened
    `[documents, max_sentences]` grid that scores and labels live in.
    """

    input_ids: torch.Tensor  # [windows, tokens]
    attention_mask: torch.Tensor  # [windows, tokens]
    token_type_ids: torch.Tensor | None  # [windows, tokens], None for encoders without segments
    cls_window: torch.Tensor  # [sentences]: window row of each scored sentence's [CLS]
    cls_position: torch.Tensor  # [sentences]: its token position in that window
    sentence_slot: torch.Tensor  # [sentences]: its slot in the [documents, max_sentences] grid
    sentence_mask: torch.Tensor  # [documents, max_sentences]: True for real sentences
    labels: torch.Tensor  # [documents, max_sentences]: oracle targets (0 where absent)
    token_slot: torch.Tensor | None = None  # [windows, tokens]: slot of each sentence's own tokens, -1 elsewhere
    sentence_features: torch.Tensor | None = None  # [documents, max_sentences, features]: centrality, 0 at padding
    first_sentence: torch.Tensor | None = None  # [documents]: place of each row's first sentence in its document

    def to(self, device: torch.device | str) -> Batch:
        moved = {
            f.name: (v.to(device, non_blocking=True) if isinstance(v, torch.Tensor) else v)
            for f in fields(self)
            for v in [getattr(self, f.name)]
        }
        return Batch(**moved)

    def passes(self, max_windows: int | None = None) -> list[tuple[torch.Tensor, int]]:
        """The encoder's passes over the windows: (window rows, tokens kept of each).

        At most `max_windows` windows a pass (None: one pass of all, in batch order). Several
        passes take the windows longest first, so each is cut to the real length of its own
        longest window, not the batch's: padding costs a pass little.
        """
        windows, width = self.input_ids.shape
        device = self.input_ids.device
        if max_windows is None or max_windows >= windows:
            return [(torch.arange(windows, device=device), width)]
        lengths = self.attention_mask.sum(dim=1).tolist()
        groups = cut(by_length(range(windows), lengths, longest_first=True), max_windows)
        return [(torch.tensor(group, device=device), lengths[group[0]]) for group in groups]

    def encoder_inputs(self, rows: torch.Tensor | None = None, width: int | None = None) -> dict[str, torch.Tensor]:
        """The encoder's keyword arguments for windows `rows` (all by default), their first
        `width` tokens (all by default).

        `token_type_ids` is included only for encoders that take it.
        """
        pick = (slice(None) if rows is None else rows, slice(0, width))
        inputs = {"input_ids": self.input_ids[pick], "attention_mask": self.attention_mask[pick]}
        if self.token_type_ids is not None:
            inputs["token_type_ids"] = self.token_type_ids[pick]
        return inputs


def collate(rows: Sequence[Mapping[str, Any]], pad_token_id: int, token_slots: bool = False) -> Batch:
    """Pad the windows of `rows` (preprocessed documents) into one `Batch` (`layout.collate_arrays`).

    `token_slots` adds `token_slot`, which mean pooling needs.
    """
    arrays = collate_arrays(rows, pad_token_id, token_slots)
    # Only the optional fields' arrays are ever None.
    tensors: dict[str, Any] = {
        name: None if array is None else torch.from_numpy(array) for name, array in arrays.items()
    }
    return Batch(**tensors)
