"""Training, validation and test documents as length-grouped, dynamically padded batches.

The length-grouped sampler is resumable mid-epoch and deals batches out to DDP processes.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from functools import partial
from typing import Any

import datasets
import pytorch_lightning as pl
import torch
from pytorch_lightning.utilities.rank_zero import rank_zero_only
from torch.utils.data import BatchSampler, DataLoader, Sampler
from transformers import PreTrainedTokenizerBase

from summarizer.errors import InputError
from summarizer.modeling.batch import Batch, by_length, collate, cut
from summarizer.modeling.features import FeatureConfig
from summarizer.training.data import Example, LoadedData, load_documents, untokenized
from summarizer.training.preprocess import LabelConfig, preprocess
from summarizer.training.settings import DataConfig
from summarizer.training.teacher import teacher_scores

SPLIT_SEED = 0


@dataclass
class DocumentBatch:
    """A model `Batch` and the texts needed to score its selections with ROUGE."""

    batch: Batch
    ids: list[str]
    sentences: list[list[str]]
    sentence_indices: list[list[int]]
    references: list[list[str]]

    def to(self, device: torch.device | str) -> DocumentBatch:
        return replace(self, batch=self.batch.to(device))

    def __len__(self) -> int:
        return len(self.ids)


def one_window(row: Mapping[str, Any], first_share: float, rng: random.Random) -> dict[str, Any]:
    """`row` cut down to one of its windows: the first with probability `first_share`, else
    one of the others. The row's `first_sentence` says where its sentences start."""
    windows = len(row["input_ids"])
    window = 0 if windows == 1 or rng.random() < first_share else rng.randrange(1, windows)
    start = sum(len(positions) for positions in row["cls_positions"][:window])
    end = start + len(row["cls_positions"][window])
    cut = {**row, "first_sentence": start}
    for name in ("input_ids", "cls_positions", "token_type_ids"):
        if row.get(name):
            cut[name] = row[name][window : window + 1]
    for name in ("sentence_indices", "labels", "sentence_features"):
        if row.get(name) is not None:
            cut[name] = row[name][start:end]
    return cut


def collate_documents(
    rows: Sequence[Mapping[str, Any]],
    pad_token_id: int,
    token_slots: bool,
    first_window_share: float | None = None,
    seed: Callable[[], str] = str,
) -> DocumentBatch:
    """Pad preprocessed rows into a `DocumentBatch`, each cut to one window when
    `first_window_share` is set (see `one_window`; `seed()` and the row's id decide which)."""
    if first_window_share is not None:
        rows = [one_window(row, first_window_share, random.Random(f"{seed()}:{row['id']}")) for row in rows]
    return DocumentBatch(
        batch=collate(rows, pad_token_id, token_slots=token_slots),
        ids=[row["id"] for row in rows],
        sentences=[row["sentences"] for row in rows],
        sentence_indices=[row["sentence_indices"] for row in rows],
        references=[row["reference"] for row in rows],
    )


