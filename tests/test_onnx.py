"""The ONNX Runtime path: the same scores as torch, no torch or transformers imported, graphs
that travel with their models, one line for every directory it cannot use."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import TINY_HEAD, export

from summarizer import Summarizer
from summarizer.errors import InputError
from summarizer.modeling.modeling_bertsum import BertSumModel, load_tokenizer
from summarizer.modeling.settings import WEIGHTS_FILE
from summarizer.resources import BUILTIN_MODELS, builtin_model_dir
from summarizer.runtime import precision
from summarizer.runtime.backends import GRAPH_FILE, INT8_GRAPH_FILE, resolve_backend
from summarizer.runtime.onnx_export import export_graph
from summarizer.runtime.onnx_model import (
    WORD_TABLE,
    OnnxModel,
    _calls,
    header_digest,
    quantize,
    read_header,
    weight_files,
)

TEXTS = [
    "The city council met on Monday to discuss the budget. Members argued for hours about school funding. "
    "The mayor proposed a new tax on luxury cars. Several residents spoke against the proposal.\n"
    "A final vote is expected next month.",
    "Yes. No.",
    ["The committee will publish its findings tomorrow.", "Nobody knows what they will say about the river."],
    " ".join(f"Sentence {i} tells how the harbour at {i} changed in the year {1900 + i}." for i in range(700)),
]
# Torch closes without a module named torch: the ONNX path must not need it.
WITHOUT_TORCH = "import sys; sys.modules['torch'] = sys.modules['transformers'] = None; "


@pytest.mark.parametrize("backend", ["onnx", "torch"])
def test_a_model_that_says_so_summarizes_without_trigram_blocking(
    graph_dir: Path, tmp_path: Path, backend: str, repeated: list[str]
) -> None:
    directory = tmp_path / "model"
    shutil.copytree(graph_dir, directory)
    config = json.loads((directory / "config.json").read_text())
    assert config["trigram_blocking"] is True  # every model writes its setting
    on = Summarizer.from_pretrained(directory, precision="fp32", backend=backend)
    (directory / "config.json").write_text(json.dumps({**config, "trigram_blocking": False}))
    off = Summarizer.from_pretrained(directory, precision="fp32", backend=backend)
    assert on.summarize(repeated, k=2).indices[0] == 0  # one repeating sentence, then the other
    assert off.summarize(repeated, k=2).indices[0] != 0  # the two best scored
    assert off.summarize(repeated, k=2, trigram_blocking=True).indices[0] == 0  # the caller's choice wins
    (directory / "config.json").write_text(json.dumps({**config, "trigram_blocking": "no"}))
    with pytest.raises(InputError, match=r"config\.json: invalid settings: trigram_blocking must be true or false"):
        Summarizer.from_pretrained(directory, precision="fp32", backend=backend)


def _scores(summarizer: Summarizer, texts) -> list[tuple[list[int], list[float | None]]]:
    return [(s.indices, s.sentence_scores) for s in summarizer.summarize_batch(texts, batch_size=2, ratio=0.3)]


def _assert_same(onnx_run, torch_run, tolerance: float = 1e-5) -> None:
    for (onnx_indices, onnx_scores), (torch_indices, torch_scores) in zip(onnx_run, torch_run, strict=True):
        assert onnx_indices == torch_indices
        assert [s is None for s in onnx_scores] == [s is None for s in torch_scores]
        assert max((abs(a - b) for a, b in zip(onnx_scores, torch_scores) if a is not None), default=0) < tolerance


def test_the_graph_scores_every_sentence_as_torch_does(graph_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    onnx = Summarizer.from_pretrained(graph_dir, precision="fp32", backend="onnx")
    assert isinstance(onnx.model, OnnxModel)
    torch_path = Summarizer.from_pretrained(graph_dir, precision="fp32", backend="torch")
    # The long document's sections go to calls of their own, each over the windows of a call.
    monkeypatch.setattr("summarizer.runtime.onnx_model.MAX_WINDOWS_PER_CALL", 4)
    sections = onnx.prepare([TEXTS[-1]])[0].sections
    assert len(sections) > 1 and all(len(s.features.windows) > 4 for s in sections)
    _assert_same(_scores(onnx, TEXTS), _scores(torch_path, TEXTS))


@pytest.fixture(scope="module")
def mean_graph_dir(tiny_encoder_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model with mean pooling and centrality (as the built-in model), with its graph."""
    import torch

    torch.manual_seed(0)
    directory = tmp_path_factory.mktemp("tiny-mean-graph")
    model = BertSumModel.from_encoder(tiny_encoder_dir, head=TINY_HEAD, pooling="mean", features={"centrality": True})
    export(model, load_tokenizer(tiny_encoder_dir), directory)
    export_graph(model, load_tokenizer(tiny_encoder_dir), directory)
    return directory


