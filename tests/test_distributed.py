"""Real distributed training on the CPU (gloo) with the tiny encoder: two processes on one
node, and two "nodes" on this machine that find each other over 127.0.0.1.

The two-node runs give each node its own run directory, as machines without shared storage
would have: whatever the second node writes shows there. `--resume` on such nodes needs the
checkpoint on each, so it is copied to the second node's directory before resuming.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from test_train import TINY, document, tiny_overrides

from summarizer.modeling.modeling_bertsum import BertSumModel
from summarizer.pipeline import Summarizer
from summarizer.training.data import load_documents
from summarizer.training.evaluate import evaluate
from summarizer.training.settings import load_config

pytestmark = pytest.mark.slow

RUN = Path(__file__).with_name("distributed_run.py")
TIMEOUT = 240  # seconds; a node whose peer died waits for it until killed
TRAIN_DOCUMENTS = 16  # 2 per batch, 2 processes: 4 steps an epoch, each process 4 batches
SETTINGS = (
    "trainer.max_epochs=2",
    "trainer.accelerator=cpu",
    "trainer.strategy=ddp",
    "checkpoint.every_n_steps=2",
    "data.batch_size=2",
    "data.bucket_batches=2",
)
CRASH_AT = "1:3"  # epoch 1, 4th batch: the last checkpoint is from step 6, 2 batches into epoch 1


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Training documents of 6 to 20 sentences, so that the sampler groups them by length."""
    rng = random.Random(1)
    directory = tmp_path_factory.mktemp("distributed-data")
    for split, count in (("train", TRAIN_DOCUMENTS), ("validation", 4), ("test", 4)):
        rows = [document(rng, i, rng.randint(6, 20)) for i in range(count)]
        (directory / f"{split}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return directory


def free_port() -> int:
    """A free port below the range the system hands to whoever asks for any free port (Linux's
    ephemeral range), so that between this probe and the run's bind no other process (Lightning,
    Ray, another test process) is given it."""
    try:
        ephemeral = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        ephemeral = 32768  # Linux's default
    for port in random.Random().sample(range(10000, max(ephemeral, 10100)), 100):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port between 10000 and {ephemeral}")


def start(args: list[str], env: dict[str, str], records: Path, crash: bool = False) -> subprocess.Popen[str]:
    records.mkdir(exist_ok=True)
    # One thread a process, as Lightning gives each of two processes on one node: the same sums
    # in the same order whatever the layout, so runs can be compared bit for bit.
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "RECORD_DIR": str(records), "OMP_NUM_THREADS": "1", **env}
    env.pop("CRASH_AT", None)
    if crash:
        env["CRASH_AT"] = CRASH_AT
    command = [sys.executable, str(RUN), "--config", str(TINY), *args]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )


def finish(*processes: subprocess.Popen[str]) -> list[tuple[int, str, str]]:
    """Exit status, stdout and stderr of each process; all are killed if one outlives TIMEOUT."""
    results = []
    try:
        for process in processes:
            stdout, stderr = process.communicate(timeout=TIMEOUT)
            results.append((process.returncode, stdout, stderr))
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    return results


def records(directory: Path) -> dict[int, dict[int, list[str]]]:
    """rank -> epoch -> the ids of the documents that rank trained on, in order."""
    out: dict[int, dict[int, list[str]]] = {}
    for path in sorted(directory.glob("rank-*.jsonl")):
        rank = int(path.stem.removeprefix("rank-"))
        for line in path.read_text().splitlines():
            epoch, _, ids = json.loads(line)
            out.setdefault(rank, {}).setdefault(epoch, []).extend(ids)
    return out


def node(rank: int, port: int) -> dict[str, str]:
    return {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "NODE_RANK": str(rank), "GLOO_SOCKET_IFNAME": "lo"}


