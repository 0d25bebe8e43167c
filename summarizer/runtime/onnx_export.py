"""Write a model's scoring network as one ONNX graph beside its weights (`model.onnx`).

    python -m summarizer.runtime.onnx_export MODEL_DIR     # adds model.onnx to a model directory

Training's export writes the graph with the weights; this command adds it to a directory saved
without one (by an earlier release, or by hand). The graph is traced with `torch.onnx.export`
(the dynamo exporter) from `ScoringGraph`: the model's own forward pass over a `Batch` built
from the graph's inputs, every dimension dynamic, the encoder's attention as ONNX Runtime's fused
kernel where the encoder allows it (`onnx_attention`). Its initializers then become external
data pointing into the safetensors files the weights are saved in (`onnx_model`), so that the
file holds the structure only. Needs torch, transformers, onnx and onnxscript (`bertsum[torch]`).
"""

from __future__ import annotations

import argparse
import copy
import json
import logging
import os
import sys
import warnings
from pathlib import Path

import onnx
import torch
from torch import nn

from summarizer.console import Parser, add_debug_flag, run_command
from summarizer.errors import InputError
from summarizer.modeling.arrays import collate_arrays
from summarizer.modeling.batch import Batch
from summarizer.modeling.features import FeatureBuilder
from summarizer.modeling.modeling_bertsum import BertSumModel, encoder_position_limit
from summarizer.modeling.settings import INT8_SCALE_SUFFIX, read_settings
from summarizer.runtime.backends import GRAPH_FILE, INT8_GRAPH_FILE
from summarizer.runtime.onnx_model import (
    BASE_WEIGHTS,
    INT8_FILE,
    INT8_SOURCES,
    OUTPUT,
    SPECIAL_TOKENS,
    WORD_TABLE,
    OnnxModel,
    header_digest,
    int8_layout,
    read_header,
    weight_files,
)
from summarizer.runtime.torch_model import load_torch_model

# Types of safetensors' tensors as ONNX names them.
_SAFETENSORS_TYPES = {
    "F64": onnx.TensorProto.DOUBLE, "F32": onnx.TensorProto.FLOAT, "F16": onnx.TensorProto.FLOAT16,
    "BF16": onnx.TensorProto.BFLOAT16, "I64": onnx.TensorProto.INT64, "I32": onnx.TensorProto.INT32,
    "I8": onnx.TensorProto.INT8, "U8": onnx.TensorProto.UINT8, "BOOL": onnx.TensorProto.BOOL,
}  # fmt: skip
# The scales, one per row, that an int8-stored matrix is multiplied by in the graph.
_ROW_SCALES = ".row_scales"
OPSET = 20  # what torch's exporter writes by default; ONNX Runtime 1.17 and later run it
# Sentences for the example batch the graph is traced with: two documents, one of several
# windows, so that no dimension is taken for a constant.
_EXAMPLE = "The committee met on Monday to discuss the new budget for schools and roads."


class ScoringGraph(nn.Module):
    """`model` as the graph runs it: named arrays of a batch in (`layout.collate_arrays`), the
    probability of each sentence out."""

    def __init__(self, model: nn.Module, input_names: list[str]) -> None:
        super().__init__()
        self.model = model
        self.input_names = input_names

    def forward(self, *arrays: torch.Tensor) -> torch.Tensor:
        given = dict(zip(self.input_names, arrays))
        unused = given["sentence_mask"].new_zeros(0, dtype=torch.long)  # what this model's pooling does not read
        batch = Batch(
            input_ids=given["input_ids"],
            attention_mask=given["attention_mask"],
            token_type_ids=given.get("token_type_ids"),
            cls_window=given.get("cls_window", unused),
            cls_position=given.get("cls_position", unused),
            sentence_slot=given.get("sentence_slot", unused),
            sentence_mask=given["sentence_mask"],
            labels=given["sentence_mask"].float(),
            token_slot=given.get("token_slot"),
            sentence_features=given.get("sentence_features"),
            first_sentence=given["first_sentence"],
        )
        return torch.sigmoid(self.model(batch).float())


