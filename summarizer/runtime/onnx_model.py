"""The scoring network as one ONNX graph, run by ONNX Runtime: inference without torch or transformers.

A model directory may hold `model.onnx` beside `config.json` and `model.safetensors`: the whole
network (encoder, pooling, centrality projection, head, and the sigmoid of its logits) as one
graph, written by `summarizer.runtime.onnx_export`. The graph file holds no weights, so it stays
small: its initializers are ONNX external data that point into the safetensors files themselves
(the model's own `model.safetensors` and, for a compact model, the packaged encoder's), at each
tensor's offset, in its stored type (float16 tensors are cast to float32 inside the graph, and int8
matrices cast and multiplied by their stored scale per row, once, as ONNX Runtime loads it). The
files are mapped into memory and handed to ONNX Runtime by name; the graph's metadata holds a
digest of each file's header (names, types, shapes, offsets), so a graph never reads weights laid
out otherwise than when it was written, and the ids of the tokenizer's special tokens.

`model.int8.onnx`, written beside it, is the same network with the encoder's linear layers as
ONNX Runtime's `DynamicQuantizeMatMul` (activations quantized per call, int8 weights with one
scale per output column). It stores no int8 weights either: its metadata lists the tensors they
come from, and as the graph loads they are quantized from the safetensors files into memory
(`quantize`), laid out as its external data `int8` expects (`int8_layout`).

Where the encoder's word-embedding matrix is stored in float32, the graph takes it as its input
`word_table` (its metadata names the file and tensor) rather than as an initializer: it is passed
as mapped from its file, so ONNX Runtime holds no copy of it and a call reads only the rows of
its tokens (multilingual-e5-small's 250,037 rows are 384 MB, more than the rest of the model).

The tokenizer is the directory's (or the packaged encoder's) `tokenizer.json`, read with
`tokenizers`.

Loading never runs code from the directory and never reaches the network: the graph is read as
bytes (no path from which to resolve other files), its weights come only from the safetensors
files above, and a graph ONNX Runtime cannot use is one line.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime
from tokenizers import Tokenizer

from summarizer.errors import InputError, first_line
from summarizer.modeling.arrays import by_length, collate_arrays
from summarizer.modeling.features import GraphTokenizer
from summarizer.modeling.settings import INT8_SCALE_SUFFIX, WEIGHTS_FILE, ModelSettings, read_settings
from summarizer.resources import base_encoder_dir
from summarizer.runtime.backends import GRAPH_FILES, add_graph_hint

BASE_WEIGHTS = "encoder.safetensors"  # how a graph names the packaged encoder's weights (compact models)
TOKENIZER_FILE = "tokenizer.json"
OUTPUT = "scores"  # [documents, max_sentences]: the probability of each sentence, as sigmoid(logits)
# The graph's metadata: the ids of the special tokens the windows are built with.
SPECIAL_TOKENS = ("cls_token_id", "sep_token_id", "pad_token_id")
# One call holds the windows of whole sections: at most this many, unless one section has more.
# The head reads all the windows of a section at once; a section has at most 512 sentences.
# The attention buffers of a call set the peak memory (docs/benchmarks.md, ONNX Runtime).
MAX_WINDOWS_PER_CALL = 8
INT8_FILE = "int8"  # how the int8 graph names the quantized weights it is given in memory
INT8_SOURCES = "int8.sources"  # its metadata: [[file, tensor], ...], each stored as [out, in]
WORD_TABLE = "word_table"  # the input (and metadata: [file, tensor]) of a word-embedding matrix passed in
_ALIGN = 64
_SAFETENSORS_FLOATS = {"F32": np.float32, "F16": np.float16}


def weight_files(directory: Path, base_encoder: str | None) -> dict[str, Path]:
    """The safetensors files a graph's weights are read from, by the name its external data
    gives each: the model's own, and for a compact model the packaged encoder's."""
    files = {WEIGHTS_FILE: directory / WEIGHTS_FILE}
    if base_encoder:
        files[BASE_WEIGHTS] = base_encoder_dir(base_encoder) / WEIGHTS_FILE
    for path in files.values():
        if not path.is_file():
            raise InputError(f"{path.parent}: not a bertsum model directory (no {WEIGHTS_FILE})")
    return files


def read_header(path: Path) -> tuple[bytes, dict[str, Any], int]:
    """The header of a safetensors file as bytes and as JSON, and where its data begins: each
    tensor's `data_offsets` count from there."""
    try:
        with path.open("rb") as file:
            size = int.from_bytes(file.read(8), "little")
            header = file.read(size)
        tensors = json.loads(header)
    except (OSError, ValueError, MemoryError, RecursionError) as error:
        raise InputError(f"{path}: cannot read the weights: {first_line(error)}") from None
    if len(header) != size or not isinstance(tensors, dict):
        raise InputError(f"{path}: cannot read the weights: not a safetensors file")
    return header, tensors, 8 + size