@dataclass(eq=False)
class LengthGroupedSampler(Sampler[int]):
    """Document indices in an order whose consecutive `batch_size` runs have similar lengths.

    With `shuffle` (training), each epoch (see `set_epoch`) shuffles the documents with
    `seed + epoch`, sorts them by length within chunks of `bucket_batches` batches, and
    shuffles the batches (the one short batch stays last). With `keep_order`, the documents
    stay in their order (shuffled once when read) and batches are shuffled only within their
    chunk, so the batches of the first N documents do not depend on the documents after them
    (N a multiple of the chunk). `start` gives the number of batches of this epoch already
    trained, skipped when a resumed run starts mid-epoch; under several processes the
    batches are dealt out in turn, and every process gets as many (repeating the first ones)
    so that they step together. Without `shuffle` (evaluation), each process takes every
    `num_replicas`-th document, longest first, and none is repeated.
    """

    lengths: Sequence[int]
    batch_size: int
    _: KW_ONLY
    shuffle: bool
    seed: int = 0
    bucket_batches: int = 32
    num_replicas: int = 1
    rank: int = 0
    keep_order: bool = False
    start: Callable[[], int] = lambda: 0
    epoch: int = field(default=0, init=False)

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def batches(self) -> list[list[int]]:
        """This process's batches for the current epoch."""
        order = list(range(len(self.lengths)))
        if not self.shuffle:
            longest = by_length(order, self.lengths, longest_first=True)
            return cut(longest[self.rank :: self.num_replicas], self.batch_size)
        rng = random.Random(self.seed + self.epoch)
        chunk = self.batch_size * self.bucket_batches
        if self.keep_order:
            batches = []
            for start in range(0, len(order), chunk):
                grouped = cut(by_length(order[start : start + chunk], self.lengths), self.batch_size)
                random.Random(f"{self.seed}:{self.epoch}:{start}").shuffle(grouped)
                batches += sorted(grouped, key=len, reverse=True)  # a short batch last (stable sort)
            full = [batch for batch in batches if len(batch) == self.batch_size]
        else:
            rng.shuffle(order)
            in_order = [
                i
                for start in range(0, len(order), chunk)
                for i in by_length(order[start : start + chunk], self.lengths)
            ]
            batches = cut(in_order, self.batch_size)
            short = batches[-1:] if batches and len(batches[-1]) < self.batch_size else []
            full = batches[: len(batches) - len(short)]
            rng.shuffle(full)
            batches = full + short
        missing = -len(batches) % self.num_replicas
        batches += list(itertools.islice(itertools.cycle(full or batches), missing))
        return batches[self.rank :: self.num_replicas]

    def __iter__(self) -> Iterator[int]:
        return (i for batch in self.batches()[self.start() :] for i in batch)

    def __len__(self) -> int:
        return sum(len(batch) for batch in self.batches())


class ResumingDataLoader(DataLoader):
    """A DataLoader whose `LengthGroupedSampler` skips the batches a resumed run already trained.

    Its (empty) state lets Lightning know that a run may resume in the middle of an epoch.
    """

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        pass


