"""ROUGE of a model's summaries against references, beside Lead, TextRank and the oracle.

`python -m summarizer.evaluate --model DIR --data SPEC [--split NAME] [-k 3 | --ratio R] [--json]`
`python -m summarizer.evaluate --model DIR --cnndm dev|test [--cnndm-dir DIR]`: CNN and DailyMail
apart, and the margin over Lead on the published test split's mix (`summarizer.training.benchmark`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from summarizer import console, options
from summarizer.pipeline import PreparedDocument, Summarizer, Summary
from summarizer.ranking import RankerConfig
from summarizer.selection import SelectionConfig
from summarizer.text.centrality import DEFAULT_WORDS, most_central
from summarizer.text.sentences import language_code, reference_sentences
from summarizer.training import benchmark
from summarizer.training.data import Example, load_documents
from summarizer.training.oracle import greedy_oracle
from summarizer.training.rouge import METRICS, RougeResult, rouge_per_document, rouge_result

SYSTEMS = ("model", "lead", "textrank", "oracle")
METRIC_NAMES = {"rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rougeLsum": "ROUGE-Lsum"}


@dataclass
class Evaluation:
    """ROUGE F1 of each system (`SYSTEMS`) on the same documents; with documents in more than one
    language, `languages` holds each language's own (by ISO 639-1 code, in order of appearance)."""

    documents: int
    selection: SelectionConfig
    systems: dict[str, RougeResult]
    languages: dict[str, Evaluation] = field(default_factory=dict)
    ranker: RankerConfig | None = None  # the model's summary-level ranker, where it chose the summaries

    def to_dict(self) -> dict[str, object]:
        result: dict[str, object] = {
            "documents": self.documents,
            "selection": asdict(self.selection),
            "ranker": None if self.ranker is None else self.ranker.to_dict(),
            "systems": {name: _scores(result) for name, result in self.systems.items()},
        }
        if self.languages:
            result["languages"] = {
                code: {"documents": part.documents, "systems": {n: _scores(r) for n, r in part.systems.items()}}
                for code, part in self.languages.items()
            }
        return result

    def table(self) -> str:
        """A plain-text table: F1 with its 95% bootstrap interval per system and metric (then
        one per language, when there are several)."""
        header = f"{'':8}" + "".join(f"{METRIC_NAMES[m]:>25}" for m in METRICS)
        rows = [
            f"{name:8}"
            + "".join(
                f"{result.mean[m]:>10.2f} [{result.interval[m][0]:5.2f}, {result.interval[m][1]:5.2f}]" for m in METRICS
            )
            for name, result in self.systems.items()
        ]
        parts = [f"\n{code}: {part.documents} documents\n{part.table()}" for code, part in self.languages.items()]
        return "\n".join([header, *rows, *parts])


def _scores(result: RougeResult) -> dict[str, dict[str, float]]:
    return {m: {"f1": result.mean[m], "low": result.interval[m][0], "high": result.interval[m][1]} for m in METRICS}


def evaluate(
    summarizer: Summarizer,
    documents: Sequence[Example],
    selection: SelectionConfig = SelectionConfig(),
    batch_size: int = 16,
    bootstrap_samples: int = 1000,
) -> Evaluation:
    """ROUGE-1/2/Lsum F1 of the model, Lead (first n sentences), TextRank (the n most central
    sentences, with words as the model's centrality takes them, or by default for a model
    without centrality) and the greedy oracle (n sentences).

    n is the selection's sentence count for each document (`k`, or `ratio` of its sentences);
    all four choose from the same sentences of each document. Each document is read in its
    language (`Example.language`; none: the model's): its sentences, centrality and ROUGE
    (`make_scorer`); documents in several languages are also scored per language.
    """
    _check(selection)
    languages = [document.language or summarizer.language for document in documents]
    if len(set(languages)) > 1:  # each language's documents together (in their order), to summarize each in its own
        first = {language: i for i, language in reversed(list(enumerate(languages)))}
        order = sorted(range(len(documents)), key=lambda i: first[languages[i]])
        documents, languages = [documents[i] for i in order], [languages[i] for i in order]
    sentences, references, summaries = summarize_documents(summarizer, documents, selection, batch_size)
    return _compare(summarizer, sentences, references, summaries, selection, bootstrap_samples, languages)


def summarize_documents(
    summarizer: Summarizer, documents: Sequence[Example], selection: SelectionConfig, batch_size: int = 16
) -> tuple[list[list[str]], list[list[str]], Iterable[Summary]]:
    """Each document's sentences (its own, or the model's splitting of its text in its language),
    its reference in sentences, and the model's summaries of them (streamed: bounded memory)."""
    languages = [document.language or summarizer.language for document in documents]
    sentences = [
        document.sentences or summarizer.sentences(document.text, language=language)
        for document, language in zip(documents, languages)
    ]
    references = [reference_sentences(document.reference, language) for document, language in zip(documents, languages)]
    runs = itertools.groupby(zip(sentences, languages), key=lambda pair: pair[1])
    summaries = itertools.chain.from_iterable(
        summarizer.summarize_batch([s for s, _ in run], batch_size, **asdict(selection), language=language)
        for language, run in runs
    )
    return sentences, references, summaries


def evaluate_prepared(
    summarizer: Summarizer,
    documents: Sequence[PreparedDocument],
    references: Sequence[list[str]],
    selection: SelectionConfig = SelectionConfig(),
    batch_size: int = 16,
    bootstrap_samples: int = 1000,
    languages: Sequence[str] | None = None,
) -> Evaluation:
    """`evaluate` on documents whose features are built (training's own test features, through
    `Summarizer.prepare_features`), with references split into sentences; `languages`: the Punkt
    name of each document's language ("" or None: the model's)."""
    _check(selection)
    summaries = summarizer.summarize_prepared(documents, batch_size, selection)
    named = [language or summarizer.language for language in (languages or [""] * len(documents))]
    return _compare(
        summarizer,
        [document.sentences for document in documents],
        references,
        summaries,
        selection,
        bootstrap_samples,
        named,
    )


def _compare(
    summarizer: Summarizer,
    sentences: Sequence[list[str]],
    references: Sequence[list[str]],
    summaries: Iterable[Summary],
    selection: SelectionConfig,
    bootstrap_samples: int,
    languages: Sequence[str],
) -> Evaluation:
    """The model's `summaries` beside Lead, TextRank and the oracle, all of the selection's size,
    each document read in its language (a Punkt name); per language too, when there are several."""
    sizes = [selection.sentence_budget(len(document)) for document in sentences]
    model = [summary.sentences for summary in summaries]
    lead = [document[:size] for document, size in zip(sentences, sizes)]
    features = summarizer.model.config.features
    words = features.centrality_words if features.centrality else DEFAULT_WORDS
    textrank = [
        [document[i] for i in most_central(document, size, language, words)]
        for document, size, language in zip(sentences, sizes, languages)
    ]
    oracle = [
        [document[i] for i in greedy_oracle(document, reference, size)]
        for document, reference, size in zip(sentences, references, sizes)
    ]
    scores = {
        name: rouge_per_document(predictions, references, languages)
        for name, predictions in zip(SYSTEMS, (model, lead, textrank, oracle))
    }
    chosen = selection.for_model(summarizer.trigram_blocking)  # as the model's summaries were chosen
    ranker = summarizer.ranker if chosen.ranked_by(summarizer.ranker) else None
    codes = [language_code(language) for language in languages]
    by_language = {}
    if len(set(codes)) > 1:
        for code in dict.fromkeys(codes):
            mine = [i for i, own in enumerate(codes) if own == code]
            systems = {
                name: rouge_result({m: [f1[i] for i in mine] for m, f1 in per_document.items()}, bootstrap_samples)
                for name, per_document in scores.items()
            }
            by_language[code] = Evaluation(len(mine), chosen, systems, ranker=ranker)
    return Evaluation(
        documents=len(sentences),
        selection=chosen,
        systems={name: rouge_result(per_document, bootstrap_samples) for name, per_document in scores.items()},
        languages=by_language,
        ranker=ranker,
    )


def _check(selection: SelectionConfig) -> None:
    if selection.max_words is not None:
        raise ValueError("evaluation compares systems at a sentence count: use k or ratio, not max_words")


