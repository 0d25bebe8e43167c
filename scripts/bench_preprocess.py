"""Preprocessing throughput: `preprocess` against a straightforward pipeline, and the oracle alone.

The pipeline (split, tokenize, oracle labels, windows) runs through `preprocess` with the
default FeatureConfig, `--num-proc` processes and an empty cache, on BBC News train and
CNN/DailyMail validation. The straightforward pipeline, in one process, splits with Punkt
(`split_sentences`), calls the tokenizer once per sentence and labels with an oracle that
recomputes n-gram set unions for every candidate; its rows must equal those of `preprocess`.
Each stage alone, in one process, shows where the time goes. Then the oracle alone on
CNN/DailyMail: `greedy_oracle_words` against the set-union oracle on the same words, and
`greedy_oracle` against rouge_words + the set-union oracle from sentence text.

    python scripts/bench_preprocess.py [--data-dir ../shared/data] [--limit N] [--num-proc 2]

Targets: at least 2,000 documents/s for `preprocess` on BBC; the oracle at least 10x the
set-union one.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import datasets

from summarizer.modeling.features import FeatureBuilder, FeatureConfig
from summarizer.modeling.modeling_bertsum import load_tokenizer
from summarizer.resources import default_encoder_dir
from summarizer.text.centrality import sentence_centrality
from summarizer.text.sentences import reference_sentences, split_sentences
from summarizer.text.words import rouge_words
from summarizer.training.data import LoadedData, load_documents
from summarizer.training.oracle import greedy_oracle, greedy_oracle_words, word_ids_of
from summarizer.training.preprocess import LabelConfig, preprocess

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPORA = {
    "BBC News train": Path("bbc-news/train.jsonl"),
    "CNN/DailyMail validation": Path("cnndm/validation.jsonl"),
}


def _ngrams(words: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return set(zip(*(words[i:] for i in range(n))))


def _f1(evaluated: set[tuple[str, ...]], reference: set[tuple[str, ...]]) -> float:
    overlap = len(evaluated & reference)
    precision = overlap / len(evaluated) if evaluated else 0.0
    recall = overlap / len(reference) if reference else 0.0
    return 2.0 * ((precision * recall) / (precision + recall + 1e-8))


def set_union_oracle(sentences: Sequence[Sequence[str]], reference: Sequence[str], k: int = 3) -> list[int]:
    """BERTSUM's greedy_selection: n-gram set unions recomputed for every candidate."""
    unigrams = [_ngrams(s, 1) for s in sentences]
    bigrams = [_ngrams(s, 2) for s in sentences]
    reference_1, reference_2 = _ngrams(reference, 1), _ngrams(reference, 2)
    selected: list[int] = []
    best = 0.0
    for _ in range(k):
        step_best, step_choice = best, -1
        for i in range(len(sentences)):
            if i in selected:
                continue
            chosen = [*selected, i]
            score = _f1(set().union(*(unigrams[j] for j in chosen)), reference_1) + _f1(
                set().union(*(bigrams[j] for j in chosen)), reference_2
            )
            if score > step_best:
                step_best, step_choice = score, i
        if step_choice < 0:
            break
        selected.append(step_choice)
        best = step_best
    return sorted(selected)


def straightforward_rows(
    data: LoadedData, tokenizer: Any, config: FeatureConfig, oracle_size: int
) -> list[dict[str, Any]]:
    """The pipeline one document, one sentence at a time."""
    builder = FeatureBuilder(tokenizer, config)
    rows = []
    for document in data.documents:
        sentences = document.sentences or split_sentences(document.text)
        reference = reference_sentences(document.reference)
        ids = [tokenizer(s, add_special_tokens=False)["input_ids"] for s in sentences]
        features = builder.from_token_ids(ids)
        scored = [rouge_words(sentences[i]) for i in features.sentence_indices]
        chosen = set_union_oracle(scored, [w for s in reference for w in rouge_words(s)], oracle_size)
        labels = [int(i in chosen) for i in range(len(scored))]
        rows.append({"id": document.id, "labels": labels, **features.to_columns()})
    return rows


def timed(function: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def bench_pipeline(name: str, data: LoadedData, tokenizer: Any, num_proc: int) -> None:
    config, labels = FeatureConfig(), LabelConfig()
    n = len(data.documents)
    with tempfile.TemporaryDirectory() as cache:
        dataset, ours = timed(
            lambda: preprocess(data, tokenizer, config, labels, num_proc=num_proc, cache_dir=Path(cache))
        )
        columns = [
            c
            for c in ("id", "labels", "input_ids", "cls_positions", "sentence_indices", "token_type_ids")
            if c in dataset.column_names
        ]
        produced = dataset.select_columns(columns).to_list()
    reference, plain = timed(lambda: straightforward_rows(data, tokenizer, config, labels.oracle_size))
    same = produced == [{c: row.get(c, []) for c in columns} for row in reference]
    print(
        f"{name} ({n} documents): preprocess (num_proc={num_proc}) {n / ours:,.0f} docs/s "
        f"(target 2,000), "
        f"straightforward (1 process) {n / plain:,.0f} docs/s, ratio {plain / ours:.2f}x, "
        f"rows identical: {same}"
    )
    if not same:
        raise SystemExit(f"{name}: preprocess and the straightforward pipeline disagree")


def bench_stages(data: LoadedData, tokenizer: Any, num_proc: int) -> None:
    """Documents per second of each stage of `preprocess` in one process, and the ceiling they set."""
    builder = FeatureBuilder(tokenizer, FeatureConfig())
    documents, split = timed(lambda: [d.sentences or split_sentences(d.text) for d in data.documents])
    references, split_references = timed(lambda: [reference_sentences(d.reference) for d in data.documents])
    ids, tokenize = timed(lambda: builder.tokenize([s for sentences in documents for s in sentences]))
    lengths = itertools.accumulate(map(len, documents), initial=0)
    per_document = [ids[start:end] for start, end in itertools.pairwise(lengths)]
    features, windows = timed(lambda: [builder.from_token_ids(d) for d in per_document])
    _, oracle = timed(
        lambda: [
            greedy_oracle([d[i] for i in f.sentence_indices], r, 3) for d, f, r in zip(documents, features, references)
        ]
    )
    n = len(documents)
    stages = {
        "split documents": split,
        "split references": split_references,
        "tokenize": tokenize,
        "windows": windows,
        "oracle": oracle,
    }
    print("    one process: " + ", ".join(f"{k} {n / v:,.0f}" for k, v in stages.items()) + " docs/s")
    ceiling = num_proc * n / sum(stages.values())
    print(f"    together {n / sum(stages.values()):,.0f} docs/s per process: about {ceiling:,.0f} with {num_proc}")
    _, centrality = timed(lambda: [sentence_centrality(d) for d in documents])
    print(f"    lexical centrality (only with model.features.centrality): {n / centrality:,.0f} docs/s")


def bench_oracle(data: LoadedData, repeats: int) -> None:
    documents = [(d.sentences or split_sentences(d.text), reference_sentences(d.reference)) for d in data.documents]
    words = [
        ([rouge_words(s) for s in sentences], [w for s in reference for w in rouge_words(s)])
        for sentences, reference in documents
    ]

    def best_of(function: Callable[[], Any]) -> tuple[Any, float]:
        runs = [timed(function) for _ in range(repeats)]
        return runs[0][0], min(seconds for _, seconds in runs)

    n = len(documents)
    for label, ours_run, plain_run in [
        (
            "same pre-split words",
            lambda: [greedy_oracle_words(s, r, 3) for s, r in words],
            lambda: [set_union_oracle(s, r, 3) for s, r in words],
        ),
        (
            "from sentence text",
            lambda: [greedy_oracle(s, r, 3) for s, r in documents],
            lambda: [
                set_union_oracle([rouge_words(x) for x in s], [w for x in r for w in rouge_words(x)], 3)
                for s, r in documents
            ],
        ),
    ]:
        ours, ours_seconds = best_of(ours_run)
        plain, plain_seconds = best_of(plain_run)
        print(
            f"oracle on CNN/DailyMail, {label}: ours {n / ours_seconds:,.0f} docs/s, "
            f"set-union {n / plain_seconds:,.0f} docs/s, "
            f"speed-up {plain_seconds / ours_seconds:.1f}x (target 10x), "
            f"selections identical: {ours == plain}"
        )
        if ours != plain:
            raise SystemExit("the oracle and the set-union oracle disagree")
        if label == "same pre-split words":
            # Any exact oracle must first tell equal words apart; this step alone bounds the speed-up.
            _, ids_seconds = best_of(lambda: [word_ids_of(s, r) for s, r in words])
            print(
                f"    word ids alone (the first step of ours): {n / ids_seconds:,.0f} docs/s, "
                f"{100 * ids_seconds / plain_seconds:.0f}% of the set-union oracle's time"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=None, help="use the first N documents of each file")
    parser.add_argument("--num-proc", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3, help="oracle timings: best of this many runs")
    args = parser.parse_args(argv)

    files = {name: args.data_dir / path for name, path in CORPORA.items()}
    missing = [str(p) for p in files.values() if not p.is_file()]
    if missing:
        raise SystemExit(f"bench_preprocess: data not found: {', '.join(missing)} (give --data-dir)")
    datasets.disable_progress_bars()
    tokenizer = load_tokenizer(default_encoder_dir())
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, Python {sys.version.split()[0]}")
    loaded = {}
    for name, path in files.items():
        data = load_documents(path)
        loaded[name] = dataclasses.replace(data, documents=data.documents[: args.limit])
        bench_pipeline(name, loaded[name], tokenizer, args.num_proc)
        bench_stages(loaded[name], tokenizer, args.num_proc)
    bench_oracle(loaded["CNN/DailyMail validation"], args.repeats)


if __name__ == "__main__":
    main()