@pytest.mark.parametrize("pooling", ["cls", "mean"])
def test_the_graph_adds_without_scatter_and_repeats_its_scores(
    pooling: str, graph_dir: Path, mean_graph_dir: Path
) -> None:
    """ONNX Runtime's scatter-add races between threads over repeated indices
    (microsoft/onnxruntime#18048): the graph has none, and identical calls give identical scores."""
    import onnx

    directory = {"cls": graph_dir, "mean": mean_graph_dir}[pooling]
    graph = onnx.load(str(directory / GRAPH_FILE), load_external_data=False)
    scatters = [n for n in graph.graph.node if n.op_type in ("ScatterND", "ScatterElements", "Scatter")]
    assert [n.name for n in scatters if any(a.name == "reduction" and a.s != b"none" for a in n.attribute)] == []
    model = OnnxModel.from_pretrained(directory, threads=2)
    onnx_path = Summarizer(model, model.tokenizer)
    runs = [_scores(onnx_path, [TEXTS[0], TEXTS[-1]]) for _ in range(8)]
    assert all(run == runs[0] for run in runs)
    _assert_same(
        runs[0],
        _scores(Summarizer.from_pretrained(directory, precision="fp32", backend="torch"), [TEXTS[0], TEXTS[-1]]),
    )


def test_calls_hold_whole_rows_up_to_a_number_of_windows() -> None:
    assert _calls([1, 2, 1, 5, 1], 4) == [(0, 3), (3, 4), (4, 5)]
    assert _calls([], 4) == []


def test_an_encoder_without_token_types_exports_and_scores_alike(tiny_distilbert_dir: Path, tmp_path: Path) -> None:
    model = BertSumModel.from_encoder(
        tiny_distilbert_dir, head=TINY_HEAD, pooling="mean", features={"centrality": True}
    )
    export(model, load_tokenizer(tiny_distilbert_dir), tmp_path)
    export_graph(model, load_tokenizer(tiny_distilbert_dir), tmp_path)
    onnx = Summarizer.from_pretrained(tmp_path, precision="fp32")  # auto: the graph, on the CPU
    assert isinstance(onnx.model, OnnxModel)
    assert "token_type_ids" not in onnx.model.input_names
    import onnx as onnx_format

    graph = onnx_format.load(str(tmp_path / GRAPH_FILE), load_external_data=False)
    fused = [n for n in graph.graph.node if n.op_type == "MultiHeadAttention"]
    assert len(fused) == model.config.encoder.num_hidden_layers  # DistilBERT's attention is fused too
    _assert_same(
        _scores(onnx, TEXTS[:3]),
        _scores(Summarizer.from_pretrained(tmp_path, precision="fp32", backend="torch"), TEXTS[:3]),
    )


def test_the_builtin_model_ships_a_small_graph_and_scores_as_torch(shared_data: Path) -> None:
    graph = builtin_model_dir() / GRAPH_FILE
    assert graph.stat().st_size < 500_000  # the structure only: the weights stay in safetensors
    onnx = Summarizer.from_pretrained(precision="fp32")
    torch_path = Summarizer.from_pretrained(precision="fp32", backend="torch")
    assert isinstance(onnx.model, OnnxModel)
    import json

    with (shared_data / "bbc-news" / "validation.jsonl").open(encoding="utf-8") as lines:
        texts = [json.loads(next(lines))["text"] for _ in range(8)]
    _assert_same(_scores(onnx, texts), _scores(torch_path, texts), tolerance=1e-4)