def build_parser(yardstick: bool = True) -> argparse.ArgumentParser:
    """The command's options; `yardstick` adds --cnndm and --cnndm-dir (else --data is required)."""
    parser = console.Parser(
        prog="python -m summarizer.evaluate",
        description="ROUGE-1/2/Lsum F1 (rouge-score; English stemmed) of a model, Lead, TextRank and the oracle, "
        "with 95% bootstrap intervals.",
    )
    data = parser.add_mutually_exclusive_group(required=True) if yardstick else parser
    data.add_argument(
        "--data", required=not yardstick, help="aclsum, a .jsonl/.json/.csv/.parquet file, or a dataset directory"
    )
    if yardstick:
        data.add_argument(
            "--cnndm",
            choices=benchmark.PORTIONS,
            help="CNN/DailyMail's development or test portion: CNN (validation.jsonl, first 500 or the rest) and "
            "DailyMail (validation-dm.jsonl, first 2,000 or the rest) apart, each with its margin over Lead, "
            "and the margin on the published test split's mix (10%% CNN, 90%% DailyMail)",
        )
        parser.add_argument(
            "--cnndm-dir",
            type=Path,
            default=benchmark.DEFAULT_DIR,
            help=f"the folder holding validation.jsonl and validation-dm.jsonl (default {benchmark.DEFAULT_DIR})",
        )
    parser.add_argument(
        "--split",
        help="split of a saved dataset dictionary; required for aclsum (train, validation or test); "
        "for a file, a range of its documents such as 300: or 0:300",
    )
    options.add_selection_arguments(parser, summaries=False)
    options.add_language_argument(parser, rows=True)
    parser.add_argument("--text-field", help="field holding the document (default: guessed)")
    parser.add_argument("--summary-field", help="field holding the reference summary (default: guessed)")
    parser.add_argument("--skip-bad-rows", action="store_true", help="skip unusable rows instead of stopping")
    parser.add_argument(
        "--limit", type=console.positive_int, help="evaluate on the first N documents only (of each source)"
    )
    options.add_model_arguments(parser, precision="fp32")  # the model as trained
    parser.add_argument(
        "--no-ranker",
        action="store_true",
        help="choose the best-scored sentences even where the model's summary-level ranker would choose",
    )
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    console.add_debug_flag(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the evaluation command; returns the exit status (2 for bad arguments, model or data)."""
    return console.run_command(build_parser(), argv, _run, _report)


def check_data_options(args: argparse.Namespace) -> None:
    """Refuse data options (`build_parser`'s) that name no documents, before anything is loaded."""
    if args.data == "aclsum" and args.split is None:
        raise console.UsageError("--data aclsum needs --split (train, validation or test)")


def read_documents(
    args: argparse.Namespace, report: Callable[[str], None], data: str | Path | None = None, split: str | None = None
) -> list[Example]:
    """The documents the data options (`build_parser`'s) name, or `data`'s `split`, each skipped row reported."""
    loaded = load_documents(
        data or args.data,
        split if data else args.split,
        text_field=args.text_field,
        summary_field=args.summary_field,
        skip_bad_rows=args.skip_bad_rows,
        language=args.language,
    )
    for reason in loaded.skipped:
        report(f"skipped {reason}")
    return loaded.documents[: args.limit]


def _run(args: argparse.Namespace) -> int:
    check_data_options(args)
    summarizer = Summarizer.from_pretrained(
        args.model, device=args.device, precision=args.precision, backend=args.backend
    )
    if args.no_ranker:
        summarizer.ranker = None
    selection = options.selection_from(args)
    if args.cnndm:
        return _run_yardstick(args, summarizer, selection)
    documents = read_documents(args, _report)
    result = evaluate(summarizer, documents, selection, args.batch_size)
    if args.json:
        print(json.dumps({"data": args.data, "split": args.split, **result.to_dict()}, indent=2))
    else:
        where = f"{args.data}{f' ({args.split})' if args.split else ''}"
        print(f"{where}: {len(documents)} documents, {_how(result)}")
        print(result.table())
    return 0


def _how(result: Evaluation) -> str:
    """How the summaries were chosen, for a report's heading: their length, trigram blocking and,
    where it chose them, the model's summary-level ranker."""
    how = result.selection.describe()
    if result.ranker is not None:
        how += f", the model's ranker over its {result.ranker.candidates} best-scored sentences"
    return how


def _run_yardstick(args: argparse.Namespace, summarizer: Summarizer, selection: SelectionConfig) -> int:
    """`--cnndm`: each source's portion evaluated apart, then the margins over Lead."""
    results = {}
    for part in benchmark.portions(args.cnndm, args.cnndm_dir):
        documents = read_documents(args, _report, part.path, part.split)
        results[part.source] = (part, evaluate(summarizer, documents, selection, args.batch_size))
    per_document = {
        system: {source: result.systems[system].per_document["rouge1"] for source, (_, result) in results.items()}
        for system in ("model", "lead")
    }
    margins = benchmark.margins(per_document["model"], per_document["lead"])
    if args.json:
        report = {
            "portion": args.cnndm,
            "sources": {
                source: {"data": str(part.path), "split": part.split, **result.to_dict()}
                for source, (part, result) in results.items()
            },
            "rouge1_margin_over_lead": {name: asdict(margin) for name, margin in margins.items()},
        }
        print(json.dumps(report, indent=2))
        return 0
    for source, (part, result) in results.items():
        print(f"{source}: {part.path} ({part.split}): {result.documents} documents, {_how(result)}")
        print(result.table())
        print()
    shares = ", ".join(f"{share:.0%} {source}" for source, share in benchmark.MIX.items())
    print("ROUGE-1 over Lead (95% paired bootstrap):")
    for name, margin in margins.items():
        print(f"  {name if name != 'mix' else f'test-split mix ({shares})'}: {margin}")
    return 0


def _report(message: str) -> None:
    print(f"evaluate: {message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