class SummarizationDataModule(pl.LightningDataModule):
    """Loads documents named by a `DataConfig`, preprocesses them (cached) and batches them."""

    def __init__(
        self,
        data: DataConfig,
        features: FeatureConfig,
        tokenizer: PreTrainedTokenizerBase,
        *,
        language: str = "english",
        token_slots: bool = False,
        seed: int = 0,
    ) -> None:
        super().__init__()
        self.data = data
        self.features = features
        self.tokenizer = tokenizer
        self.language = language
        self.token_slots = token_slots
        self.seed = seed
        self.datasets: dict[str, datasets.Dataset] = {}
        self.loaded: dict[str, LoadedData] = {}
        self.untaught: frozenset[str] = frozenset()  # ids of training documents that keep oracle labels

    def prepare_data(self) -> None:
        """Read and preprocess every split, filling the feature cache."""
        self.setup()

    def setup(self, stage: str | None = None) -> None:
        """Read and preprocess every split, unless this process already has."""
        if not self.datasets:
            self.datasets = self._preprocess_all()

    def load(self) -> dict[str, LoadedData]:
        """The documents of every split, read once; an `InputError` naming the first bad row.

        Training calls it before anything else prints, so a data error is the only line."""
        if not self.loaded:
            self.loaded = self._load()
        return self.loaded

    def has(self, split: str) -> bool:
        """Whether the configuration names documents for `split`."""
        if split == "train":
            return True
        return getattr(self.data, split) is not None or getattr(self.data, f"{split}_fraction") > 0

    def train_dataloader(self) -> DataLoader:
        return self._loader("train", self.data.batch_size, shuffle=True)

    def _window_seed(self) -> str:
        """Which windows `one_window` picks: new ones each epoch, the same ones when resumed."""
        return f"{self.seed}:{self.trainer.current_epoch if self.trainer else 0}"

    def val_dataloader(self) -> DataLoader:
        return self._loader("validation", self.data.eval_batch_size, shuffle=False)

    def _loader(self, split: str, batch_size: int, shuffle: bool) -> DataLoader:
        dataset = self.datasets[split]
        trainer = self.trainer
        sampler = LengthGroupedSampler(
            [sum(map(len, windows)) for windows in dataset["input_ids"]],
            batch_size,
            shuffle=shuffle,
            seed=self.seed,
            bucket_batches=self.data.bucket_batches,
            num_replicas=trainer.world_size if trainer else 1,
            rank=trainer.global_rank if trainer else 0,
            keep_order=self.data.shuffle == "fixed",
            start=self._trained_batches if shuffle else lambda: 0,
        )
        return ResumingDataLoader(
            dataset,
            batch_sampler=BatchSampler(sampler, batch_size, drop_last=False),
            collate_fn=partial(
                collate_documents,
                pad_token_id=self.tokenizer.pad_token_id,
                token_slots=self.token_slots,
                first_window_share=self.data.first_window_share if shuffle else None,
                seed=self._window_seed,
            ),
            num_workers=self.data.num_workers,
            persistent_workers=self.data.num_workers > 0,
        )

    def _trained_batches(self) -> int:
        """Batches of the current epoch trained before this iteration (non-zero when resuming)."""
        trainer = self.trainer
        return 0 if trainer is None else trainer.fit_loop.epoch_loop.batch_progress.current.completed

    def _preprocess_all(self) -> dict[str, datasets.Dataset]:
        """Features of every split; training leaves out documents without a scored sentence."""
        loaded, self.loaded = self.load(), {}  # the documents are not kept once their features are built
        # The test split is read as the trained model reads documents, and needs no targets.
        settings: dict[str, tuple[FeatureConfig, LabelConfig | None]] = {
            split: (self.features, self.data.labels(split)) for split in ("train", "validation")
        }
        settings["test"] = (self.features.for_inference(), None)
        teacher = None
        if self.data.teacher is not None:
            # data.mix sources with `teacher: false` are not scored: NaN keeps their oracle labels
            teacher = teacher_scores(loaded["train"], self.data.teacher, self.language, untaught=self.untaught)
        out = {
            split: preprocess(
                documents,
                self.tokenizer,
                *settings[split],
                language=self.language,
                num_proc=self.data.num_proc,
                teacher=teacher if split == "train" else None,
            )
            for split, documents in loaded.items()
        }
        scored = [i for i, indices in enumerate(out["train"]["sentence_indices"]) if indices]
        if not scored:
            raise InputError(f"data.train: no document has a sentence of {self.features.min_sentence_tokens}+ tokens")
        if len(scored) < len(out["train"]):
            out["train"] = out["train"].select(scored)
        return out

    def _load(self) -> dict[str, LoadedData]:
        cfg = self.data
        self.untaught = frozenset()
        options: dict[str, Any] = {
            "text_field": cfg.text_field,
            "summary_field": cfg.summary_field,
            "skip_bad_rows": cfg.skip_bad_rows,
        }

        def read(key: str, spec: str, split: str | None, **fields: str | None) -> LoadedData:
            named = {name: value for name, value in fields.items() if value is not None}  # else data's
            try:
                loaded = load_documents(spec, split, **{**options, **named})
            except InputError as error:
                raise InputError(f"data.{key}: {error}") from None
            # data.skip_bad_rows: say which rows were left out, once. (Lightning sets `rank_zero_only.rank`
            # at runtime; its type, an overloaded function, has no such attribute.)
            if rank_zero_only.rank == 0:  # type: ignore[attr-defined]
                for reason in loaded.skipped:
                    print(f"skipped: {reason}", file=sys.stderr)
            return loaded

        held_out = {split: getattr(cfg, f"{split}_fraction") for split in ("validation", "test")}
        loaded = _hold_out(read("train", cfg.train, cfg.train_split), held_out)
        if cfg.shuffle == "fixed":
            order = list(range(len(loaded["train"].documents)))
            random.Random(SPLIT_SEED).shuffle(order)
            loaded["train"] = _subset(loaded["train"], order[cfg.skip_train :], "fixed")
            if not loaded["train"].documents:
                raise InputError(
                    f"data.skip_train: {cfg.skip_train} leaves none of the {len(order)} training documents"
                )
        for split in ("validation", "test"):
            if getattr(cfg, split) is not None:
                loaded[split] = read(split, getattr(cfg, split), getattr(cfg, f"{split}_split"))
        limits = {"train": cfg.limit_train, "validation": cfg.limit_validation, "test": cfg.limit_test}
        out = {split: _first(data, limits[split]) for split, data in loaded.items()}
        if cfg.mix:
            mixes = [
                read(
                    f"mix[{i}]",
                    m.data,
                    m.split,
                    text_field=m.text_field,
                    summary_field=m.summary_field,
                    language=m.language,
                )
                for i, m in enumerate(cfg.mix)
            ]
            _check_mix(mixes, out)
            out["train"], ids = _mixed(out["train"], [(data, m.repeat) for data, m in zip(mixes, cfg.mix)])
            self.untaught = frozenset(i for source, m in zip(ids, cfg.mix) if not m.teacher for i in source)
        if cfg.untokenize:
            out = {split: untokenized(data) for split, data in out.items()}
        return out