@pytest.mark.parametrize("name", BUILTIN_MODELS)
def test_each_builtin_model_ships_both_graphs_written_for_its_own_weights(name: str) -> None:
    """A graph records a digest of the header of each weights file it reads: the shipped graphs
    must have been exported from the shipped weights (no MPNet weights needed to check that)."""
    import onnx

    directory = builtin_model_dir(name)
    header, _, _ = read_header(directory / WEIGHTS_FILE)
    for file in (GRAPH_FILE, INT8_GRAPH_FILE):
        assert (directory / file).stat().st_size < 500_000  # the structure only
        graph = onnx.load(str(directory / file), load_external_data=False)
        recorded = {prop.key: prop.value for prop in graph.metadata_props}
        assert recorded[f"{WEIGHTS_FILE}.header"] == header_digest(header), file
        assert WORD_TABLE in recorded, file  # the word-embedding matrix read where it is stored


@pytest.mark.parametrize(
    "shape, matrix_at, scales_at",
    [([2, 3], [0, 5], [8, 16]), ([2, 3], [0, 6], [8, 15]), ([2, 3], None, [8, 16]), ([2, 3], [0, 6], [8, 99])]
    + [([0, 3], [0, 0], [8, 8])],
    ids=["short matrix", "odd scales", "no offsets", "past the end", "empty"],
)
def test_int8_weights_laid_out_otherwise_than_said_are_one_line(shape, matrix_at, scales_at, tmp_path: Path) -> None:
    """A compact int8 matrix the int8 graph quantizes from, damaged in its file's header."""

    def header(matrix_at: list[int] | None, scales_at: list[int]) -> tuple[bytes, dict, int]:
        matrix = {"dtype": "I8", "shape": shape} | ({"data_offsets": matrix_at} if matrix_at else {})
        scales = {"dtype": "F32", "shape": [shape[0], 1], "data_offsets": scales_at}
        return b"", {"w": matrix, "w.int8_scale": scales}, 0

    contents = {WEIGHTS_FILE: np.zeros(16, dtype=np.uint8)}
    if shape[0]:  # laid out as said, the same matrix quantizes
        assert len(quantize(contents, {WEIGHTS_FILE: header([0, 6], [8, 16])}, [(WEIGHTS_FILE, "w")], 8, tmp_path))
    with pytest.raises(InputError, match=f"^{tmp_path}: its int8 weights come from {WEIGHTS_FILE} w, which is not a"):
        quantize(contents, {WEIGHTS_FILE: header(matrix_at, scales_at)}, [(WEIGHTS_FILE, "w")], 8, tmp_path)


def _run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)


def test_summarize_runs_without_torch_or_transformers(tmp_path: Path) -> None:
    """`pip install bertsum` alone: the ONNX path imports neither (nor, for English, the
    `languages` extra's Punkt parameters)."""
    (tmp_path / "one.txt").write_text(TEXTS[0], encoding="utf-8")
    code = WITHOUT_TORCH + "from summarizer.cli.command import main; status = main(sys.argv[1:]); print(status)"
    done = _run(code, str(tmp_path / "one.txt"), "-k", "2")
    assert done.stderr == ""
    assert done.stdout.splitlines()[-1] == "0" and len(done.stdout.splitlines()) == 3
    imported = _run(
        "import sys, summarizer.cli.command; from summarizer import Summarizer; "
        "Summarizer.from_pretrained().summarize('A b c d. E f g h.');"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'transformers', 'onnx', 'punkt'}))"
    )
    assert imported.stdout.strip() == "[]", imported.stderr