def graph_inputs(model: BertSumModel, uses_token_types: bool) -> list[str]:
    """The arrays of a batch that `model`'s forward pass reads."""
    names = ["input_ids", "attention_mask"] + (["token_type_ids"] if uses_token_types else [])
    names += ["token_slot"] if model.pooling.needs_token_slots else ["cls_window", "cls_position", "sentence_slot"]
    names += (
        ["sentence_mask"] + (["sentence_features"] if model.config.features.centrality else []) + ["first_sentence"]
    )
    return names


def _dynamic_shapes(names: list[str], max_tokens: int) -> tuple[dict[int, torch.export.Dim], ...]:
    windows, tokens = torch.export.Dim("windows"), torch.export.Dim("tokens", max=max_tokens)
    documents, slots, sentences = (
        torch.export.Dim("documents"),
        torch.export.Dim("slots"),
        torch.export.Dim("sentences"),
    )
    by_layout = {
        "windows": {0: windows, 1: tokens},
        "sentences": {0: sentences},
        "grid": {0: documents, 1: slots},
        "documents": {0: documents},
    }
    layout = {
        "input_ids": "windows", "attention_mask": "windows", "token_type_ids": "windows", "token_slot": "windows",
        "cls_window": "sentences", "cls_position": "sentences", "sentence_slot": "sentences",
        "sentence_mask": "grid", "sentence_features": "grid", "first_sentence": "documents",
    }  # fmt: skip
    return tuple(by_layout[layout[name]] for name in names)


def export_graph(model: BertSumModel, tokenizer, directory: str | Path) -> Path:
    """Write `directory`/model.onnx for `model` (a `BertSumModel`), whose weights and config are
    already saved in `directory` (`save_pretrained` or `save_compact`); returns its path."""
    directory = Path(directory)
    if next(model.parameters()).device.type != "cpu" or next(model.parameters()).dtype != torch.float32:
        # Traced on the CPU in fp32, the graph's. (transformers wraps `to` in functools.wraps, which
        # typeshed types as not binding `self`.)
        model = copy.deepcopy(model).to("cpu", torch.float32)  # type: ignore[arg-type]
    training = model.training
    try:
        model.eval()
        return _export(model, tokenizer, directory)
    finally:
        model.train(training)  # a snapshot's export leaves training as it was


