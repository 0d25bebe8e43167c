"""bertsum against bert-extractive-summarizer, same encoder, same documents, back to back.

bertsum's `summarize_batch` (the built-in model: all-MiniLM-L6-v2 and a trained head) and
bert-extractive-summarizer 0.10.1 (`Summarizer(custom_model=MiniLM, custom_tokenizer=...)`, one
document at a time, as its README shows) summarize the same BBC News validation articles (40% of
the sentences) and CNN/DailyMail validation articles (3 sentences). Prints documents per second
of each and the ratio, for bertsum on ONNX Runtime and on torch at each of `--precisions` (fp32
and int8; "(default)" marks what `--precision auto` picks for each backend on this CPU), and
the `news-accurate` model at each backend's default precision (and on torch in bf16 where the
CPU computes it natively) when its encoder packages are installed, so that what accuracy costs
shows beside the default; with `--compare DIR`, a model directory (another version of the
default, a model you trained) at the default's backend and precision, in the same rounds as the
default; then the time from process start to output of `summarize one.txt` on each backend, at
its default precision. bertsum's settings take turns over `--rounds` rounds,
and each reports its best round.

    python scripts/bench_peer.py [--limit 60] [--rounds 3] [--peer-venv .venv-peer]
        [--precisions fp32 int8] [--no-accurate] [--compare DIR]

The peer needs transformers 4.35 (newer releases break its imports), so it runs in a virtual
environment of its own, built on first use outside the project's `.venv`: torch 2.13.0 (the CPU
wheel), transformers 4.35.2, bert-extractive-summarizer 0.10.1 (which imports as `summarizer`
too: it runs from a temporary folder, never beside this package).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import onnxruntime
import torch

from summarizer.console import positive_int
from summarizer.errors import InputError
from summarizer.pipeline import Summarizer
from summarizer.resources import builtin_model_dir, default_encoder_dir
from summarizer.runtime.backends import encoder_width
from summarizer.runtime.precision import PRECISIONS, native_bf16_cpu, resolve_precision

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
DATASETS = {  # name: (file, text field, summary length for bertsum, the same for the peer)
    "BBC News (40%)": (SHARED / "bbc-news" / "validation.jsonl", "text", {"ratio": 0.4}, {"ratio": 0.4}),
    "CNN/DailyMail (3 sentences)": (SHARED / "cnndm" / "validation.jsonl", "article", {"k": 3}, {"num_sentences": 3}),
}
PEER_PACKAGES = ["transformers==4.35.2", "bert-extractive-summarizer==0.10.1"]
PEER_DRIVER = """
import json, sys, time
from transformers import AutoConfig, AutoModel, AutoTokenizer
from summarizer import Summarizer  # bert-extractive-summarizer's

encoder, documents, options = sys.argv[1], json.load(open(sys.argv[2])), json.loads(sys.argv[3])
config = AutoConfig.from_pretrained(encoder)
config.output_hidden_states = True
model = Summarizer(
    custom_model=AutoModel.from_pretrained(encoder, config=config),
    custom_tokenizer=AutoTokenizer.from_pretrained(encoder),
)
model(documents[0], **options)  # warm-up
start = time.perf_counter()
for document in documents:
    model(document, **options)
print(time.perf_counter() - start)
"""


def peer_python(venv: Path) -> Path:
    """The peer's interpreter, its environment built first if missing."""
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"Building {venv} for bert-extractive-summarizer (once)...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, "torch==2.13.0"], check=True)  # the CPU wheel on disk, not a CUDA build
        subprocess.run([*pip, *PEER_PACKAGES], check=True)
    return python


def peer_seconds(python: Path, documents: list[str], options: dict[str, object]) -> float:
    with tempfile.TemporaryDirectory() as folder:  # away from this checkout's `summarizer`
        (Path(folder) / "driver.py").write_text(PEER_DRIVER)
        (Path(folder) / "documents.json").write_text(json.dumps(documents))
        done = subprocess.run(
            [str(python), "driver.py", str(default_encoder_dir()), "documents.json", json.dumps(options)],
            cwd=folder,
            check=True,
            capture_output=True,
            text=True,
            env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": str(torch.get_num_threads())},
        )
    return float(done.stdout.strip().splitlines()[-1])


