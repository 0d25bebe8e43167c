"""Summary-level reranking, measured offline: do the model's top candidates hold better summaries
than the ones selection takes, and can the encoder's own sentence embeddings, or the words the
sentences share, find them? And, beside it, a blend of two models' sentence scores.

    python scripts/rerank_study.py features NAME --data DATA [--split S] [-k 3] [--top 5] [--model news] \
        [--embedder minilm|mpnet|model|none]
    python scripts/rerank_study.py fit --train NAME... --test NAME [--features p.sum+lex.doc+...]
    python scripts/rerank_study.py blend --data DATA [--split S] [-k 3 | --ratio R] [--models news news-accurate]

`features` summarizes the documents with MODEL (ONNX Runtime, int8; torch in fp32 with
`--embedder model`), takes each document's `--top` best-scored sentences, and for every
k-sentence combination of them (in document order) writes its ROUGE-1 against the reference and
eleven features to /tmp/rerank/NAME.pkl: the sum, the summed logits and the minimum of its
sentence scores; the cosine between the combination's text and the document's first 512 word
pieces, embedded as all-MiniLM-L6-v2 (or with `--embedder mpnet` all-mpnet-base-v2) embeds
sentences (mean pooling, the packaged encoder, not the trained model), or with `--embedder
model` read from the model's own sentence vectors (its head's output before the score: no
second encoder pass; the document is the mean of its sentences' vectors, a combination the mean
of its own; with `--embedder none` no embeddings, the three cosines 0); the mean cosine of its
sentences to the document and to each other; its log word count; whether it holds the first
sentence; its mean position; and two that need no encoder:
the cosine of its content-word counts (stop words left out, the words lexical centrality reads)
to the document's, and the mean overlap of its sentences' content words, pair by pair (shared
words over the smaller set), spelled as the model's centrality spells them (the scores' and
words' features as `summarizer.ranking.combination_features` computes them). It prints the
ROUGE-1 of the summaries selection takes, of the best combination (the ceiling) and of the score
sum plus lambda times the cosine to the document, embedded or lexical, for a few lambdas
(zero-shot, MatchSum-like); and what reranking costs beside scoring: the word pieces its 1 +
C(top, k) + top encoder inputs hold against the document's own, and the seconds of each
(scoring on ONNX Runtime in int8, the embeddings on torch in fp32, so the time ratio is only
indicative). Documents without a scored sentence are left out. `fit` trains a linear ranker over
the features of the `--train` sets (softmax over each document's combinations against a softmax
of their ROUGE-1 / 2) and prints the ROUGE-1 of its choices on `--test`, for growing feature
sets, with and without the encoder's (or for the one set `--features` names, and then, where
`summarizer.ranking` computes them all, the `ranker` a model's config.json holds for them).
`blend` summarizes the documents with both `--models` (ONNX Runtime, int8; they must read the
same sentences) and prints the ROUGE-1 of the selection (`python -m summarizer.evaluate`'s
options) over (1 - w) times the first model's sentence scores plus w times the second's, for w
from 0 to 1, among the sentences both models score, with trigram blocking unless
`--no-trigram-blocking` (not each model's default). `features`' selection is the model's own
(`news-accurate`: without trigram blocking).
"""

from __future__ import annotations

import argparse
import itertools
import json
import pickle
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

OUT = Path("/tmp/rerank")
FEATURES = (
    "p.sum", "logit.sum", "p.min", "cos.doc", "cos.sentences.doc", "cos.pairs", "log.words", "first", "pos",
    "lex.doc", "lex.pairs",
)  # fmt: skip
# The features `summarizer.ranking` computes, by its names: a set of them fitted here can go into a
# model's config.json (`fit --features` prints it), with the model's `candidates`, `lengths` and
# centrality `words`.
PRODUCT_NAMES = {
    "p.sum": "score_sum", "logit.sum": "logit_sum", "p.min": "score_min", "log.words": "log_words",
    "first": "first_sentence", "pos": "position", "lex.doc": "document_cosine", "lex.pairs": "pair_overlap",
}  # fmt: skip
FEATURE_SETS = (  # columns of FEATURES that `fit` tries, each in turn
    (0,), (0, 3, 5, 1), (0, 3, 5, 1, 2, 4), (0, 3, 5, 1, 2, 4, 7, 8, 6),
    (0, 9), (0, 9, 10), (0, 9, 10, 1, 2), (0, 9, 10, 1, 2, 7, 8, 6), tuple(range(len(FEATURES))),
)  # fmt: skip


