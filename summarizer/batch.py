"""Batches: documents grouped by length, and their windows collated into padded tensors that
keep track of each sentence's slot."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import torch

from summarizer.centrality import FEATURES_PER_SENTENCE


def by_length(indices: Sequence[int], lengths: Sequence[int], longest_first: bool = False) -> list[int]:
    """`indices` ordered by their `lengths` (shortest first unless `longest_first`; ties keep their order)."""
    return sorted(indices, key=lengths.__getitem__, reverse=longest_first)


def cut(order: Sequence[int], batch_size: int) -> list[list[int]]:
    """`order` in consecutive batches of `batch_size` (the last may be shorter)."""
    return [list(order[i : i + batch_size]) for i in range(0, len(order), batch_size)]


def length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Positions 0..len(lengths)-1 grouped into batches of similar length, shortest first: the
    padding of each batch stays small."""
    return cut(by_length(range(len(lengths)), lengths), batch_size)


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
    """Pad the windows of `rows` (preprocessed documents) into one `Batch`.

    `token_slots` adds `token_slot`, which mean pooling needs.
    """
    windows = [w for row in rows for w in row["input_ids"]]
    longest = max((len(w) for w in windows), default=1)
    input_ids = torch.full((len(windows), longest), pad_token_id, dtype=torch.long)
    attention_mask = torch.zeros((len(windows), longest), dtype=torch.long)
    has_types = bool(rows) and rows[0].get("token_type_ids") is not None
    token_type_ids = torch.zeros((len(windows), longest), dtype=torch.long) if has_types else None
    max_sentences = max((len(row["sentence_indices"]) for row in rows), default=0)
    sentence_mask = torch.zeros((len(rows), max(max_sentences, 1)), dtype=torch.bool)
    labels = torch.zeros((len(rows), max(max_sentences, 1)), dtype=torch.float)
    slot_rows = torch.full((len(windows), longest), -1, dtype=torch.long) if token_slots else None
    has_features = bool(rows) and rows[0].get("sentence_features") is not None
    sentence_features = (
        torch.zeros((len(rows), max(max_sentences, 1), FEATURES_PER_SENTENCE)) if has_features else None
    )
    cls_window, cls_position, sentence_slot = [], [], []

    window_row = 0
    for doc, row in enumerate(rows):
        sentence = 0
        types = row.get("token_type_ids") or [None] * len(row["input_ids"])
        for ids, positions, segments in zip(row["input_ids"], row["cls_positions"], types):
            input_ids[window_row, : len(ids)] = torch.tensor(ids)
            attention_mask[window_row, : len(ids)] = 1
            if token_type_ids is not None:
                token_type_ids[window_row, : len(ids)] = torch.tensor(segments)
            ends = [*positions[1:], len(ids)]
            for start, end in zip(positions, ends):
                slot = doc * sentence_mask.shape[1] + sentence
                cls_window.append(window_row)
                cls_position.append(start)
                sentence_slot.append(slot)
                if slot_rows is not None:  # the sentence's own tokens: after [CLS], before [SEP]
                    slot_rows[window_row, start + 1 : max(end - 1, start + 1)] = slot
                sentence += 1
            window_row += 1
        sentence_mask[doc, :sentence] = True
        if sentence_features is not None and row["sentence_features"]:
            sentence_features[doc, : len(row["sentence_features"])] = torch.tensor(row["sentence_features"])
        row_labels = row.get("labels")
        if row_labels:
            labels[doc, : len(row_labels)] = torch.tensor(row_labels, dtype=torch.float)
    return Batch(
        input_ids=input_ids,
        attention_mask=attention_mask,
        token_type_ids=token_type_ids,
        cls_window=torch.tensor(cls_window, dtype=torch.long),
        cls_position=torch.tensor(cls_position, dtype=torch.long),
        sentence_slot=torch.tensor(sentence_slot, dtype=torch.long),
        sentence_mask=sentence_mask,
        labels=labels,
        token_slot=slot_rows,
        sentence_features=sentence_features,
        first_sentence=torch.tensor([row.get("first_sentence", 0) for row in rows], dtype=torch.long),
    )