@pytest.fixture(scope="module")
def runs(tiny_encoder_dir: Path, data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """One node of 2 processes, unbroken; and 2 nodes of one process each that crash in
    epoch 1 and then resume. The first and the crashing runs go side by side."""
    root = tmp_path_factory.mktemp("distributed")
    single = tiny_overrides(tiny_encoder_dir, data, root / "single", *SETTINGS, "trainer.devices=2")
    per_node = [
        tiny_overrides(
            tiny_encoder_dir, data, root / f"node{rank}", *SETTINGS, "trainer.devices=1", "trainer.num_nodes=2"
        )
        for rank in (0, 1)
    ]
    port = free_port()
    running = [
        start(single, {}, root / "single-records"),
        *(start(per_node[rank], node(rank, port), root / "crash-records", crash=True) for rank in (0, 1)),
    ]
    single_run, *crashed = finish(*running)
    node1 = root / "node1" / "tiny"
    node1_before = sorted(p.relative_to(node1) for p in node1.rglob("*")) if node1.exists() else []
    last = root / "node0" / "tiny" / "checkpoints" / "last.ckpt"
    if last.exists():  # the second node has no shared storage: it gets a copy of the checkpoint
        (node1 / "checkpoints").mkdir(parents=True, exist_ok=True)
        shutil.copy(last, node1 / "checkpoints" / "last.ckpt")
    port = free_port()
    resumed = finish(
        *(start([*per_node[rank], "--resume"], node(rank, port), root / "resume-records") for rank in (0, 1))
    )
    return {
        "root": root,
        "single": single_run,
        "crashed": crashed,
        "resumed": resumed,
        "node1_after_crash": node1_before,
    }


def test_two_processes_train_on_their_own_shares_of_the_documents(runs: dict, data: Path) -> None:
    code, stdout, stderr = runs["single"]
    assert code == 0, stderr[-3000:]
    trained = records(runs["root"] / "single-records")
    assert sorted(trained) == [0, 1]
    every = {f"doc-{i}" for i in range(TRAIN_DOCUMENTS)}
    for epoch in (0, 1):
        first, second = trained[0][epoch], trained[1][epoch]
        assert len(first) == len(second) == TRAIN_DOCUMENTS // 2  # in step: as many batches each
        assert set(first).isdisjoint(second) and set(first) | set(second) == every
    assert trained[0][0] != trained[0][1]  # reshuffled each epoch
    assert stdout.count("Test ROUGE F1") == 1 and stdout.count("Model exported to") == 1  # one report, from rank 0


def test_the_export_is_the_best_checkpoint_and_the_reported_scores_are_its(runs: dict, data: Path) -> None:
    code, stdout, stderr = runs["single"]
    assert code == 0, stderr[-3000:]
    run_dir = runs["root"] / "single" / "tiny"
    exported = run_dir / "model"
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= {p.name for p in exported.iterdir()}
    assert json.loads((exported / "config.json").read_text())["model_type"] == "bertsum"
    (best,) = (
        line.split(": ", 1)[1].rsplit(" (", 1)[0]
        for line in stdout.splitlines()
        if line.startswith("Best checkpoint: ")
    )
    assert Path(best).parent == run_dir / "checkpoints" and "val_rouge" in Path(best).name
    state = torch.load(best, map_location="cpu", weights_only=True)["state_dict"]
    weights = load_file(str(exported / "model.safetensors"))
    assert weights.keys() == {k.removeprefix("model.") for k in state}
    assert all(torch.equal(weights[k.removeprefix("model.")], v) for k, v in state.items())
    BertSumModel.from_pretrained(exported)  # loads without Lightning
    test = load_documents(data / "test.jsonl").documents
    expected = evaluate(Summarizer.from_pretrained(exported), test, load_config(TINY).selection)
    assert expected.table() in stdout


def test_two_nodes_meet_over_loopback_and_only_the_first_writes(runs: dict) -> None:
    for code, _stdout, stderr in runs["crashed"]:
        assert code == 1, stderr[-3000:]
        assert "unexpected error: RuntimeError: simulated crash" in stderr and "Traceback" not in stderr
    crashed = records(runs["root"] / "crash-records")
    assert sorted(crashed) == [0, 1] and set(crashed[0][0]).isdisjoint(crashed[1][0])
    assert runs["node1_after_crash"] == []  # nothing written on the second node
    for code, _, stderr in runs["resumed"]:
        assert code == 0, stderr[-3000:]
    node0, node1 = runs["root"] / "node0" / "tiny", runs["root"] / "node1" / "tiny"
    assert (node0 / "model" / "model.safetensors").exists() and (node0 / "config.yaml").exists()
    assert sorted(p.relative_to(node1) for p in node1.rglob("*")) == [
        Path("checkpoints"),
        Path("checkpoints/last.ckpt"),
    ]
    assert runs["resumed"][0][1].count("Test ROUGE F1") == 1 and "Test ROUGE" not in runs["resumed"][1][1]


def test_resuming_two_nodes_from_a_ddp_checkpoint_matches_the_unbroken_run(runs: dict) -> None:
    assert all(code == 0 for code, _, _ in (runs["single"], *runs["resumed"]))
    unbroken = records(runs["root"] / "single-records")
    resumed = records(runs["root"] / "resume-records")
    for rank in (0, 1):  # the resumed epoch skips the 2 batches (4 documents) the checkpoint holds
        assert resumed[rank] == {1: unbroken[rank][1][4:]}
    first = load_file(str(runs["root"] / "single" / "tiny" / "model" / "model.safetensors"))
    second = load_file(str(runs["root"] / "node0" / "tiny" / "model" / "model.safetensors"))
    assert first.keys() == second.keys() and all(torch.equal(first[k], second[k]) for k in first)
