"""Whether every way to summarize chooses the same sentences, on real articles.

The first `--limit` validation articles of BBC News and of CNN/DailyMail go through the five
ways: the `summarize` command on one file per article, `Summarizer.summarize` one at a time,
`Summarizer.summarize_batch`, table mode (`summarize rows.jsonl --text-field text`) and Ray Data
(`summarize rows.jsonl --ray`), all with the built-in model as it resolves by default. Prints,
for each way, how many articles got the very indices of `summarize_batch`.
`--without-torch` makes torch and transformers unimportable here and in every process started
(Ray's workers too), as on `pip install 'bertsum[ray]'` alone.

    python scripts/same_summaries.py [--limit 100] [--without-torch]
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SOURCES = {
    "BBC News": (DATA / "bbc-news" / "validation.jsonl", "text"),
    "CNN/DailyMail": (DATA / "cnndm" / "validation.jsonl", "article"),
}
WITHOUT_TORCH = "import sys\nsys.modules['torch'] = sys.modules['transformers'] = None\n"
COMMAND = "from bertsum.launch import summarize; summarize()"


def command(env: dict[str, str], *args: str) -> list[dict[str, object]]:
    done = subprocess.run([sys.executable, "-c", COMMAND, *args], capture_output=True, text=True, env=env, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--without-torch", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="same-summaries-"))
    env = dict(os.environ)
    if args.without_torch:
        exec(WITHOUT_TORCH)
        (work / "sitecustomize.py").write_text(WITHOUT_TORCH)
        env["PYTHONPATH"] = os.pathsep.join([str(work), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))])
    from summarizer import Summarizer

    summarizer = Summarizer.from_pretrained()
    print(f"{summarizer!r}, torch importable: {importlib.util.find_spec('torch') is not None}")
    for name, (path, field) in SOURCES.items():
        with path.open(encoding="utf-8") as lines:
            texts = [json.loads(line)[field] for line in itertools.islice(lines, args.limit)]
        folder = work / name.replace("/", "-")
        folder.mkdir()
        for i, text in enumerate(texts):
            (folder / f"{i:04d}.txt").write_text(text, encoding="utf-8")
        rows = work / f"{folder.name}.jsonl"
        rows.write_text("".join(json.dumps({"text": text}) + "\n" for text in texts), encoding="utf-8")
        ways = {
            "summarize_batch": [s.indices for s in summarizer.summarize_batch(texts)],
            "Summarizer.summarize": [summarizer.summarize(text).indices for text in texts],
            "summarize FILES": [r["indices"] for r in command(env, str(folder), "--format", "jsonl")],
            "summarize TABLE --text-field": [r["indices"] for r in command(env, str(rows), "--text-field", "text")],
            "summarize TABLE --ray": [r["indices"] for r in command(env, str(rows), "--ray")],
        }
        reference = ways["summarize_batch"]
        for way, indices in ways.items():
            same = sum(a == b for a, b in zip(indices, reference))
            print(f"{name}, {len(texts)} articles, {way}: the same indices for {same}/{len(texts)}", flush=True)


if __name__ == "__main__":
    main()