def test_a_directory_without_a_graph_takes_torch_or_says_how_to_add_it(tiny_model_dir: Path, tmp_path: Path) -> None:
    assert isinstance(Summarizer.from_pretrained(tiny_model_dir).model, BertSumModel)
    with pytest.raises(
        InputError, match=r"no ONNX graph \(model.onnx\): add it with `python -m summarizer.runtime.onnx_export"
    ):
        Summarizer.from_pretrained(tiny_model_dir, backend="onnx")
    (tmp_path / "one.txt").write_text(TEXTS[0], encoding="utf-8")
    code = WITHOUT_TORCH + "from summarizer.cli.command import main; raise SystemExit(main(sys.argv[1:]))"
    done = _run(code, "--model", str(tiny_model_dir), str(tmp_path / "one.txt"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"summarize: {tiny_model_dir}: no ONNX graph (model.onnx) and torch is not installed: add it with "
        f"`python -m summarizer.runtime.onnx_export {tiny_model_dir}` (needs pip install 'bertsum[torch]')\n"
    )
    done = _run(code, "--backend", "torch", str(tmp_path / "one.txt"))
    assert (done.returncode, done.stderr) == (
        2,
        "summarize: the torch backend needs torch and transformers: pip install 'bertsum[torch]'\n",
    )


def test_the_onnx_backend_refuses_what_it_cannot_run(graph_dir: Path) -> None:
    with pytest.raises(InputError, match="the onnx backend computes in fp32 or int8; --precision bf16 needs torch"):
        Summarizer.from_pretrained(graph_dir, backend="onnx", precision="bf16")
    with pytest.raises(InputError, match="the onnx backend runs on the CPU only"):
        Summarizer.from_pretrained(graph_dir, backend="onnx", device="cuda")
    assert isinstance(Summarizer.from_pretrained(graph_dir, precision="bf16").model, BertSumModel)  # auto: torch


def test_the_int8_graph_quantizes_every_encoder_product_and_scores_close_to_fp32(graph_dir: Path) -> None:
    import onnx
    import torch

    graph = onnx.load(str(graph_dir / INT8_GRAPH_FILE), load_external_data=False)
    quantized = [n for n in graph.graph.node if n.op_type == "DynamicQuantizeMatMul"]
    model = BertSumModel.from_pretrained(graph_dir)
    linears = [n for n, m in model.encoder.named_modules() if isinstance(m, torch.nn.Linear) and "pooler" not in n]
    assert len(quantized) == len(linears) > 0  # the head's products stay fp32; the pooler is unused
    assert all(len(n.input) == 5 and n.input[4] for n in quantized)  # each adds its layer's bias itself
    left = {t.name.removeprefix("model.") for t in graph.graph.initializer}
    assert not left & {f"encoder.{name}.weight" for name in linears}  # the fp32 matrices are not read at all
    assert (graph_dir / INT8_GRAPH_FILE).stat().st_size < 2 * (graph_dir / GRAPH_FILE).stat().st_size
    fp32 = _scores(Summarizer.from_pretrained(graph_dir, backend="onnx", precision="fp32"), TEXTS)
    for bits in (8, 7):
        model8 = OnnxModel.from_pretrained(graph_dir, precision="int8", weight_bits=bits)
        int8 = _scores(Summarizer(model8, model8.tokenizer), TEXTS)
        differences = [abs(a - b) for (_, x), (_, y) in zip(int8, fp32) for a, b in zip(x, y) if a is not None]
        assert 0 < max(differences) < 0.05


def test_auto_precision_is_int8_where_measured_safe(graph_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """int8 on ONNX Runtime with VNNI, on torch with AVX2; fp32 elsewhere and on GPUs."""
    monkeypatch.setattr(precision, "cpu_flags", lambda: frozenset({"avx2", "fma", "avx512_vnni"}))
    assert resolve_backend(graph_dir, "cpu") == ("onnx", "int8")
    assert precision.int8_weight_bits() == 8
    assert resolve_backend(graph_dir, "cpu", backend="torch") == ("torch", "int8")
    assert precision.resolve_precision("auto", "cuda", "torch") == "fp32"
    monkeypatch.setattr(precision, "cpu_flags", lambda: frozenset({"avx2", "fma"}))
    assert resolve_backend(graph_dir, "cpu") == ("onnx", "fp32")
    assert resolve_backend(graph_dir, "cpu", backend="torch") == ("torch", "int8")
    assert resolve_backend(graph_dir, "cpu", "int8") == ("onnx", "int8")
    assert precision.int8_weight_bits() == 7
    monkeypatch.setattr(precision, "cpu_flags", lambda: frozenset({"neon"}))
    assert resolve_backend(graph_dir, "cpu", backend="torch") == ("torch", "fp32")


def test_auto_precision_on_torch_takes_bf16_for_wide_encoders_where_native(
    graph_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a native-bf16 CPU torch's bf16 outruns its int8 for a 768-wide encoder, not a 384-wide one."""
    import torch

    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX512")
    wide = tmp_path / "wide"
    shutil.copytree(graph_dir, wide)
    config = json.loads((wide / "config.json").read_text())
    config["encoder"]["hidden_size"] = 768
    (wide / "config.json").write_text(json.dumps(config))
    assert json.loads((graph_dir / "config.json").read_text())["encoder"]["hidden_size"] < 768
    monkeypatch.setattr(precision, "cpu_flags", lambda: frozenset({"avx2", "avx512_vnni", "avx512_bf16"}))
    assert resolve_backend(wide, "cpu", backend="torch") == ("torch", "bf16")
    assert resolve_backend(graph_dir, "cpu", backend="torch") == ("torch", "int8")
    assert resolve_backend(wide, "cpu") == ("onnx", "int8")  # ONNX Runtime has no bf16 path here
    assert resolve_backend(wide, "cuda", backend="torch") == ("torch", "fp32")
    monkeypatch.setattr(precision, "cpu_flags", lambda: frozenset({"avx2", "avx512_vnni"}))  # no native bf16
    assert resolve_backend(wide, "cpu", backend="torch") == ("torch", "int8")
    (wide / "config.json").write_text("{not json")  # unreadable: the load says what is wrong, not the choice
    monkeypatch.setattr(precision, "cpu_flags", lambda: frozenset({"avx2", "avx512_bf16"}))
    assert resolve_backend(wide, "cpu", backend="torch") == ("torch", "int8")


def test_a_graph_without_its_int8_twin_runs_in_fp32(graph_dir: Path, tmp_path: Path, monkeypatch) -> None:
    """A directory exported by an earlier release: auto takes its fp32 graph; int8 asks for the other."""
    monkeypatch.setattr(precision, "cpu_flags", lambda: frozenset({"avx2", "avx512_vnni"}))
    directory = tmp_path / "model"
    shutil.copytree(graph_dir, directory)
    (directory / INT8_GRAPH_FILE).unlink()
    assert resolve_backend(directory, "cpu") == ("onnx", "fp32")
    with pytest.raises(InputError, match=r"no ONNX graph \(model.int8.onnx\): add it with"):
        Summarizer.from_pretrained(directory, backend="onnx", precision="int8")


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: (d / GRAPH_FILE).write_bytes(b"\x08\x07garbage"), "model.onnx: not a usable graph for this model: "),
        (lambda d: (d / GRAPH_FILE).write_bytes(b""), "model.onnx: not a usable graph for this model: "),
        (lambda d: _save_weights_with(d, half=True), "model.onnx: not a usable graph for this model: "),
        (lambda d: _save_weights_with(d, half=False), "model.onnx: written for other weights than "),
        (
            lambda d: (d / "tokenizer.json").write_text("{", encoding="utf-8"),
            "tokenizer.json: cannot read the tokenizer: ",
        ),
    ],
)
@pytest.mark.parametrize("precision_", ["fp32", "int8"])
def test_a_graph_that_cannot_be_used_is_one_line(
    graph_dir: Path, tmp_path: Path, damage, message: str, precision_: str
) -> None:
    directory = tmp_path / "model"
    shutil.copytree(graph_dir, directory)
    if precision_ == "int8":  # the damage aims at model.onnx: the int8 graph stands there meanwhile
        (directory / INT8_GRAPH_FILE).replace(directory / GRAPH_FILE)
    damage(directory)
    if precision_ == "int8":
        (directory / GRAPH_FILE).replace(directory / INT8_GRAPH_FILE)
        message = message.replace("model.onnx", "model.int8.onnx")
    with pytest.raises(InputError, match=message) as caught:
        Summarizer.from_pretrained(directory, backend="onnx", precision=precision_)
    assert "\n" not in str(caught.value)