def _hold_out(data: LoadedData, fractions: Mapping[str, float]) -> dict[str, LoadedData]:
    """`data` as train plus the given shares of its documents (a fixed seeded shuffle)."""
    if not any(fractions.values()):
        return {"train": data}
    order = list(range(len(data.documents)))
    random.Random(SPLIT_SEED).shuffle(order)
    splits, start = {}, 0
    for split, fraction in fractions.items():
        if fraction > 0:
            count = max(1, round(fraction * len(order)))
            splits[split] = _subset(data, sorted(order[start : start + count]), split)
            start += count
    if start >= len(order):
        raise InputError(f"{data.source}: holding out {start} documents leaves none to train on")
    splits["train"] = _subset(data, sorted(order[start:]), "train")
    return splits


def _check_mix(mixes: Sequence[LoadedData], loaded: Mapping[str, LoadedData]) -> None:
    """A mix source must hold none of the documents the run validates or tests on (given, or
    held out of data.train)."""
    held = {_text(doc): split for split in ("validation", "test") if split in loaded for doc in loaded[split].documents}
    for i, data in enumerate(mixes):
        overlap = [held[text] for doc in data.documents if (text := _text(doc)) in held]
        if overlap:
            raise InputError(
                f"data.mix[{i}]: {len(overlap)} of its documents are data.{overlap[0]}'s too: "
                "the run would test on what it trained on"
            )


def _text(doc: Example) -> str:
    return doc.text or "\n".join(doc.sentences)


def _mixed(train: LoadedData, sources: Sequence[tuple[LoadedData, int]]) -> tuple[LoadedData, list[list[str]]]:
    """`train`'s documents and each source's, `repeat` times, in one fixed seeded shuffle, and
    the ids each source's documents got. Every id is made unique (a repeat's, or one another
    source holds, ends in `#2`, `#3`...), so that each document reads a window of its own."""
    documents, keys = list(train.documents), [train.fingerprint]
    seen, renamed = {doc.id for doc in documents}, False
    ids: list[list[str]] = []
    for data, repeat in sources:
        ids.append([])
        for r in range(repeat):
            for doc in data.documents:
                n = r + 1  # the repeat's own number, unless another document holds it
                name = doc.id if n == 1 else f"{doc.id}#{n}"
                while name in seen:
                    n += 1
                    name = f"{doc.id}#{n}"
                seen.add(name)
                ids[-1].append(name)
                renamed |= n != r + 1
                documents.append(doc if name == doc.id else replace(doc, id=name))
        keys.append(f"{data.fingerprint}*{repeat}")
    if renamed:  # the cached features of the same documents under other ids are not these
        keys.append("unique ids")
    order = list(range(len(documents)))
    random.Random(SPLIT_SEED).shuffle(order)
    mixed = LoadedData(
        source=train.source,
        documents=[documents[i] for i in order],
        skipped=train.skipped,
        fingerprint=hashlib.sha256(f"mixed:{':'.join(keys)}".encode()).hexdigest()[:16],
    )
    return mixed, ids


def _first(data: LoadedData, limit: int | None) -> LoadedData:
    if limit is None or limit >= len(data.documents):
        return data
    return _subset(data, range(limit), "first")


def _subset(data: LoadedData, indices: Sequence[int], tag: str) -> LoadedData:
    """The documents at `indices`, with a fingerprint of its own for the feature cache."""
    key = f"{data.fingerprint}:{tag}:{','.join(map(str, indices))}"
    return LoadedData(
        source=data.source,
        documents=[data.documents[i] for i in indices],
        skipped=data.skipped,
        fingerprint=hashlib.sha256(key.encode()).hexdigest()[:16],
    )