def header_digest(header: bytes) -> str:
    return hashlib.sha256(header).hexdigest()


class OnnxModel:
    """A bertsum model's graph in an ONNX Runtime session, with its settings (`config`) and
    tokenizer; scores sentences as `BertSumModel` does, from numpy arrays."""

    def __init__(
        self,
        session: onnxruntime.InferenceSession,
        config: ModelSettings,
        tokenizer: GraphTokenizer,
        weights: Sequence[np.ndarray],
        given: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        self.session = session
        self.config = config
        self.tokenizer = tokenizer
        self.given = dict(given or {})  # inputs every call passes as they are (`WORD_TABLE`)
        self.input_names = [i.name for i in session.get_inputs() if i.name not in self.given]
        self._weights = weights  # ONNX Runtime reads them from this memory: kept while the session lives
        # A call of more than MAX_WINDOWS_PER_CALL windows (a long document's section) hands the
        # memory it took back when it ends, so that the next one does not add to it.
        self._give_back = onnxruntime.RunOptions()
        self._give_back.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")

    @classmethod
    def from_pretrained(
        cls, directory: str | Path, threads: int = 0, precision: str = "fp32", weight_bits: int = 8
    ) -> OnnxModel:
        """The model in `directory` (which holds `model.onnx`, and `model.int8.onnx` for int8);
        an `InputError` names what does not fit. `threads`: ONNX Runtime's threads per call (0:
        one per core). `precision`: "fp32" or "int8", whose weights take `weight_bits` bits."""
        directory = Path(directory)
        config = read_settings(directory)
        name = GRAPH_FILES[precision]
        path = directory / name
        if not path.is_file():
            raise InputError(f"{directory}: no ONNX graph ({name}): {add_graph_hint(directory)}")
        files = weight_files(directory, config.base_encoder)
        # The files as they are on disk, mapped (not read) into memory: the graph's external data
        # points into them, tensor by tensor.
        try:
            contents: list[np.ndarray] = [np.memmap(weights, dtype=np.uint8, mode="r") for weights in files.values()]
        except (OSError, ValueError) as error:  # unreadable, or empty
            raise InputError(f"{directory}: cannot read the weights: {first_line(error)}") from None
        graph = path.read_bytes()
        names = list(files)
        headers: dict[str, tuple[bytes, dict[str, Any], int]] = {}  # read once, by the int8 graph and the check below
        if precision == "int8":
            sources = _int8_sources(graph, path)
            names.append(INT8_FILE)
            headers = {name: read_header(weights) for name, weights in files.items()}
            contents.append(quantize(dict(zip(files, contents)), headers, sources, weight_bits, path))
        tokenizer_dir = base_encoder_dir(config.base_encoder) if config.base_encoder else directory
        # Read while ONNX Runtime builds the session (which releases the GIL; reading the
        # tokenizer holds it): a 250,000-piece vocabulary takes longer than that session.
        pool = ThreadPoolExecutor(1)
        reading = pool.submit(Tokenizer.from_file, str(tokenizer_dir / TOKENIZER_FILE))
        pool.shutdown(wait=False)  # its one thread ends with the read, not with the process
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.log_severity_level = 3  # errors only: its warnings are not the user's business
        # No memory plan kept per input shape: each is a block of its own, and the shapes of a
        # long document's calls are many (docs/benchmarks.md, a book).
        options.enable_mem_pattern = False
        options.add_external_initializers_from_files_in_memory(names, contents, [len(c) for c in contents])
        try:
            session = onnxruntime.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
        except Exception as error:  # ONNX Runtime raises its own types (Fail, InvalidProtobuf, InvalidGraph...)
            raise InputError(f"{path}: not a usable graph for this model: {first_line(error)}") from None
        metadata = session.get_modelmeta().custom_metadata_map
        outputs = [o.name for o in session.get_outputs()]
        if outputs != [OUTPUT] or not all(metadata.get(name, "").isdigit() for name in SPECIAL_TOKENS):
            raise InputError(f"{path}: not a bertsum graph (no {OUTPUT!r} output or no special token ids)")
        for name, weights in files.items():  # the tensors sit where they sat when the graph was written
            headers[name] = headers.get(name) or read_header(weights)
            if metadata.get(f"{name}.header") != header_digest(headers[name][0]):
                raise InputError(f"{path}: written for other weights than {weights}: {add_graph_hint(directory)}")
        given = {}
        if any(i.name == WORD_TABLE for i in session.get_inputs()):
            given[WORD_TABLE] = _word_table(metadata.get(WORD_TABLE, ""), dict(zip(names, contents)), headers, path)
        try:
            backend = reading.result()
        except Exception as error:  # missing or damaged: tokenizers raises its own Exception
            raise InputError(
                f"{tokenizer_dir / TOKENIZER_FILE}: cannot read the tokenizer: {first_line(error)}"
            ) from None
        inputs = [i.name for i in session.get_inputs() if i.name not in given]
        cls_id, sep_id, pad_id = (int(metadata[name]) for name in SPECIAL_TOKENS)
        tokenizer = GraphTokenizer(backend, cls_id, sep_id, pad_id, model_input_names=inputs)
        return cls(session, config, tokenizer, contents, given)

    def score_rows(
        self, rows: Sequence[Mapping[str, Any]], pad_token_id: int, max_windows_per_pass: int | None = None
    ) -> list[list[float]]:
        """The probability of each scored sentence of each row (a document's or section's
        features, `DocumentFeatures.to_columns`), in calls of whole rows holding at most
        MAX_WINDOWS_PER_CALL windows (a row with more is a call of its own). The graph reads
        the windows of a call at once, padded to the longest, so rows go to calls by the length
        of their longest window: `max_windows_per_pass` is torch's setting."""
        longest = [max(map(len, row["input_ids"]), default=0) for row in rows]
        order = by_length(range(len(rows)), longest, longest_first=True)
        scores: list[list[float]] = [[] for _ in rows]
        windows = [len(rows[i]["input_ids"]) for i in order]
        for start, end in _calls(windows, MAX_WINDOWS_PER_CALL):
            call = order[start:end]
            arrays = collate_arrays([rows[i] for i in call], pad_token_id, token_slots="token_slot" in self.input_names)
            feed = {name: arrays[name] for name in self.input_names}
            large = sum(windows[start:end]) > MAX_WINDOWS_PER_CALL
            (probabilities,) = self.session.run([OUTPUT], {**feed, **self.given}, self._give_back if large else None)
            for place, i in enumerate(call):
                scores[i] = probabilities[place, : len(rows[i]["sentence_indices"])].tolist()
        return scores


def _word_table(
    source: str,
    contents: Mapping[str, np.ndarray],
    headers: Mapping[str, tuple[bytes, dict[str, Any], int]],
    path: Path,
) -> np.ndarray:
    """The float32 matrix the graph's `WORD_TABLE` metadata (`source`: [file, tensor]) names, as
    a view of the mapped file (no copy: a call's lookups read only its rows)."""
    try:
        location, name = json.loads(source)
        table = _tensor(contents.get(location), headers[location], name, {"F32": np.float32})
    except (ValueError, TypeError, KeyError):
        table = None
    if table is None:
        raise InputError(f"{path}: not a bertsum graph (its {WORD_TABLE} names no float32 tensor)")
    return table


def int8_layout(shapes: Sequence[tuple[int, int]]) -> tuple[list[tuple[int, int]], int]:
    """Where each quantized weight of `shapes` ([out, in], as stored) sits in the int8 graph's
    external data: its int8 matrix ([in, out]) and its float32 scales ([out]), each at a
    multiple of 64 bytes; and the size of the whole."""
    places, end = [], 0
    for out, inner in shapes:
        matrix = end
        scales = -(-(matrix + out * inner) // _ALIGN) * _ALIGN
        end = -(-(scales + 4 * out) // _ALIGN) * _ALIGN
        places.append((matrix, scales))
    return places, end


def quantize(
    contents: Mapping[str, np.ndarray],
    headers: Mapping[str, tuple[bytes, dict[str, Any], int]],
    sources: Sequence[tuple[str, str]],
    bits: int,
    graph: Path,
) -> np.ndarray:
    """The int8 graph's external data: each source tensor (file, name) quantized symmetrically
    to `bits` bits with one scale per output row, transposed to [in, out] (`int8_layout`)."""
    matrices = []
    for file, name in sources:
        content, header = contents.get(file), headers.get(file, (b"", {}, 0))
        found = _tensor(content, header, name, _SAFETENSORS_FLOATS)
        if found is None:  # a compact int8 matrix: its int8 values times its scale per row
            stored = _tensor(content, header, name, {"I8": np.int8})
            scale = _tensor(content, header, name + INT8_SCALE_SUFFIX, {"F32": np.float32})
            if stored is not None and scale is not None and stored.ndim == 2 and scale.shape == (len(stored), 1):
                found = np.multiply(stored, scale, dtype=np.float32)
        if found is None or found.ndim != 2 or found.size == 0:
            raise InputError(f"{graph}: its int8 weights come from {file} {name}, which is not a float matrix there")
        matrices.append(found)
    places, size = int8_layout([m.shape for m in matrices])
    data = np.zeros(size, dtype=np.uint8)
    limit = 2 ** (bits - 1) - 1
    for weights, (matrix, scales) in zip(matrices, places):
        weights = weights.astype(np.float32)
        scale = np.abs(weights).max(axis=1) / limit
        scale[scale == 0] = 1.0
        out, inner = weights.shape
        quantized = np.clip(np.rint(weights / scale[:, None]), -limit, limit).astype(np.int8)
        data[matrix : matrix + out * inner] = quantized.T.reshape(-1).view(np.uint8)
        data[scales : scales + 4 * out] = scale.astype("<f4").view(np.uint8)
    return data


def _tensor(
    content: np.ndarray | None, header: tuple[bytes, dict[str, Any], int], name: str, types: Mapping[str, Any]
) -> np.ndarray | None:
    """Tensor `name` of a safetensors file (`content`, its bytes; `header`, `read_header`'s),
    when it is stored in one of `types` (safetensors' type name: numpy's); else None."""
    _, tensors, begin = header
    entry = tensors.get(name)
    if content is None or not isinstance(entry, dict) or entry.get("dtype") not in types:
        return None
    kind, offsets, shape = np.dtype(types[entry["dtype"]]), entry.get("data_offsets"), entry.get("shape")
    if not (
        isinstance(offsets, list)
        and len(offsets) == 2
        and isinstance(shape, list)
        and all(isinstance(n, int) and n >= 0 for n in [*offsets, *shape])
        and offsets[1] - offsets[0] == math.prod(shape) * kind.itemsize
        and begin + offsets[1] <= len(content)
    ):
        return None  # laid out otherwise than safetensors says: the caller names the tensor
    return content[begin + offsets[0] : begin + offsets[1]].view(kind).reshape(shape)


def _int8_sources(graph: bytes, path: Path) -> list[tuple[str, str]]:
    """The int8 graph's `INT8_SOURCES`, read from its bytes (ONNX Runtime shows the metadata only
    once the session, which needs the weights, exists): ModelProto's field 14, `metadata_props`."""
    for key, value in _metadata(graph):
        if key == INT8_SOURCES:
            try:
                sources = json.loads(value)
                return [(str(file), str(name)) for file, name in sources]
            except (ValueError, TypeError):
                break
    raise InputError(f"{path}: not a usable graph for this model: no list of its int8 weights")


def _metadata(message: bytes) -> Iterator[tuple[str, str]]:
    """The (key, value) pairs of a serialized ModelProto's `metadata_props`; nothing for bytes
    that are not one (ONNX Runtime then says why)."""
    try:
        for number, value in _fields(message):
            if number == 14:
                entry = dict(_fields(value))
                yield entry.get(1, b"").decode(), entry.get(2, b"").decode()
    except (ValueError, UnicodeDecodeError):
        return


def _fields(message: bytes) -> Iterator[tuple[int, bytes]]:
    """The length-delimited fields of a protobuf message, as (number, bytes); others skipped."""

    def varint(at: int) -> tuple[int, int]:
        value, shift = 0, 0
        while True:
            if at >= len(message) or shift > 63:
                raise ValueError("truncated")
            byte = message[at]
            value |= (byte & 0x7F) << shift
            at, shift = at + 1, shift + 7
            if not byte & 0x80:
                return value, at

    at = 0
    while at < len(message):
        key, at = varint(at)
        number, kind = key >> 3, key & 7
        if kind == 0:
            _, at = varint(at)
        elif kind == 1:
            at += 8
        elif kind == 5:
            at += 4
        elif kind == 2:
            length, at = varint(at)
            if at + length > len(message):
                raise ValueError("truncated")
            yield number, message[at : at + length]
            at += length
        else:
            raise ValueError(f"wire type {kind}")


def _calls(windows: Sequence[int], limit: int) -> list[tuple[int, int]]:
    """Consecutive ranges of rows with at most `limit` windows in all (a row over it alone)."""
    ranges, start, held = [], 0, 0
    for i, count in enumerate(windows):
        if i > start and held + count > limit:
            ranges.append((start, i))
            start, held = i, 0
        held += count
    if windows:
        ranges.append((start, len(windows)))
    return ranges
