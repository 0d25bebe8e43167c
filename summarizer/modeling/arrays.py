"""The layout of a batch as numpy arrays, and documents grouped by length; no torch.

Both inference backends read a batch this way: the torch one wraps the arrays as tensors
(`summarizer.modeling.batch`), the ONNX Runtime one hands them to its graph (`summarizer.runtime.onnx_model`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from summarizer.text.centrality import FEATURES_PER_SENTENCE


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


def collate_arrays(
    rows: Sequence[Mapping[str, Any]], pad_token_id: int, token_slots: bool = False
) -> dict[str, np.ndarray | None]:
    """The windows of `rows` (preprocessed documents) padded into the arrays of a batch, by the
    names of `summarizer.modeling.batch.Batch`'s fields (its documentation says what each holds).

    `token_slots` adds `token_slot`, which mean pooling needs.
    """
    windows = [w for row in rows for w in row["input_ids"]]
    longest = max((len(w) for w in windows), default=1)
    input_ids = np.full((len(windows), longest), pad_token_id, dtype=np.int64)
    attention_mask = np.zeros((len(windows), longest), dtype=np.int64)
    has_types = bool(rows) and rows[0].get("token_type_ids") is not None
    token_type_ids = np.zeros((len(windows), longest), dtype=np.int64) if has_types else None
    max_sentences = max((len(row["sentence_indices"]) for row in rows), default=0)
    sentence_mask = np.zeros((len(rows), max(max_sentences, 1)), dtype=bool)
    labels = np.zeros((len(rows), max(max_sentences, 1)), dtype=np.float32)
    slot_rows = np.full((len(windows), longest), -1, dtype=np.int64) if token_slots else None
    has_features = bool(rows) and rows[0].get("sentence_features") is not None
    sentence_features = (
        np.zeros((len(rows), max(max_sentences, 1), FEATURES_PER_SENTENCE), dtype=np.float32) if has_features else None
    )
    cls_window, cls_position, sentence_slot = [], [], []

    window_row = 0
    for doc, row in enumerate(rows):
        sentence = 0
        types = row.get("token_type_ids") or [None] * len(row["input_ids"])
        for ids, positions, segments in zip(row["input_ids"], row["cls_positions"], types):
            input_ids[window_row, : len(ids)] = ids
            attention_mask[window_row, : len(ids)] = 1
            if token_type_ids is not None:
                token_type_ids[window_row, : len(ids)] = segments
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
            sentence_features[doc, : len(row["sentence_features"])] = row["sentence_features"]
        row_labels = row.get("labels")
        if row_labels:
            labels[doc, : len(row_labels)] = row_labels
    return {
        "input_ids": input_ids,
        "attention_mask": attention_mask,
        "token_type_ids": token_type_ids,
        "cls_window": np.array(cls_window, dtype=np.int64),
        "cls_position": np.array(cls_position, dtype=np.int64),
        "sentence_slot": np.array(sentence_slot, dtype=np.int64),
        "sentence_mask": sentence_mask,
        "labels": labels,
        "token_slot": slot_rows,
        "sentence_features": sentence_features,
        "first_sentence": np.array([row.get("first_sentence", 0) for row in rows], dtype=np.int64),
    }
