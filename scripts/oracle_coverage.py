"""How much of an extractive reference the oracle labels cover, per oracle size.

For each article, the sentences that appear verbatim in its reference are the true summary
sentences; the oracle labels (`greedy_oracle` with at most N sentences) should include them.

    python scripts/oracle_coverage.py [--data ../shared/data/bbc-news/train.jsonl] [--sizes 12 30]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from summarizer.text.sentences import reference_sentences, split_sentences
from summarizer.training.data import load_documents
from summarizer.training.oracle import greedy_oracle

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "bbc-news" / "train.jsonl"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sizes", type=int, nargs="+", default=[12, 30])
    args = parser.parse_args(argv)
    if not args.data.is_file():
        raise SystemExit(f"oracle_coverage: data not found: {args.data} (give --data)")
    documents = load_documents(args.data).documents
    pairs = [(split_sentences(d.text), reference_sentences(d.reference)) for d in documents]
    verbatim = [
        {i for i, s in enumerate(sentences) if s.strip() in {r.strip() for r in reference}}
        for sentences, reference in pairs
    ]
    longer = {size: sum(len(reference) > size for _, reference in pairs) for size in args.sizes}
    total = sum(map(len, verbatim))
    print(f"{len(pairs)} articles; {total} article sentences appear verbatim in their reference")
    for size in args.sizes:
        covered = sum(len(v & set(greedy_oracle(s, r, size))) for (s, r), v in zip(pairs, verbatim))
        print(
            f"oracle of at most {size}: {covered / total:.1%} of them labelled 1; "
            f"{longer[size] / len(pairs):.1%} of the references have more than {size} sentences"
        )


if __name__ == "__main__":
    main()
