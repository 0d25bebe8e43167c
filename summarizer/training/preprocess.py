"""Documents -> sentences -> BERTSUM features with oracle labels, cached as a `datasets.Dataset`."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import datasets
from transformers import PreTrainedTokenizerBase

from summarizer.errors import check, check_at_least
from summarizer.modeling.features import FeatureBuilder, FeatureConfig
from summarizer.resources import cache_dir as bertsum_cache_dir
from summarizer.text.sentences import reference_sentences, split_sentences
from summarizer.training.data import LoadedData
from summarizer.training.oracle import oracle_targets
from summarizer.training.teacher import TeacherScores, teacher_targets

CACHE_VERSION = 8  # raised whenever reading documents changes what a cached feature holds (8: a language per document)


@dataclass(frozen=True)
class LabelConfig:
    """Oracle labels: up to `oracle_size` sentences chosen greedily against the reference.

    `teacher_weight` is the share of a teacher's score in each target, where `preprocess` is
    given teacher scores (`summarizer.training.teacher`).
    """

    oracle_size: int = 3
    teacher_weight: float = 0.0

    def __post_init__(self) -> None:
        check_at_least(self, 1, "oracle_size")
        weight = self.teacher_weight
        check(0.0 <= weight <= 1.0, "teacher_weight", f"must be in [0, 1], got {weight}")


class DocumentPreprocessor:
    """Batched `datasets.map` function: split, tokenize, window and label documents."""

    def __init__(
        self,
        tokenizer: PreTrainedTokenizerBase,
        features: FeatureConfig,
        labels: LabelConfig | None,
        language: str = "english",
    ) -> None:
        self.builder = FeatureBuilder(tokenizer, features, language)
        self.labels = labels
        self.language = language

    def __call__(self, batch: dict[str, list[Any]]) -> dict[str, list[Any]]:
        languages = [language or self.language for language in batch.get("language", [""] * len(batch["text"]))]
        documents = [
            sentences or split_sentences(text, language)
            for text, sentences, language in zip(batch["text"], batch["sentences"], languages)
        ]
        out: dict[str, list[Any]] = {"id": batch["id"], "sentences": documents, "reference": [], "labels": []}
        teachers = batch.get("teacher", [None] * len(documents))
        for document, features, reference, teacher, language in zip(
            documents, self.builder.batch(documents, languages), batch["reference"], teachers, languages
        ):
            columns = features.to_columns()
            if self.builder.uses_token_types:  # also for a document with no sentence long enough
                columns.setdefault("token_type_ids", [])
            for name, value in columns.items():
                out.setdefault(name, []).append(value)
            summary = reference_sentences(reference, language)
            out["reference"].append(summary)
            scored = [document[i] for i in features.sentence_indices]
            if self.labels is None:
                out["labels"].append([0.0] * len(scored))
                continue
            targets = oracle_targets(scored, summary, self.labels.oracle_size)
            if teacher is not None:
                targets = teacher_targets(targets, teacher, features.sentence_indices, self.labels.teacher_weight)
            out["labels"].append(targets)
        return out


def preprocess(
    data: LoadedData,
    tokenizer: PreTrainedTokenizerBase,
    features: FeatureConfig,
    labels: LabelConfig | None = LabelConfig(),
    *,
    language: str = "english",
    num_proc: int | None = None,
    cache_dir: Path | None = None,
    teacher: TeacherScores | None = None,
) -> datasets.Dataset:
    """Features of every document in `data`, from the cache when the same run was done before.

    Columns: id, sentences, reference (sentences), input_ids / token_type_ids / cls_positions
    (one list per window), sentence_indices and labels (one target per scored sentence).
    `teacher` holds a teacher's score of each sentence of each document (NaN where it has
    none), mixed into the labels by `labels.teacher_weight`.
    """
    if teacher is not None and len(teacher) != len(data.documents):
        raise ValueError(f"teacher scores for {len(teacher)} documents, but there are {len(data.documents)}")
    key = _cache_key(data, tokenizer, features, labels, language, teacher)
    cache_dir = (cache_dir or bertsum_cache_dir()) / "features"
    cached = cache_dir / key
    if (cached / "dataset_info.json").exists():
        return datasets.load_from_disk(str(cached))

    columns: dict[str, list[Any]] = {
        "id": [d.id for d in data.documents],
        "text": [d.text for d in data.documents],
        "sentences": [d.sentences for d in data.documents],
        "reference": [d.reference for d in data.documents],
        "language": [d.language for d in data.documents],
    }
    if teacher is not None:
        columns["teacher"] = teacher
    raw = datasets.Dataset.from_dict(columns)
    if num_proc is None:
        num_proc = min(os.cpu_count() or 1, 4) if len(raw) >= 512 else 1
    if num_proc > 1:
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    started = time.perf_counter()
    processed = raw.map(
        DocumentPreprocessor(tokenizer, features, labels, language),
        batched=True,
        batch_size=64,
        num_proc=num_proc if num_proc > 1 else None,
        remove_columns=raw.column_names,
        new_fingerprint=key,  # else `datasets` hashes the tokenizer, which takes longer than small runs
        desc="Preprocessing",
    )
    cache_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=cache_dir, prefix=".tmp-"))
    try:
        processed.save_to_disk(str(staging))
        os.replace(staging, cached)
        print(_report(len(raw), num_proc, time.perf_counter() - started), file=sys.stderr)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        if not (cached / "dataset_info.json").exists():
            raise
    return datasets.load_from_disk(str(cached))


def _report(documents: int, num_proc: int, seconds: float) -> str:
    """One line on a finished preprocessing: its speed and its peak memory (resident set)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    memory = f"peak memory {own:,.0f} MB" + (f" here, {workers:,.0f} MB in the largest worker" if num_proc > 1 else "")
    return (
        f"Preprocessed {documents:,} documents in {seconds:.0f} s with {num_proc} "
        f"process{'es' if num_proc > 1 else ''}; {memory}"
    )


def _cache_key(
    data: LoadedData,
    tokenizer: PreTrainedTokenizerBase,
    features: FeatureConfig,
    labels: LabelConfig | None,
    language: str,
    teacher: TeacherScores | None = None,
) -> str:
    settings = None if labels is None else asdict(labels)
    if settings is not None and teacher is None:
        del settings["teacher_weight"]  # keys of runs without a teacher stay what they were
    key = json.dumps(
        [
            CACHE_VERSION,
            data.fingerprint,
            _tokenizer_digest(tokenizer),
            type(tokenizer).__name__,
            tokenizer.model_input_names,
            features.deciding_settings(),
            settings,
            language,
        ]
        + ([] if teacher is None else [hashlib.sha256(json.dumps(teacher).encode()).hexdigest()])
    )
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def _tokenizer_digest(tokenizer: PreTrainedTokenizerBase) -> str:
    """Digest of what decides the token ids: the backend's definition, else the vocabulary.

    Padding and truncation, which calls to the tokenizer switch on and off, are left out.
    """
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        definition: Any = tokenizer.get_vocab()
    else:
        definition = json.loads(backend.to_str())
        definition.pop("padding", None)
        definition.pop("truncation", None)
    return hashlib.sha256(json.dumps(definition).encode()).hexdigest()