def start_to_output(backend: str, runs: int = 3) -> float:
    """Median seconds of `summarize --backend BACKEND one.txt`, from process start to exit, on a warm disk."""
    launcher = "from bertsum.launch import summarize; summarize()"
    text = json.loads(next(open(DATASETS["BBC News (40%)"][0])))["text"]
    with tempfile.TemporaryDirectory() as folder:
        document = Path(folder) / "one.txt"
        document.write_text(text)
        times = []
        for _ in range(runs + 1):  # the first run warms the disk cache
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-c", launcher, "--backend", backend, str(document)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            times.append(time.perf_counter() - start)
    return statistics.median(times[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=60, help="documents of each dataset (default 60)")
    parser.add_argument("--peer-venv", type=Path, default=ROOT / ".venv-peer", help="the peer's virtual environment")
    parser.add_argument("--batch-size", type=int, default=16, help="bertsum's batch size")
    parser.add_argument(
        "--rounds", type=positive_int, default=3, help="rounds of bertsum's settings in turn (default 3)"
    )
    parser.add_argument(
        "--precisions", nargs="+", choices=PRECISIONS, default=["fp32", "int8"], help="bertsum's precisions on torch"
    )
    parser.add_argument("--no-accurate", action="store_true", help="leave out the news-accurate model")
    parser.add_argument("--compare", type=Path, help="a model directory to time beside the default, as it runs")
    args = parser.parse_args()

    python = peer_python(args.peer_venv)
    ours, default = {}, {}
    accurate: list[tuple[str, str]] = []  # news-accurate's (backend, precision)
    for backend in ("onnx", "torch"):
        default[backend] = f"{backend} {resolve_precision('auto', 'cpu', backend)}"
        for precision in args.precisions:
            ours[f"{backend} {precision}"] = Summarizer.from_pretrained(precision=precision, backend=backend)
    if args.compare is not None:
        backend, precision = default["onnx"].split()
        ours[f"{args.compare} {backend} {precision}"] = Summarizer.from_pretrained(
            args.compare, precision=precision, backend=backend
        )
    if not args.no_accurate:
        try:
            width = encoder_width(builtin_model_dir("news-accurate"))
            accurate += [(backend, resolve_precision("auto", "cpu", backend, width)) for backend in ("onnx", "torch")]
            # torch's other fast precisions beside its default: int8, and bf16 where the CPU computes it natively
            others = ["int8", "bf16"] if native_bf16_cpu() else ["int8"]
            accurate += [("torch", other) for other in others if ("torch", other) not in accurate]
            default["news-accurate"] = f"news-accurate {default['onnx']}"
            for backend, precision in accurate:
                ours[f"news-accurate {backend} {precision}"] = Summarizer.from_pretrained(
                    "news-accurate", precision=precision, backend=backend
                )
        except InputError as error:  # its weights' or its encoder's packages are not installed
            print(f"news-accurate left out: {error}")
    print(
        f"CPU capability: {torch.backends.cpu.get_cpu_capability()}, torch threads: "
        f"{torch.get_num_threads()}, onnxruntime {onnxruntime.__version__}"
    )
    for name, (path, field, options, peer_options) in DATASETS.items():
        with path.open(encoding="utf-8") as lines:
            documents = [json.loads(line)[field] for line in itertools.islice(lines, args.limit)]
        bertsum = {}
        # Each model's settings in rounds, in turn, the best round of each kept: a setting is not
        # favoured by when it ran on a noisy machine, nor by the one before it (a runtime's
        # threads keep spinning for a while after a call). news-accurate's rounds come after
        # the default model's, not among them, which they slowed (docs/benchmarks.md).
        for model in ("news", "news-accurate"):
            settings = {
                s: summarizer for s, summarizer in ours.items() if s.startswith("news-accurate ") == (model != "news")
            }
            for summarizer in settings.values():  # warm-up
                list(summarizer.summarize_batch(documents[: args.batch_size], args.batch_size, **options))
            seconds: dict[str, list[float]] = {setting: [] for setting in settings}
            for _ in range(args.rounds):
                for setting, summarizer in settings.items():
                    start = time.perf_counter()
                    list(summarizer.summarize_batch(documents, args.batch_size, **options))
                    seconds[setting].append(time.perf_counter() - start)
            bertsum.update({setting: len(documents) / min(times) for setting, times in seconds.items()})
        peer = len(documents) / peer_seconds(python, documents, peer_options)
        marked = {setting + " (default)" * (setting in default.values()): speed for setting, speed in bertsum.items()}
        pairs = dict.fromkeys(
            [
                (default["onnx"], default["torch"]),
                ("onnx fp32", "torch fp32"),
                ("onnx int8", "torch int8"),
                *([(f"{args.compare} {default['onnx']}", default["onnx"])] if args.compare is not None else []),
                *[(default["news-accurate"], f"news-accurate {b} {p}") for b, p in accurate[1:]],
            ]
        )
        ratios = [f"{a} / {b}: {bertsum[a] / bertsum[b]:.2f}x" for a, b in pairs if a in bertsum and b in bertsum]
        print(
            f"{name}, {len(documents)} documents: bert-extractive-summarizer {peer:.2f} docs/s; bertsum "
            + ", ".join(f"{setting} {speed:.2f} docs/s ({speed / peer:.2f}x)" for setting, speed in marked.items())
            + "; "
            + ", ".join(ratios)
        )
    times = {backend: start_to_output(backend) for backend in ("onnx", "torch")}
    print(
        "summarize one.txt at the default precision, start to output (median of 3, warm disk): "
        + ", ".join(f"{backend} {seconds:.2f} s" for backend, seconds in times.items())
        + f"; torch / onnx: {times['torch'] / times['onnx']:.2f}x"
    )


if __name__ == "__main__":
    main()