def _save_weights_with(directory: Path, half: bool) -> None:
    """The weights saved again, in float16 (shorter), or after a large tensor (moved)."""
    import torch
    from safetensors.torch import load_file, save_file

    weights = load_file(str(directory / "model.safetensors"))
    if half:
        weights = {k: v.half() if v.is_floating_point() else v for k, v in weights.items()}
    else:
        weights["a.tensor.first"] = torch.zeros(10**6)
    save_file(weights, str(directory / "model.safetensors"))


def test_the_export_command_adds_the_graph(
    tiny_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`python -m summarizer.runtime.onnx_export DIR` (its `main`, in this process: torch is imported already)."""
    from summarizer.runtime.onnx_export import main

    directory = tmp_path / "model"
    shutil.copytree(tiny_model_dir, directory)
    assert main([str(directory)]) == 0
    assert capsys.readouterr() == (f"wrote {directory / GRAPH_FILE}\n", "")
    assert isinstance(Summarizer.from_pretrained(directory).model, OnnxModel)


def test_the_encoder_attention_is_one_fused_kernel_per_layer(graph_dir: Path) -> None:
    """BERT's attention runs as ONNX Runtime's MultiHeadAttention in both graphs (the tests above
    check its scores against torch's)."""
    import onnx

    layers = BertSumModel.from_pretrained(graph_dir).config.encoder.num_hidden_layers
    for name in (GRAPH_FILE, INT8_GRAPH_FILE):
        graph = onnx.load(str(graph_dir / name), load_external_data=False)
        fused = [n for n in graph.graph.node if n.op_type == "MultiHeadAttention" and n.domain == "com.microsoft"]
        assert len(fused) == layers


def test_the_word_table_is_read_where_it_is_stored_and_graphs_holding_it_still_run(
    graph_dir: Path, tmp_path: Path
) -> None:
    """Both graphs take the encoder's word-embedding matrix as an input, given as a view of the
    mapped weights file (ONNX Runtime holds no copy of it: multilingual-e5-small's is 384 MB);
    a graph that holds it as an initializer (as written by earlier releases) scores the same."""
    import onnx

    texts = [TEXTS[0], TEXTS[2]]
    words = BertSumModel.from_pretrained(graph_dir).encoder.get_input_embeddings().weight.detach().numpy()
    expected = {}
    for kind in ("fp32", "int8"):
        model = Summarizer.from_pretrained(graph_dir, precision=kind, backend="onnx")
        assert isinstance(model.model, OnnxModel) and WORD_TABLE not in model.model.input_names
        table = model.model.given[WORD_TABLE]
        assert table.dtype == np.float32 and np.array_equal(table, words)
        assert any(np.shares_memory(table, mapped) for mapped in model.model._weights)
        expected[kind] = _scores(model, texts)
    earlier = tmp_path / "model"
    shutil.copytree(graph_dir, earlier)
    files = weight_files(earlier, None)
    for name in (GRAPH_FILE, INT8_GRAPH_FILE):
        graph = onnx.load(str(earlier / name), load_external_data=False)
        props = {prop.key: prop.value for prop in graph.metadata_props}
        location, tensor_name = json.loads(props.pop(WORD_TABLE))
        _, tensors, begin = read_header(files[location])
        start, end = tensors[tensor_name]["data_offsets"]
        stored = onnx.TensorProto(name="word_embeddings", data_type=onnx.TensorProto.FLOAT)
        stored.dims.extend(tensors[tensor_name]["shape"])
        for key, value in (("location", location), ("offset", str(begin + start)), ("length", str(end - start))):
            stored.external_data.add(key=key, value=value)
        stored.data_location = onnx.TensorProto.EXTERNAL
        graph.graph.initializer.append(stored)
        for node in graph.graph.node:
            node.input[:] = ["word_embeddings" if x == WORD_TABLE else x for x in node.input]
        graph.graph.input.remove(next(i for i in graph.graph.input if i.name == WORD_TABLE))
        del graph.metadata_props[:]
        onnx.helper.set_model_props(graph, props)
        (earlier / name).write_bytes(graph.SerializeToString())
    for kind in ("fp32", "int8"):
        model = Summarizer.from_pretrained(earlier, precision=kind, backend="onnx")
        assert isinstance(model.model, OnnxModel) and not model.model.given
        _assert_same(_scores(model, texts), expected[kind], tolerance=1e-6)


def test_attention_the_fused_kernel_does_not_compute_is_traced_eagerly(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An encoder whose mask is not over every token of a window (a sliding window, say) gets the
    eager graph, scoring as torch does, and keeps its own attention implementation."""
    import onnx

    from summarizer.runtime import onnx_attention

    # Every mask now looks like another kind than the padding mask the fused kernel takes.
    monkeypatch.setattr(onnx_attention, "bidirectional_mask_function", lambda *args: True)
    directory = tmp_path / "model"
    shutil.copytree(tiny_model_dir, directory)
    summarizer = Summarizer.from_pretrained(directory, precision="fp32", backend="torch")
    before = summarizer.model.encoder.config._attn_implementation
    export_graph(summarizer.model, summarizer.builder.tokenizer, directory)
    assert summarizer.model.encoder.config._attn_implementation == before
    graph = onnx.load(str(directory / GRAPH_FILE), load_external_data=False)
    assert not [n for n in graph.graph.node if n.op_type == "MultiHeadAttention"]
    assert [n for n in graph.graph.node if n.op_type == "Softmax"]
    _assert_same(
        _scores(Summarizer.from_pretrained(directory, precision="fp32", backend="onnx"), TEXTS[:3]),
        _scores(summarizer, TEXTS[:3]),
    )
