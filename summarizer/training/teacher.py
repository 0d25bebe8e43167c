"""Distillation targets: a trained model's sentence scores on the training documents.

A teacher (`data.teacher`: a built-in model by name or a model directory) scores every sentence
of every training document as `summarize` would. `preprocess` mixes those
scores into the oracle labels (`data.teacher_weight`). Teacher inference costs more than the
student's training, so each document's scores are cached, by its sentences and the teacher.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import time
from collections.abc import Collection
from pathlib import Path

from summarizer.errors import InputError
from summarizer.files import atomic_file
from summarizer.modeling.settings import read_settings
from summarizer.pipeline import Summarizer
from summarizer.resources import cache_dir as bertsum_cache_dir
from summarizer.resources import model_dir
from summarizer.runtime.backends import resolve_backend
from summarizer.runtime.precision import native_bf16_cpu
from summarizer.text.sentences import split_sentences
from summarizer.training.data import LoadedData

# Teacher scores per document: one per sentence, NaN where the teacher scored none (too short).
TeacherScores = list[list[float]]


def teacher_runtime() -> tuple[str, str]:
    """Backend and precision the teacher scores with: bf16 on torch where the CPU computes it
    natively (the base-size encoder runs fastest there), else int8 on ONNX Runtime where the
    model has its graphs (on an AVX2-only EPYC, `news-accurate` scored 0.87 DailyMail articles/s
    at int8 on ONNX Runtime, 0.51 in fp32 on torch and 0.43 in fp32 on ONNX Runtime), int8 on
    torch otherwise."""
    return ("torch", "bf16") if native_bf16_cpu() else ("auto", "int8")


def teacher_scores(
    data: LoadedData,
    teacher: str,
    language: str = "english",
    *,
    batch_size: int = 16,
    cache_dir: Path | None = None,
    chunk: int = 200,
    untaught: Collection[str] = frozenset(),
) -> TeacherScores:
    """The `teacher`'s score of each sentence of each document in `data`, NaN for every sentence
    of the documents whose ids are `untaught` (they keep their oracle labels: not scored).
    Scores are kept per document, by its sentences, under the teacher's files and precision,
    and written every `chunk` documents: documents this teacher scored before (in another
    order, another run or a run stopped midway) are not scored again."""
    directory = model_dir(teacher)
    try:
        read_settings(directory)  # a model directory, before its files name the stored scores
        wanted_backend, wanted_precision = teacher_runtime()
        backend, precision = resolve_backend(directory, "cpu", wanted_precision, wanted_backend)
    except InputError as error:
        raise InputError(f"data.teacher: {error}") from None
    if chunk < 1:
        raise ValueError(f"chunk must be 1 or more, got {chunk}")
    store = (cache_dir or bertsum_cache_dir()) / "teacher" / _digest(_model_digest(directory), backend, precision)
    # Each document's sentences as `preprocess` splits them; a repeated document (data.mix) is scored once.
    documents = [tuple(d.sentences or split_sentences(d.text, language)) for d in data.documents]
    keys = [None if d.id in untaught else _digest(*sentences) for d, sentences in zip(data.documents, documents)]
    wanted = {key: len(sentences) for key, sentences in zip(keys, documents) if key is not None}
    known = _stored(store, wanted)
    missing = {key: sentences for key, sentences in zip(keys, documents) if key is not None and key not in known}
    if missing:
        try:
            summarizer = Summarizer.from_pretrained(directory, precision=precision, backend=backend)
        except InputError as error:  # a damaged model, or its base encoder not installed
            raise InputError(f"data.teacher: {error}") from None
        started, todo, done = time.perf_counter(), list(missing), 0
        for start in range(0, len(todo), chunk):
            part = todo[start : start + chunk]
            texts = [list(missing[key]) for key in part]
            summaries = summarizer.summarize_batch(texts, batch_size, k=1, trigram_blocking=False)
            scored = {key: summary.sentence_scores for key, summary in zip(part, summaries, strict=True)}
            with atomic_file(store / f"{_digest(*part)}.json") as staging:
                staging.write_text(json.dumps(scored))
            known.update(scored)
            done += len(part)
            seconds = time.perf_counter() - started
            print(f"Teacher scored {done:,} of {len(todo):,} documents in {seconds:.0f} s", file=sys.stderr)
    return [
        [math.nan] * len(sentences) if key is None else _with_nan(known[key]) for key, sentences in zip(keys, documents)
    ]


def _stored(store: Path, wanted: dict[str, int]) -> dict[str, list[float | None]]:
    """The scores in `store` of the documents `wanted` (key: its number of sentences). A part
    that cannot be read, or an entry of another length, is left out: those documents are scored again."""
    found: dict[str, list[float | None]] = {}
    for stored in sorted(store.glob("*.json")) if store.is_dir() else []:
        try:
            part = json.loads(stored.read_text())
        except (OSError, ValueError):
            part = None
        if not isinstance(part, dict):
            print(f"data.teacher: {stored}: unreadable, its documents are scored again", file=sys.stderr)
            continue
        for key, scores in part.items():
            if isinstance(scores, list) and len(scores) == wanted.get(key, -1):
                found[key] = scores
        if len(found) == len(wanted):
            break
    return found


def _digest(*parts: str) -> str:
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:24]


def _with_nan(scores: list[float | None]) -> list[float]:
    """A document's scores as stored (None where the teacher scored no sentence) with NaN for None."""
    return [math.nan if s is None else s for s in scores]


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
