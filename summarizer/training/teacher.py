"""Distillation targets: a trained model's sentence scores on the training documents.

A teacher (`data.teacher`: a built-in model by name or a model directory) scores every sentence
of every training document as `summarize` would, on the torch path. `preprocess` mixes those
scores into the oracle labels (`data.teacher_weight`). Teacher inference costs more than the
student's training, so the scores are cached by the documents' sentences and the teacher's files.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import time
from pathlib import Path

from summarizer.cli.files import atomic_file
from summarizer.errors import InputError
from summarizer.modeling.pipeline import Summarizer
from summarizer.modeling.precision import native_bf16_cpu
from summarizer.resources import cache_dir as bertsum_cache_dir
from summarizer.resources import model_dir
from summarizer.text.sentences import split_sentences
from summarizer.training.data import LoadedData

# Teacher scores per document: one per sentence, NaN where the teacher scored none (too short).
TeacherScores = list[list[float]]


def teacher_precision() -> str:
    """bf16 where the CPU computes it natively (the base-size encoder runs fastest there), else
    what `--precision auto` picks on torch."""
    return "bf16" if native_bf16_cpu() else "auto"


def teacher_scores(
    data: LoadedData, teacher: str, language: str = "english", *, batch_size: int = 16, cache_dir: Path | None = None
) -> TeacherScores:
    """The `teacher`'s score of each sentence of each document in `data`, from the cache when
    this teacher scored these documents before."""
    directory = model_dir(teacher)
    if not (directory / "config.json").is_file():
        raise InputError(f"data.teacher: {directory}: no model directory (no config.json)")
    # Each document's sentences as `preprocess` splits them. The cache key is their text, not the
    # data's fingerprint, which follows the files' times: a copy of the same file scores nothing again.
    documents = [tuple(d.sentences or split_sentences(d.text, language)) for d in data.documents]
    precision = teacher_precision()
    key = hashlib.sha256(json.dumps([_model_digest(directory), precision, documents]).encode()).hexdigest()[:20]
    cached = (cache_dir or bertsum_cache_dir()) / "teacher" / f"{key}.json"
    if cached.is_file():
        return _with_nan(json.loads(cached.read_text()))
    try:
        summarizer = Summarizer.from_pretrained(directory, precision=precision, backend="torch")
    except InputError as error:  # a damaged model, or its base encoder not installed
        raise InputError(f"data.teacher: {error}") from None
    slots: dict[tuple[str, ...], int] = {}  # a repeated document (data.mix) is scored once
    slot = [slots.setdefault(sentences, len(slots)) for sentences in documents]
    started, total = time.perf_counter(), len(slots)
    distinct: list[list[float | None]] = []
    for summary in summarizer.summarize_batch(list(slots), batch_size, k=1, trigram_blocking=False):
        distinct.append(summary.sentence_scores)
        if len(distinct) % 200 == 0 or len(distinct) == total:
            seconds = time.perf_counter() - started
            print(f"Teacher scored {len(distinct):,} of {total:,} documents in {seconds:.0f} s", file=sys.stderr)
    scores = [distinct[i] for i in slot]
    with atomic_file(cached) as staging:
        staging.write_text(json.dumps(scores))
    return _with_nan(scores)


def _with_nan(scores: list[list[float | None]]) -> TeacherScores:
    """Scores as stored (None where the teacher scored no sentence) with NaN for None."""
    return [[math.nan if s is None else s for s in row] for row in scores]


def teacher_targets(oracle: list[float], teacher: list[float], indices: list[int], weight: float) -> list[float]:
    """Targets of the scored sentences `indices`: `weight` of the teacher's score and the rest of
    the oracle label, or the oracle label alone where the teacher scored no such sentence."""
    mixed = []
    for label, index in zip(oracle, indices):
        score = teacher[index] if index < len(teacher) else math.nan
        mixed.append(label if math.isnan(score) else (1.0 - weight) * label + weight * score)
    return mixed


def _model_digest(directory: Path) -> str:
    """Digest of the model's files (its settings and weights), so that a retrained teacher is
    scored again."""
    digest = hashlib.sha256()
    for path in sorted(directory.iterdir()):
        if path.is_file() and path.suffix in (".json", ".safetensors"):
            digest.update(path.name.encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
