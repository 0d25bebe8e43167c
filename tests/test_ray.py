"""Ray Data on a local cluster that the tests start and stop: `summarizer.ray` and `summarize --ray`.
The actors run the built-in model (ONNX Runtime: no actor imports torch) unless a test is about
a model without a graph."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_cli import ARTICLE, OTHER

from summarizer.cli.command import main
from summarizer.pipeline import Summarizer
from summarizer.resources import builtin_model_dir

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'bertsum[ray]')")
pytest.importorskip("ray.data")  # which makes ray.data an attribute of ray
pytestmark = pytest.mark.slow
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from summarizer.ray import Summarize, summarize_dataset  # noqa: E402

SCALE = Path(__file__).resolve().parents[1] / "docs" / "scale.md"
TEXTS = [ARTICLE, OTHER, "", None, ARTICLE.replace("river", "canal"), OTHER.replace("library", "museum")]


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    yield
    ray.shutdown()


def test_actors_add_summary_columns_beside_the_input_in_order(cluster: None) -> None:
    rows = [{"id": i, "text": text} for i, text in enumerate(TEXTS)]
    dataset = ray.data.from_items(rows).map_batches(
        Summarize,
        fn_constructor_kwargs={"model": str(builtin_model_dir()), "k": 2},
        compute=ray.data.ActorPoolStrategy(size=2),
        batch_size=2,
    )
    out = dataset.take_all()
    assert [row["id"] for row in out] == list(range(len(TEXTS)))
    assert [row["text"] for row in out] == TEXTS
    good = [0, 1, 4, 5]
    expected = Summarizer.from_pretrained().summarize_batch([TEXTS[i] for i in good], k=2)
    for i, summary in zip(good, expected):
        assert (out[i]["summary"], list(out[i]["indices"]), out[i]["error"]) == (str(summary), summary.indices, None)
        assert list(out[i]["scores"]) == pytest.approx(summary.scores, abs=1e-5)
    assert [(out[i]["summary"], out[i]["error"]) for i in (2, 3)] == [(None, "empty text"), (None, "no text (null)")]


def test_each_actor_loads_the_model_as_the_command_does_with_the_cpus_ray_gave_it(
    cluster: None, tiny_model_dir: Path
) -> None:
    @ray.remote
    def onnx_actor() -> tuple[str, int]:
        summarizer = Summarize().summarizer
        return repr(summarizer), summarizer.model.session.get_session_options().intra_op_num_threads

    @ray.remote
    def torch_actor(model: str) -> int:
        import torch

        Summarize(model)
        return torch.get_num_threads()

    here = repr(Summarizer.from_pretrained())  # the built-in model, as `summarize` resolves it on this machine
    assert ray.get([onnx_actor.options(num_cpus=n).remote() for n in (1, 2)]) == [
        (here.replace("threads=None", f"threads={n}"), n) for n in (1, 2)
    ]
    # A model without a graph runs on torch, with as many threads (torch's own default: every core)
    assert ray.get(torch_actor.options(num_cpus=1).remote(str(tiny_model_dir))) == 1


def test_summarize_dataset_reads_and_writes_parquet(cluster: None, tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"body": text, "summary": "a reference"}) + "\n" for text in TEXTS[:2]))
    dataset = summarize_dataset(
        ray.data.read_json(str(source)), str(builtin_model_dir()), concurrency=1, text_field="body", prefix="bertsum_"
    )
    dataset.write_parquet(str(tmp_path / "out"))
    back = ray.data.read_parquet(str(tmp_path / "out")).take_all()
    assert [row["body"] for row in back] == TEXTS[:2] and [row["summary"] for row in back] == ["a reference"] * 2
    assert all(row["bertsum_summary"] and row["bertsum_error"] is None for row in back)
    with pytest.raises(
        Exception,
        match=r"the input already has a column 'summary'; give the added columns a prefix \(--prefix, prefix=\)",
    ):
        summarize_dataset(ray.data.read_json(str(source)), text_field="body").take_all()


def test_the_command_on_ray_writes_what_it_writes_without(cluster: None, tmp_path: Path, capsys) -> None:
    source = tmp_path / "corpus.jsonl"
    source.write_text("".join(json.dumps({"id": i, "text": text}) + "\n" for i, text in enumerate(TEXTS)))
    outputs = {}
    for name, extra in (("ray", ["--ray", "--actors", "2"]), ("here", ["--text-field", "text"])):
        outputs[name] = tmp_path / f"{name}.jsonl"
        code = main([str(source), "-o", str(outputs[name]), "-k", "2", *extra])
        assert code == 1  # rows 3 and 4 have no text
        assert capsys.readouterr().err.splitlines() == [
            f"summarize: {source}, row 3: empty text",
            f"summarize: {source}, row 4: no text (null)",
        ]
    ray_rows, rows = ([json.loads(line) for line in outputs[name].read_text().splitlines()] for name in ("ray", "here"))
    assert [(r["id"], r["summary"], r["indices"], r["error"]) for r in ray_rows] == [
        (r["id"], r["summary"], r["indices"], r["error"]) for r in rows
    ]

    assert main([str(source), "--ray", "--text-field", "body"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"summarize: {source}: ") and "no column 'body' to summarize" in err
    assert len(err.splitlines()) == 1


def test_the_commands_of_the_scaling_guide_run_as_written(
    cluster: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """docs/scale.md's `summarize ... --ray` block, each line through the command's `main` on this
    module's cluster (tests/test_docs.py runs the guide's other examples)."""
    (block,) = [code for code in re.findall(r"```bash\n(.*?)```", SCALE.read_text(), re.DOTALL) if "--ray" in code]
    commands = [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]
    assert len(commands) >= 2 and all(command[0] == "summarize" for command in commands)
    rows = [{"id": i, "text": text, "body": text} for i, text in enumerate(TEXTS[:2])]
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "corpus.parquet")
    monkeypatch.chdir(tmp_path)
    for command in commands:
        assert main(command[1:]) == 0, capsys.readouterr().err
        output = tmp_path / command[command.index("-o") + 1]
        summaries = pq.read_table(output).to_pylist() if output.suffix == ".parquet" else None
        summaries = summaries or [json.loads(line) for line in output.read_text().splitlines()]
        assert [(row["id"], bool(row["summary"]), row["error"]) for row in summaries] == [
            (0, True, None),
            (1, True, None),
        ]
    # A relative path read on this machine (`local://`), as on a remote cluster
    assert main(["local://corpus.jsonl", "--ray", "--text-field", "body", "-o", "local.jsonl"]) == 0
    assert len((tmp_path / "local.jsonl").read_text().splitlines()) == 2


def test_nothing_else_imports_ray() -> None:
    code = (
        "import sys, summarizer.cli.command, summarizer.pipeline, summarizer.cli.corpus, "
        "summarizer.training.train; print('ray' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr
