"""The last CNN/DailyMail training articles of the fixed shuffle, as a test set in their own form.

    python scripts/heldout_articles.py [--count 700] [--out /tmp/heldout]

Writes the last `--count` articles of the fixed shuffle of `../shared/data/cnndm/train.jsonl`
(`data.shuffle: fixed`: a run on N articles reads the first N of that order, so only a run on
all of them has read these), their sentences and highlights as training reads them
(`data.untokenize`: "do n't" as "don't"), to
OUT/all.jsonl, and split by source to OUT/cnn.jsonl (CNN articles: "cnn" among the first 60
characters, or "( cnn )" or "(cnn)" in the first two sentences) and OUT/dailymail.jsonl (the
rest: Daily Mail's, and CNN partner stories without that mark). Each scores with `python -m
summarizer.evaluate --data OUT/all.jsonl -k 3 --model MODEL`.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from summarizer.training.data import untokenize
from summarizer.training.datamodule import SPLIT_SEED

TRAIN = Path(__file__).resolve().parents[2] / "shared" / "data" / "cnndm" / "train.jsonl"


def is_cnn(sentences: list[str]) -> bool:
    start = " ".join(sentences[:2])[:200]
    return "( cnn )" in start or "(cnn)" in start or "cnn" in start[:60]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=700, help="articles from the end of the shuffle (default 700)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/heldout"), help="folder to write to")
    args = parser.parse_args()
    with TRAIN.open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    order = list(range(len(rows)))
    random.Random(SPLIT_SEED).shuffle(order)  # as SummarizationDataModule orders them
    chosen = [rows[i] for i in order[-args.count :]]
    args.out.mkdir(parents=True, exist_ok=True)
    files = {name: (args.out / f"{name}.jsonl").open("w", encoding="utf-8") for name in ("all", "cnn", "dailymail")}
    counts = dict.fromkeys(files, 0)
    for row in chosen:
        article = [untokenize(sentence) for sentence in row["article"]]
        highlights = untokenize(row["highlights"])
        line = json.dumps({"id": row["id"], "article": article, "highlights": highlights}) + "\n"
        for name in ("all", "cnn" if is_cnn(row["article"]) else "dailymail"):
            files[name].write(line)
            counts[name] += 1
    for file in files.values():
        file.close()
    print(", ".join(f"{args.out / name}.jsonl: {count} articles" for name, count in counts.items()))


if __name__ == "__main__":
    main()
