"""BERTSUM model inputs: `[CLS] s1 [SEP] [CLS] s2 [SEP] ...` cut into windows at sentence boundaries."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, cast

from summarizer.errors import check, check_at_least
from summarizer.text.centrality import DEFAULT_WORDS, check_words, sentence_centrality

if TYPE_CHECKING:  # the ONNX Runtime path runs without transformers
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerBase


@dataclass(frozen=True)
class FeatureConfig:
    """How sentences become encoder inputs.

    max_window_tokens: longest sequence given to the encoder (its position limit, 512 for BERT).
    max_tokens_per_sentence: longer sentences keep their first tokens.
    min_sentence_tokens: shorter sentences are not encoded or scored, unless no sentence of the
        document reaches it: then every non-empty sentence is (short documents still get a summary).
    max_sentences: score at most this many sentences per document (None: all).
    truncate: keep only the first window (classic BERTSUM) instead of covering the document.
    centrality: give the model each scored sentence's lexical centrality in its document
        (`summarizer.text.centrality`) besides its encoder vector.
    centrality_words: what a word is to those features, "letters" or "tokens"
        (`summarizer.text.centrality`); models keep the one they were trained with.
    """

    # Settings of earlier releases, and what replaced them (the training config says so).
    RENAMED: ClassVar[dict[str, str]] = {
        "centrality_version": "set centrality_words: letters (what version 3 computed) or tokens (version 4)"
    }

    max_window_tokens: int = 512
    max_tokens_per_sentence: int = 128
    min_sentence_tokens: int = 3
    max_sentences: int | None = None
    truncate: bool = False
    centrality: bool = False
    centrality_words: str = DEFAULT_WORDS

    def __post_init__(self) -> None:
        check_at_least(self, 3, "max_window_tokens")
        check(
            1 <= self.max_tokens_per_sentence <= self.max_window_tokens - 2,
            "max_tokens_per_sentence",
            f"must be between 1 and max_window_tokens - 2 ({self.max_window_tokens - 2}), "
            f"got {self.max_tokens_per_sentence}",
        )
        check_at_least(self, 1, "min_sentence_tokens")
        check_at_least(self, 1, "max_sentences", nullable=True)
        check_words(self.centrality_words)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def for_inference(self) -> FeatureConfig:
        """These settings as a trained model reads documents: windows cover the whole document
        and every sentence is scored, whatever `truncate` and `max_sentences` training used."""
        return replace(self, truncate=False, max_sentences=None)

    def deciding_settings(self) -> dict[str, Any]:
        """The settings that decide the features: the centrality words only where centrality is on."""
        settings = self.to_dict()
        if not self.centrality:
            del settings["centrality_words"]
        return settings


# Models saved before `centrality_words` recorded a version number instead; only these two
# are still computed.
_CENTRALITY_VERSION_WORDS = {3: "letters", 4: "tokens"}


def convert_saved_features(settings: dict[str, Any]) -> dict[str, Any]:
    """Feature settings saved by an earlier release, in today's names (a ValueError for
    centrality no release computes any longer)."""
    settings = dict(settings)
    if "centrality_words" in settings:
        return settings
    version = settings.pop("centrality_version", 1)  # models saved before versions were recorded read 1
    if not settings.get("centrality"):
        return settings
    if version not in _CENTRALITY_VERSION_WORDS:
        raise ValueError(
            f"the model reads centrality version {version}, which is no longer computed: "
            "train it again (centrality_words: letters or tokens)"
        )
    settings["centrality_words"] = _CENTRALITY_VERSION_WORDS[version]
    return settings


@dataclass(frozen=True)
class GraphTokenizer:
    """A `tokenizers.Tokenizer` with what `FeatureBuilder` reads of a transformers tokenizer: the
    tokenizer of a model run without transformers (`summarizer.runtime.onnx_model`)."""

    backend_tokenizer: Tokenizer
    cls_token_id: int
    sep_token_id: int
    pad_token_id: int
    model_input_names: list[str] = field(default_factory=list)


@dataclass
class Window:
    """One encoder sequence: whole sentences, each as `[CLS] tokens [SEP]`."""

    input_ids: list[int]
    cls_positions: list[int]
    token_type_ids: list[int] | None = None


@dataclass
class DocumentFeatures:
    """Encoder inputs of one document and where each scored sentence sits in them.

    `sentence_indices[j]` is the index (in the document's sentence list) of the j-th scored
    sentence, whose `[CLS]` is the j-th of the windows' `cls_positions` taken in order. Scored
    sentences appear in document order, windows in order, each sentence in one window.
    """

    windows: list[Window] = field(default_factory=list)
    sentence_indices: list[int] = field(default_factory=list)
    sentence_features: list[list[float]] | None = None  # centrality of each scored sentence, if used

    @classmethod
    def from_columns(cls, row: dict[str, Any]) -> DocumentFeatures:
        """The features of a `datasets` row written from `to_columns`."""
        token_types = row.get("token_type_ids") or [None] * len(row["input_ids"])
        windows = [
            Window(ids, cls_positions, types)
            for ids, cls_positions, types in zip(row["input_ids"], row["cls_positions"], token_types)
        ]
        return cls(windows, row["sentence_indices"], row.get("sentence_features"))

    def to_columns(self) -> dict[str, Any]:
        """Flat columns for a `datasets` row (token type ids are left out when absent)."""
        columns: dict[str, Any] = {
            "input_ids": [w.input_ids for w in self.windows],
            "cls_positions": [w.cls_positions for w in self.windows],
            "sentence_indices": self.sentence_indices,
        }
        if self.windows and self.windows[0].token_type_ids is not None:
            columns["token_type_ids"] = [w.token_type_ids for w in self.windows]
        if self.sentence_features is not None:
            columns["sentence_features"] = self.sentence_features
        return columns


class FeatureBuilder:
    """Turns sentences into `DocumentFeatures` with a Hugging Face tokenizer.

    `language` chooses the stop words of the centrality features (when the config asks for them).
    """

    def __init__(
        self, tokenizer: PreTrainedTokenizerBase | GraphTokenizer, config: FeatureConfig, language: str = "english"
    ) -> None:
        if tokenizer.cls_token_id is None or tokenizer.sep_token_id is None:
            raise ValueError(f"tokenizer {type(tokenizer).__name__} has no [CLS] or [SEP] token")
        self.tokenizer = tokenizer
        self.config = config
        self.language = language
        self.cls_id: int = tokenizer.cls_token_id
        self.sep_id: int = tokenizer.sep_token_id
        self.uses_token_types = "token_type_ids" in tokenizer.model_input_names
        self._backend: Any = getattr(tokenizer, "backend_tokenizer", None)

    def tokenize(self, sentences: Sequence[str]) -> list[list[int]]:
        """Word-piece ids of each sentence, without special tokens."""
        if not sentences:
            return []
        if self._backend is not None:
            backend = self._plain_backend()
            encode = getattr(backend, "encode_batch_fast", backend.encode_batch)
            return [e.ids for e in encode(list(sentences), add_special_tokens=False)]
        # A slow transformers tokenizer: a GraphTokenizer always has a backend.
        return cast("PreTrainedTokenizerBase", self.tokenizer)(
            list(sentences),
            add_special_tokens=False,
            return_attention_mask=False,
            return_token_type_ids=False,
        )["input_ids"]

    def _plain_backend(self) -> Any:
        """The tokenizer's backend, or a copy of it without the padding or truncation that a
        tokenizer.json, or a call of the tokenizer, switched on (the tokenizer's own backend is
        used as it is where it has neither: copying a 250,000-piece vocabulary takes a second)."""
        backend = self._backend
        if backend.padding is not None or backend.truncation is not None:
            backend = copy.deepcopy(backend)
            backend.no_padding()
            backend.no_truncation()
            self._backend = backend
        return backend

    def __call__(self, sentences: Sequence[str]) -> DocumentFeatures:
        return self.from_tokenized(sentences, self.tokenize(sentences))

    def batch(
        self, documents: Sequence[Sequence[str]], languages: Sequence[str] | None = None
    ) -> list[DocumentFeatures]:
        """Features of many documents, tokenizing all their sentences in one call; `languages`
        gives each document's own language (None: the builder's)."""
        flat = self.tokenize([s for sentences in documents for s in sentences])
        out, start = [], 0
        for i, sentences in enumerate(documents):
            language = languages[i] if languages is not None else None
            out.append(self.from_tokenized(sentences, flat[start : start + len(sentences)], language))
            start += len(sentences)
        return out

    def from_tokenized(
        self, sentences: Sequence[str], sentence_ids: Sequence[Sequence[int]], language: str | None = None
    ) -> DocumentFeatures:
        """Features of sentences already tokenized (`tokenize`), with their centrality (in
        `language`, else the builder's) if the config asks for it."""
        features = self.from_token_ids(sentence_ids)
        if self.config.centrality:
            centrality = sentence_centrality(sentences, language or self.language, self.config.centrality_words)
            features.sentence_features = [centrality[i] for i in features.sentence_indices]
        return features

    def window_tokens(self, sentence_ids: Sequence[Sequence[int]]) -> list[int]:
        """The tokens each tokenized sentence takes in the windows: its first
        `max_tokens_per_sentence` ids with its [CLS] and [SEP], or 0 for one shorter than
        `min_sentence_tokens` (not scored, unless no sentence reaches it)."""
        cfg = self.config
        return [
            min(len(ids), cfg.max_tokens_per_sentence) + 2 if len(ids) >= cfg.min_sentence_tokens else 0
            for ids in sentence_ids
        ]

    def from_token_ids(self, sentence_ids: Sequence[Sequence[int]]) -> DocumentFeatures:
        """Pack tokenized sentences into windows of at most `max_window_tokens` tokens."""
        cfg = self.config
        shortest = cfg.min_sentence_tokens
        if not any(len(ids) >= shortest for ids in sentence_ids):
            shortest = 1
        features = DocumentFeatures()
        input_ids: list[int] = []
        token_types: list[int] = []
        cls_positions: list[int] = []

        def close_window() -> None:
            features.windows.append(Window(input_ids, cls_positions, token_types if self.uses_token_types else None))

        for index, ids in enumerate(sentence_ids):
            if len(ids) < shortest:
                continue
            if cfg.max_sentences is not None and len(features.sentence_indices) >= cfg.max_sentences:
                break
            ids = ids[: cfg.max_tokens_per_sentence]
            if cls_positions and len(input_ids) + len(ids) + 2 > cfg.max_window_tokens:
                close_window()
                if cfg.truncate:
                    return features
                input_ids, token_types, cls_positions = [], [], []
            segment = len(cls_positions) % 2
            features.sentence_indices.append(index)
            cls_positions.append(len(input_ids))
            input_ids.extend((self.cls_id, *ids, self.sep_id))
            token_types.extend([segment] * (len(ids) + 2))
        if cls_positions:
            close_window()
        return features