def features(args: argparse.Namespace) -> None:
    import torch
    from transformers import AutoModel, AutoTokenizer

    from summarizer import Summarizer
    from summarizer.modeling.modeling_bertsum import BertSumModel
    from summarizer.ranking import combination_features
    from summarizer.resources import default_encoder_dir, mpnet_encoder_dir
    from summarizer.selection import SelectionConfig
    from summarizer.text.centrality import DEFAULT_WORDS
    from summarizer.training.data import load_documents
    from summarizer.training.evaluate import summarize_documents
    from summarizer.training.rouge import rouge_per_document

    encoder_dir = mpnet_encoder_dir() if args.embedder == "mpnet" else default_encoder_dir()
    tokenizer = AutoTokenizer.from_pretrained(encoder_dir)  # counts word pieces in every mode
    # the embedder itself only where the cosines are embedded
    encoder = AutoModel.from_pretrained(encoder_dir).eval() if args.embedder in ("minilm", "mpnet") else None

    def embed(texts: list[str], max_length: int) -> np.ndarray:
        batch = tokenizer(texts, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
        assert encoder is not None
        with torch.inference_mode():
            hidden = encoder(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        return torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1).numpy()

    own_vectors = args.embedder == "model"
    if own_vectors:  # the head's sentence vectors, before its score: one document per batch, in order
        summarizer = Summarizer.from_pretrained(args.model, backend="torch", precision="fp32")
        model = summarizer.model
        assert isinstance(model, BertSumModel)
        head, norm = model.head, getattr(model.head, "norm", None)
        if not isinstance(norm, torch.nn.Module):
            raise SystemExit(f"{args.model}: its head has no norm before its score to read vectors from")
        captured: list[dict[int, np.ndarray]] = []  # per document: place among its scored sentences -> vector
        inputs: list[tuple] = []
        head.register_forward_pre_hook(lambda _m, args_: inputs.append(args_))

        def keep(_module: object, _inputs: object, out: torch.Tensor) -> None:
            _, mask, first = inputs.pop()
            rows = out.detach().float().numpy()
            places = {}
            for r in range(rows.shape[0]):
                offset = 0 if first is None else int(first[r])
                for j in np.flatnonzero(mask[r].numpy()):
                    places[offset + int(j)] = rows[r, j]
            captured.append(places)

        norm.register_forward_hook(keep)
    else:
        summarizer = Summarizer.from_pretrained(args.model, backend="onnx", precision="int8")
    summarizer.ranker = None  # the study reranks the selection by score, not the model's own ranker's
    documents = load_documents(args.data, args.split).documents
    selection = SelectionConfig(k=args.k)
    split, references, stream = summarize_documents(summarizer, documents, selection)
    if own_vectors:  # one document a call, so that the head's calls follow the documents' order
        stream = (
            summary
            for sentences, document in zip(split, documents)
            for summary in summarizer.summarize_batch(
                [sentences], 1, **asdict(selection), language=document.language or summarizer.language
            )
        )
    start = time.perf_counter()
    summaries = list(stream)
    if own_vectors and len(captured) != len(summaries):
        raise SystemExit(f"the head ran {len(captured)} times for {len(summaries)} documents")
    scoring_seconds, embedding_seconds = time.perf_counter() - start, 0.0
    language = summarizer.language
    settings = summarizer.model.config.features
    spelling = settings.centrality_words if settings.centrality else DEFAULT_WORDS

    def rouge1(reference: list[str], sentences: list[str]) -> float:
        return rouge_per_document([sentences], [reference], language)["rouge1"][0]

    def pieces(texts: list[str], max_length: int | None = None) -> int:
        lengths = (len(ids) for ids in tokenizer(texts, add_special_tokens=False)["input_ids"])
        return sum(length if max_length is None else min(length, max_length - 2) for length in lengths)

    def unit(x: np.ndarray) -> np.ndarray:
        return x / (np.linalg.norm(x, axis=-1, keepdims=True) + 1e-9)

    rows, document_pieces, rerank_pieces = [], 0, 0
    for number, (summary, reference) in enumerate(zip(summaries, references)):
        doc, scores = summary.document, summary.sentence_scores
        top = sorted((i for i, s in enumerate(scores) if s is not None), key=lambda i: -(scores[i] or 0.0))[: args.top]
        if not top:
            continue
        combos = [tuple(sorted(c)) for c in itertools.combinations(top, min(args.k, len(top)))]
        combo_texts = [" ".join(doc[i] for i in c) for c in combos]
        document_pieces += pieces(doc)
        start = time.perf_counter()
        if own_vectors:  # slot j holds the j-th scored sentence
            scored = [i for i, s in enumerate(scores) if s is not None]
            vectors = {scored[place]: vector for place, vector in captured[number].items()}
            document = unit(np.mean([vectors[i] for i in scored], axis=0))
            texts = unit(np.array([np.mean([vectors[i] for i in c], axis=0) for c in combos]))
            own = {i: unit(vectors[i]) for i in top}
        elif args.embedder == "none":  # the three cosines read 0
            document, texts, own = np.zeros(1), np.zeros((len(combos), 1)), {i: np.zeros(1) for i in top}
        else:
            rerank_pieces += pieces([" ".join(doc)], 512) + pieces(combo_texts, 256)
            rerank_pieces += pieces([doc[i] for i in top], 128)
            document = embed([" ".join(doc)], 512)[0]
            texts = embed(combo_texts, 256)
            own = dict(zip(top, embed([doc[i] for i in top], 128)))
        embedding_seconds += time.perf_counter() - start
        table = []
        for combo, text in zip(combos, texts):
            # the scores' and words' features as the product computes them; the embedded cosines here
            product = combination_features(doc, combo, [scores[i] for i in combo], language, spelling)
            pairs = [own[a] @ own[b] for a, b in itertools.combinations(combo, 2)]
            named = {study: product[name] for study, name in PRODUCT_NAMES.items()}
            named["cos.doc"] = text @ document
            named["cos.sentences.doc"] = np.mean([own[i] @ document for i in combo])
            named["cos.pairs"] = np.mean(pairs) if pairs else 0.0
            table.append([named[name] for name in FEATURES])
        rows.append(
            (
                np.array(table),
                np.array([rouge1(reference, [doc[i] for i in c]) for c in combos]),
                rouge1(reference, summary.sentences),
            )
        )
    OUT.mkdir(exist_ok=True)
    with open(OUT / f"{args.name}.pkl", "wb") as file:
        pickle.dump(rows, file)
    print(
        f"{args.name}: {len(rows)} documents; selection {np.mean([r[2] for r in rows]):.2f}, "
        f"best of the top {args.top}'s combinations {np.mean([r[1].max() for r in rows]):.2f}"
    )
    for lam in (0.0, 0.25, 0.5, 1.0, 2.0, 1000.0):
        embedded, lexical = ([r[1][np.argmax(r[0][:, 0] + lam * r[0][:, c])] for r in rows] for c in (3, 9))
        print(
            f"  score sum + {lam:g} x cosine to the document: embedded {np.mean(embedded):.2f}, "
            f"lexical {np.mean(lexical):.2f}"
        )
    print(
        f"cost: the reranking's encoder inputs hold {rerank_pieces / document_pieces:.2f} times the documents' "
        f"word pieces; {embedding_seconds:.0f} s of embeddings against {scoring_seconds:.0f} s of scoring"
    )


def fit(args: argparse.Namespace) -> None:
    def load(name: str) -> list:
        with open(OUT / f"{name}.pkl", "rb") as file:
            return pickle.load(file)

    train = [r for name in args.train for r in load(name) if len(r[1]) > 1]
    test = load(args.test)
    sets = [[FEATURES.index(name) for name in args.features.split("+")]] if args.features else FEATURE_SETS
    for columns in map(list, sets):
        size = len(columns)
        x = np.concatenate([r[0][:, columns] for r in train])
        mean, std = x.mean(0), x.std(0) + 1e-9
        inputs = [(r[0][:, columns] - mean) / std for r in train]
        targets = [np.exp((r[1] - r[1].max()) / 2.0) for r in train]
        targets = [t / t.sum() for t in targets]
        weights = np.zeros(size)
        for _ in range(3000):
            gradient = np.zeros(size)
            for features_, target in zip(inputs, targets):
                z = features_ @ weights
                p = np.exp(z - z.max())
                gradient += features_.T @ (p / p.sum() - target)
            weights -= 0.05 * (gradient / len(inputs) + 1e-3 * weights)
        chosen = [r[1][np.argmax(((r[0][:, columns] - mean) / std) @ weights)] for r in test]
        print(
            f"{'+'.join(FEATURES[c] for c in columns)}: {np.mean(chosen):.2f} on {args.test} "
            f"(selection {np.mean([r[2] for r in test]):.2f})"
        )
        if args.features and all(FEATURES[c] in PRODUCT_NAMES for c in columns):  # the model's config.json's
            numbers = {"mean": mean, "std": std, "weights": weights}
            ranker = {
                "features": [PRODUCT_NAMES[FEATURES[c]] for c in columns],
                **{name: [float(f"{v:.6g}") for v in values] for name, values in numbers.items()},
            }
            print(f'"ranker": {json.dumps(ranker)}')


def blend(args: argparse.Namespace) -> None:
    from summarizer import Summarizer
    from summarizer.options import selection_from
    from summarizer.selection import select_sentences
    from summarizer.training.data import load_documents
    from summarizer.training.evaluate import summarize_documents
    from summarizer.training.rouge import rouge_per_document

    documents = load_documents(args.data, args.split).documents
    selection = selection_from(args)
    runs: list[list[list[float | None]]] = []
    sentences: list[list[str]] = []
    language = ""
    for name in args.models:  # one model in memory at a time
        summarizer = Summarizer.from_pretrained(name, backend="onnx", precision="int8")
        summarizer.ranker = None  # blended scores are selected by score
        _, references, stream = summarize_documents(summarizer, documents, selection)
        summaries = list(stream)
        runs.append([summary.sentence_scores for summary in summaries])
        read = [summary.document for summary in summaries]
        if sentences and read != sentences:
            raise SystemExit(f"{args.models[0]} and {name} split the documents into different sentences")
        if language and summarizer.language != language:
            raise SystemExit(f"{args.models[0]} reads {language}, {name} {summarizer.language}")
        sentences, language = read, summarizer.language
    both = [
        [(i, a, b) for i, (a, b) in enumerate(zip(first, second, strict=True)) if a is not None and b is not None]
        for first, second in zip(*runs, strict=True)
    ]
    selection = selection.for_model(True)  # both models' scores alike, whatever either's default
    print(f"trigram blocking {'on' if selection.trigram_blocking else 'off'} (--no-trigram-blocking: off)")
    for weight in (0.0, 0.25, 0.5, 0.75, 1.0):
        chosen = []
        for doc, scored in zip(sentences, both, strict=True):
            blended = [(1 - weight) * a + weight * b for _, a, b in scored]
            picked = select_sentences(doc, [i for i, _, _ in scored], blended, selection, language)
            chosen.append([doc[i] for i in picked])
        rouge1 = np.mean(rouge_per_document(chosen, references, language)["rouge1"])
        print(f"{1 - weight:g} x {args.models[0]} + {weight:g} x {args.models[1]}: ROUGE-1 {rouge1:.2f}")


def main() -> None:
    from summarizer.options import add_selection_arguments

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest="verb", required=True)
    one = verbs.add_parser("features")
    one.add_argument("name")
    one.add_argument("--data", required=True)
    one.add_argument("--split")
    one.add_argument("-k", type=int, default=3)
    one.add_argument("--top", type=int, default=5)
    one.add_argument("--model", default="news")
    one.add_argument("--embedder", choices=("minilm", "mpnet", "model", "none"), default="minilm")
    two = verbs.add_parser("fit")
    two.add_argument("--train", nargs="+", required=True)
    two.add_argument("--test", required=True)
    two.add_argument("--features", help="one set to fit, its names joined by + (default: each of FEATURE_SETS)")
    three = verbs.add_parser("blend")
    three.add_argument("--data", required=True)
    three.add_argument("--split")
    add_selection_arguments(three, summaries=False)
    three.add_argument("--models", nargs=2, default=["news", "news-accurate"])
    args = parser.parse_args()
    {"features": features, "fit": fit, "blend": blend}[args.verb](args)


if __name__ == "__main__":
    main()