def _export(model: BertSumModel, tokenizer, directory: Path) -> Path:
    builder = FeatureBuilder(tokenizer, model.config.features.for_inference(), model.config.language)
    names = graph_inputs(model, builder.uses_token_types)
    documents = [[_EXAMPLE] * 2, [_EXAMPLE] * (model.config.features.max_window_tokens // 8)]
    rows = [features.to_columns() for features in builder.batch(documents)]
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    arrays = collate_arrays(rows, pad, token_slots=model.pooling.needs_token_slots)
    example = tuple(torch.from_numpy(arrays[name]) for name in names)
    # The fused attention's module imports onnxscript (half a second): only here, where it is used.
    from summarizer.runtime.onnx_attention import unfusable, use_fused_attention

    loggers = [logging.getLogger(name) for name in ("torch.onnx", "onnx_ir", "onnxscript", "transformers")]
    levels = [logger.level for logger in loggers]
    fastpath = torch.backends.mha.get_fastpath_enabled()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the exporter's notes on dimension names and its own internals
        for logger in loggers:
            logger.setLevel(logging.ERROR)
        # The head's layers as written (PyTorch's fused inference kernel for them, traced, let
        # the documents of one call change each other's scores).
        torch.backends.mha.set_fastpath_enabled(False)
        # The encoder's attention as ONNX Runtime's fused kernel where the encoder allows it,
        # else as eager products: traced from SDPA it carries a guard against rows without keys
        # (Where, IsNaN) in every layer, which ONNX Runtime pays for in every call
        # (docs/benchmarks.md, ONNX Runtime).
        attention = use_fused_attention(model.encoder)
        try:
            try:
                program = _trace(model, names, example)
            except Exception as error:  # attention the fused kernel does not compute: eagerly
                if not unfusable(error):
                    raise
                model.encoder.set_attn_implementation("eager")
                program = _trace(model, names, example)
        finally:
            if attention:
                model.encoder.set_attn_implementation(attention)
            torch.backends.mha.set_fastpath_enabled(fastpath)
            for logger, level in zip(loggers, levels):
                logger.setLevel(level)
    graph = program.model_proto
    buffers = {name for name, _ in model.named_buffers()}
    # The packaged encoder the saved model is compact over (its config on disk names it; the
    # model's own config does not when training saved it with `save_compact`).
    base_encoder = read_settings(directory).base_encoder
    digests, sources = _point_into(graph, weight_files(directory, base_encoder), buffers)
    special = dict(zip(SPECIAL_TOKENS, map(str, [builder.cls_id, builder.sep_id, pad])))
    special.update(_word_table_outside(graph, sources))
    quantized, used = _int8_graph(graph, sources)
    onnx.helper.set_model_props(graph, {**special, **digests})
    onnx.helper.set_model_props(quantized, {**special, **digests, INT8_SOURCES: json.dumps(used)})
    for name, written in ((GRAPH_FILE, graph), (INT8_GRAPH_FILE, quantized)):
        staging = directory / f".{name}.{os.getpid()}"  # renamed over the target once whole
        staging.write_bytes(written.SerializeToString())
        os.replace(staging, directory / name)
    _check(builder, pad, directory)
    return directory / GRAPH_FILE


def _trace(model: BertSumModel, names: list[str], example: tuple[torch.Tensor, ...]) -> torch.onnx.ONNXProgram:
    """`model` as an ONNX program, every dimension of the `example` batch dynamic."""
    from summarizer.runtime.onnx_attention import TRANSLATIONS

    program = torch.onnx.export(
        ScoringGraph(model, names),
        example,
        input_names=names,
        output_names=[OUTPUT],
        dynamic_shapes=(
            _dynamic_shapes(names, encoder_position_limit(model.config.encoder)),
        ),  # one entry: the *arrays of forward
        opset_version=OPSET,
        dynamo=True,
        optimize=False,  # ONNX Runtime optimizes as it loads; folding here would bake weights into the file
        custom_translation_table=TRANSLATIONS,
        external_data=False,
        verbose=False,
    )
    assert program is not None  # the dynamo exporter returns the program
    return program


def _check(builder: FeatureBuilder, pad: int, directory: Path) -> None:
    """Remove the graphs and raise unless each scores a batch shaped unlike the traced one (a
    document of one window, and a shorter one padded to it) as the model saved in `directory`
    does on torch (its weights as stored: a compact model's in float16 or int8, which the traced
    model may hold unrounded): the fp32 graph within 1e-4, the int8 graph's by its quantization
    within 0.1."""
    documents = [[_EXAMPLE, "Members argued for hours about funding."], ["Members argued for hours."]]
    rows = [features.to_columns() for features in builder.batch(documents)]
    expected = BertSumModel.from_pretrained(directory).eval().score_rows(rows, pad)
    for precision, name, tolerance in (("fp32", GRAPH_FILE, 1e-4), ("int8", INT8_GRAPH_FILE, 0.1)):
        try:
            got = OnnxModel.from_pretrained(directory, precision=precision).score_rows(rows, pad)
            differs: float | Exception = max(abs(a - b) for x, y in zip(expected, got) for a, b in zip(x, y))
        except Exception as error:
            differs = error
        if not (isinstance(differs, float) and differs <= tolerance):
            for written in (GRAPH_FILE, INT8_GRAPH_FILE):
                (directory / written).unlink(missing_ok=True)
            raise ValueError(f"the exported graph {name} does not score as the model does ({differs})")


def _point_into(
    graph: onnx.ModelProto, files: dict[str, Path], buffers: set[str]
) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """Turn `graph`'s initializers (the parameters of the traced `ScoringGraph`) into external
        data pointing into the safetensors `files` (`onnx_model.weight_files`); a tensor stored in
        another type is read in that type and cast once (a compact int8 matrix, then multiplied
        by its stored scale per row); `buffers` not saved
    with the weights stay in the graph. Also drop what only helps debugging (each
        node's stack trace, intermediate shapes). Returns each file's header digest, by the name
        the graph gives the file, and where each initializer now reads its tensor: (file, name
        there), by the initializer's name."""
    stored, digests = {}, {}  # parameter name: (file name, its entry in the header, where the data begins, key)
    for location, path in reversed(files.items()):  # the model's own file last: it wins
        header, tensors, begin = read_header(path)
        prefix = "encoder." if location == BASE_WEIGHTS else ""
        stored.update(
            {prefix + name: (location, entry, begin, name) for name, entry in tensors.items() if name != "__metadata__"}
        )
        digests[f"{location}.header"] = header_digest(header)
    casts, scales, sources = [], [], {}
    for tensor in graph.graph.initializer:
        name = tensor.name.removeprefix("model.")  # ScoringGraph's attribute
        if name not in stored:
            if name in buffers:  # a constant the model builds (position ids): small, kept in the graph
                continue
            raise ValueError(f"the graph reads {name}, which the model's weight files do not hold")
        location, entry, begin, key = stored[name]
        if list(entry["shape"]) != list(tensor.dims):
            raise ValueError(f"{name}: shape {entry['shape']} in {location}, {list(tensor.dims)} in the graph")
        kind = _SAFETENSORS_TYPES[entry["dtype"]]
        if kind == onnx.TensorProto.INT8:  # a compact int8 matrix: times its scale per row, once
            scales_location, scales_entry, scales_begin, _ = stored.get(name + INT8_SCALE_SUFFIX, ("", {}, 0, ""))
            rows = tensor.dims[0]
            if scales_entry.get("dtype") != "F32" or scales_entry.get("shape") not in ([rows, 1], [rows]):
                raise ValueError(f"{name}, int8 in {location}, has no float32 {INT8_SCALE_SUFFIX}, one per row")
            scale = onnx.TensorProto(name=name + _ROW_SCALES, data_type=onnx.TensorProto.FLOAT)
            scale.dims.extend([rows, 1])  # [out, 1] against the matrix's [out, in]
            _read_from(scale, scales_location, scales_entry, scales_begin)
            scales.append(scale)
            casts.append(onnx.helper.make_node("Cast", [name], [f"{name}.float"], to=tensor.data_type))
            casts.append(onnx.helper.make_node("Mul", [f"{name}.float", scale.name], [tensor.name]))
            tensor.name, tensor.data_type = name, kind
        elif kind != tensor.data_type:  # read as stored under its own name, cast to the name the graph reads
            casts.append(onnx.helper.make_node("Cast", [name], [tensor.name], to=tensor.data_type))
            tensor.name, tensor.data_type = name, kind
        sources[tensor.name] = (location, key)
        _read_from(tensor, location, entry, begin)
    graph.graph.initializer.extend(scales)
    nodes = [*casts, *graph.graph.node]
    del graph.graph.node[:]
    graph.graph.node.extend(nodes)
    for node in graph.graph.node:
        del node.metadata_props[:]
    del graph.graph.value_info[:]
    return digests, sources


def _word_table_outside(graph: onnx.ModelProto, sources: dict[str, tuple[str, str]]) -> dict[str, str]:
    """Make the encoder's word-embedding matrix, where it is stored in float32 and only looked
    up, the graph's input `WORD_TABLE` instead of an initializer: ONNX Runtime then holds no
    copy of it (multilingual-e5-small's is 384 MB of its 470), and the runtime passes the
    stored matrix as it is mapped from its file, of which a call reads only the rows of its
    tokens. Returns the metadata naming where it is stored (`WORD_TABLE`: [file, tensor]), or
    nothing where the graph reads the matrix otherwise (another type, or not only by lookup)."""
    for tensor in graph.graph.initializer:
        if not tensor.name.endswith("embeddings.word_embeddings.weight") or tensor.name not in sources:
            continue
        readers = [node for node in graph.graph.node if tensor.name in node.input]
        if tensor.data_type != onnx.TensorProto.FLOAT or any(
            node.op_type != "Gather" or list(node.input).index(tensor.name) != 0 for node in readers
        ):
            return {}
        for node in readers:
            node.input[0] = WORD_TABLE
        graph.graph.input.append(
            onnx.helper.make_tensor_value_info(WORD_TABLE, onnx.TensorProto.FLOAT, list(tensor.dims))
        )
        source = sources.pop(tensor.name)
        graph.graph.initializer.remove(tensor)  # the loop ends here
        return {WORD_TABLE: json.dumps(source)}
    return {}


def _read_from(tensor: onnx.TensorProto, location: str, entry: dict, begin: int) -> None:
    """Make `tensor` external data: the bytes of the safetensors `entry` in the file the graph
    names `location`, whose tensor data starts at `begin`."""
    start, end = entry["data_offsets"]
    tensor.ClearField("raw_data")
    del tensor.external_data[:]
    for key, value in (("location", location), ("offset", str(begin + start)), ("length", str(end - start))):
        tensor.external_data.add(key=key, value=value)
    tensor.data_location = onnx.TensorProto.EXTERNAL


def _int8_graph(
    graph: onnx.ModelProto, sources: dict[str, tuple[str, str]]
) -> tuple[onnx.ModelProto, list[tuple[str, str]]]:
    """A copy of `graph` (as `_point_into` left it) whose encoder products with a weight matrix,
    `MatMul(x, Transpose(W))` with W stored under `encoder.`, are ONNX Runtime's
    `DynamicQuantizeMatMul(x, W_int8, W_scale)`, which also adds the layer's bias when an Add of
    it is all that reads the product; the int8 weights and scales are external data
    in `INT8_FILE` (`onnx_model.int8_layout`), quantized from the returned (file, tensor)
    sources as the graph loads. What no node reads any more is dropped."""
    quantized = copy.deepcopy(graph)
    nodes = quantized.graph.node
    made = {output: node for node in nodes for output in node.output}
    initializers = {tensor.name: tensor for tensor in quantized.graph.initializer}
    chosen: list[tuple[onnx.NodeProto, str]] = []  # (MatMul, the initializer W)
    for node in nodes:
        if node.op_type != "MatMul" or node.input[1] not in made:
            continue
        transpose = made[node.input[1]]
        if transpose.op_type != "Transpose" or list(transpose.attribute[0].ints) != [1, 0]:
            continue
        weight = _stored(transpose.input[0], made)
        source = sources.get(weight)
        if weight in initializers and source is not None and weight.removeprefix("model.").startswith("encoder."):
            chosen.append((node, weight))
    places, _ = int8_layout([(initializers[weight].dims[0], initializers[weight].dims[1]) for _, weight in chosen])
    readers: dict[str, list[onnx.NodeProto]] = {}
    for node in nodes:
        for name in node.input:
            readers.setdefault(name, []).append(node)
    used, joined = [], set()  # the outputs of the bias Adds now made by the products
    for (node, weight), (matrix, scales) in zip(chosen, places):
        out, inner = initializers[weight].dims
        for name, kind, dims, offset, length in (
            (f"{weight}.int8", onnx.TensorProto.INT8, [inner, out], matrix, inner * out),
            (f"{weight}.int8_scale", onnx.TensorProto.FLOAT, [out], scales, 4 * out),
        ):
            tensor = onnx.TensorProto(name=name, data_type=kind, dims=dims)
            for key, value in (("location", INT8_FILE), ("offset", str(offset)), ("length", str(length))):
                tensor.external_data.add(key=key, value=value)
            tensor.data_location = onnx.TensorProto.EXTERNAL
            quantized.graph.initializer.append(tensor)
        inputs, outputs = [node.input[0], f"{weight}.int8", f"{weight}.int8_scale"], list(node.output)
        found = _bias_add(node, readers, made, initializers, out)
        if found is not None:  # the Add of the layer's bias joins the product (its `bias` input)
            add, bias = found
            inputs += ["", bias]
            outputs = list(add.output)
            joined.add(add.output[0])
        node.CopyFrom(onnx.helper.make_node("DynamicQuantizeMatMul", inputs, outputs, domain="com.microsoft"))
        used.append(sources[weight])
    kept = [node for node in nodes if not (node.op_type == "Add" and node.output[0] in joined)]
    del nodes[:]
    nodes.extend(kept)
    _drop_unused(quantized.graph)
    if not any(opset.domain == "com.microsoft" for opset in quantized.opset_import):
        quantized.opset_import.append(onnx.helper.make_opsetid("com.microsoft", 1))
    return quantized, used


def _bias_add(
    product: onnx.NodeProto,
    readers: dict[str, list[onnx.NodeProto]],
    made: dict[str, onnx.NodeProto],
    initializers: dict[str, onnx.TensorProto],
    width: int,
) -> tuple[onnx.NodeProto, str] | None:
    """The node adding a bias (an initializer of `width` values, as stored or cast) to the
    output of `product`, when nothing else reads that output, and the bias as it reads it; else
    None."""
    (reader, *others) = readers.get(product.output[0], [None])
    if others or reader is None or reader.op_type != "Add":
        return None
    (bias, *_) = [name for name in reader.input if name != product.output[0]] or [None]
    if bias is None:
        return None
    stored = _stored(bias, made)
    return (reader, bias) if stored in initializers and list(initializers[stored].dims) == [width] else None


def _stored(name: str, made: dict[str, onnx.NodeProto]) -> str:
    """The tensor `name` reads: itself, or what `_point_into` made it from: float16 as stored,
    cast to float32, or int8 as stored, cast and times its scales."""
    source = made.get(name)
    if source is not None and source.op_type == "Mul":
        cast = made.get(source.input[0])
        if cast is not None and cast.op_type == "Cast" and source.input[1] == cast.input[0] + _ROW_SCALES:
            return cast.input[0]
    return source.input[0] if source is not None and source.op_type == "Cast" else name


def _drop_unused(graph: onnx.GraphProto) -> None:
    """Remove the nodes and initializers of `graph` that nothing leads from to its outputs."""
    needed = {output.name for output in graph.output}
    kept = []
    for node in reversed(graph.node):
        if any(output in needed for output in node.output):
            kept.append(node)
            needed.update(node.input)
    del graph.node[:]
    graph.node.extend(reversed(kept))
    initializers = [tensor for tensor in graph.initializer if tensor.name in needed]
    del graph.initializer[:]
    graph.initializer.extend(initializers)


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m summarizer.runtime.onnx_export", description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="a bertsum model directory")
    add_debug_flag(parser)

    def run(args: argparse.Namespace) -> int:
        if not args.model.exists():
            raise InputError(f"{args.model}: no such model directory")
        target = export_graph(*load_torch_model(args.model), args.model)
        print(f"wrote {target}")
        return 0

    return run_command(parser, argv, run, lambda message: print(f"onnx_export: {message}", file=sys.stderr))


if __name__ == "__main__":
    raise SystemExit(main())
