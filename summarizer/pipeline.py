"""The library interface: load a model once, summarize one text or a stream of them.

Data flows document (text, or a file's text or bytes in one of `summarizer.readers.formats()`) ->
paragraphs -> sentences -> features -> batch -> scores -> selection. A `Summarizer` holds no
per-call state, so one instance can serve several threads at once.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from summarizer.errors import InputError, SettingError, first_line
from summarizer.modeling.arrays import length_batches
from summarizer.modeling.features import DocumentFeatures, FeatureBuilder
from summarizer.modeling.settings import read_settings
from summarizer.ranking import RankerConfig
from summarizer.readers import Document, check_format, read_document
from summarizer.resources import BUILTIN_MODELS, builtin_model_dir, model_dir, model_source
from summarizer.runtime.backends import check_backend, resolve_backend
from summarizer.runtime.precision import check_precision, int8_weight_bits
from summarizer.selection import SelectionConfig, select_sentences
from summarizer.text.language import detect_language
from summarizer.text.sentences import (
    LANGUAGE_CODES,
    join_sentences,
    language_code,
    language_name,
    paragraph_sentences,
    punkt_language,
    punkt_tokenizer,
)

# A document: its text (or bytes: those of a binary format, such as a PDF's, or UTF-8 text) in the
# format the call names (`summarizer.readers.formats()`), a `Document` already read, or its
# sentences already split.
Text = str | bytes | Document | Sequence[str]
T = TypeVar("T")
M = TypeVar("M", "BertSumModel", "OnnxModel")
CHUNK_BATCHES = 8  # summarize_batch reads at most this many batches of documents ahead
MAX_WINDOWS_PER_PASS = 8  # encoder windows per forward pass at inference (torch): bounds memory
# A longer document is scored in sections of at most this many sentences (centrality and the head's
# attention within each, sentence positions true to the document), so that time and memory
# grow linearly with its length. Longer than any document of the published evaluations.
SECTION_SENTENCES = 512
# A section takes at most this many tokens of the encoder's windows, which bounds the windows
# scored at once (a book's sections are cut shorter than SECTION_SENTENCES): longer than any
# document of the published evaluations.
SECTION_TOKENS = 6144
Progress = Callable[[int, int], None]  # (sentences scored, sentences in all) of the documents read so far
ERRORS = ("raise", "keep")  # summarize_batch(errors=...): what a document that cannot be summarized does

if TYPE_CHECKING:  # the ONNX Runtime path imports neither torch nor transformers
    import torch
    from transformers import PreTrainedTokenizerBase

    from summarizer.modeling.batch import Batch
    from summarizer.modeling.features import GraphTokenizer
    from summarizer.modeling.modeling_bertsum import BertSumModel
    from summarizer.runtime.onnx_model import OnnxModel


@dataclass(frozen=True)
class Summary:
    """The chosen sentences of one document, their indices and scores, in summary order.

    `document` holds every sentence of the document, `sentence_scores` the score of each
    (None for sentences too short to be scored) and `sentence_paragraphs` the paragraph each
    belongs to (0 for all of a document given as sentences). Scores are probabilities in [0, 1].
    `error` says why a document was not summarized (`summarize_batch(errors="keep")`); its
    lists are then empty. `language`: the ISO 639-1 code of the language it was read in.
    """

    sentences: list[str]
    indices: list[int]
    scores: list[float]
    document: list[str]
    sentence_scores: list[float | None]
    sentence_paragraphs: list[int]
    error: str | None = None
    language: str | None = None

    def __str__(self) -> str:
        return join_sentences(self.sentences)

    def record(self) -> dict[str, Any]:
        """The summary as `summarize --format json` writes it (beside the document's name)."""
        return {
            "language": self.language,
            "summary": str(self),
            "sentences": self.sentences,
            "indices": self.indices,
            "scores": [round(score, 6) for score in self.scores],
        }


@dataclass(frozen=True)
class LoadedAs:
    """How `Summarizer.from_pretrained` loaded a model, as it resolved it: enough to load the
    same again (a pickled `Summarizer` is this)."""

    model: str  # a built-in model's name, or its directory's absolute path
    backend: str  # "onnx" or "torch"
    precision: str  # fp32, bf16 or int8
    device: str
    threads: int | None  # None: the runtime's default


def _reload(loaded_as: LoadedAs) -> Summarizer:
    return Summarizer.from_pretrained(
        loaded_as.model, loaded_as.device, loaded_as.precision, loaded_as.backend, loaded_as.threads
    )


@dataclass(frozen=True)
class Section:
    """`size` sentences of a document from sentence `first` on, as encoder windows (indices
    relative to `first`)."""

    first: int
    size: int
    features: DocumentFeatures

    @property
    def num_tokens(self) -> int:
        return sum(len(window.input_ids) for window in self.features.windows)


@dataclass(frozen=True)
class PreparedDocument:
    """A document split into sentences (`paragraphs`: the paragraph of each), its sections
    turned into encoder windows."""

    sentences: list[str]
    sections: list[Section]
    paragraphs: list[int]
    error: str | None = None  # why it cannot be summarized (errors="keep"); no sentences then
    language: str = ""  # the Punkt name of the language it was read in ("": the model's)
    entries: frozenset[int] = frozenset()  # the paragraphs that are a list's entries (`Document.entries`)


class Summarizer:
    """Scores sentences with a model and selects a summary: a `BertSumModel` (torch, in eval
    mode) with its transformers tokenizer, or an `OnnxModel` (ONNX Runtime) with its own.

    Whatever `truncate` and `max_sentences` the model was trained with, windows here cover
    the whole document and every sentence is scored, so any sentence of a long document can
    be chosen. The torch encoder reads at most `max_windows_per_pass` windows per call, which
    bounds the memory a long document needs (ONNX Runtime calls hold a bounded number of windows).

    A `Summarizer` loaded with `from_pretrained` pickles as the way to load it again (its model
    by name or directory, backend, precision, device and threads), so that it can be sent to other
    processes and `datasets.Dataset.map` can fingerprint a function that uses it.

    Its public surface is `from_pretrained`, `summarize`, `summarize_batch` and `sentences`, and
    the pipeline's steps that training and evaluation (`summarizer.training`) run on documents
    they prepare themselves: `prepare` (documents to sentences, sections and encoder windows),
    `prepare_features` (a document whose features are already built) and `summarize_prepared`
    (scores and selection). `_collate` and `_score` are internal.
    """

    def __init__(
        self,
        model: BertSumModel | OnnxModel,
        tokenizer: PreTrainedTokenizerBase | GraphTokenizer,
        max_windows_per_pass: int | None = MAX_WINDOWS_PER_PASS,
    ) -> None:
        if max_windows_per_pass is not None and max_windows_per_pass < 1:
            raise ValueError(f"max_windows_per_pass must be at least 1 or None, got {max_windows_per_pass}")
        self.model = model
        self.language = model.config.language
        # The ISO 639-1 codes of the languages the model reads (settings.ModelSettings.languages).
        self.languages: tuple[str, ...] = tuple(model.config.languages or (language_code(self.language),))
        self.trigram_blocking = model.config.trigram_blocking  # unless a summary's caller says
        self.ranker: RankerConfig | None = model.config.ranker  # summaries of a fixed number of sentences
        self.max_windows_per_pass = max_windows_per_pass
        self.builder = FeatureBuilder(tokenizer, model.config.features.for_inference(), self.language)
        self.pad_token_id: int = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        self.loaded_as: LoadedAs | None = None  # set by from_pretrained

    def __repr__(self) -> str:
        if self.loaded_as is None:
            return f"Summarizer({type(self.model).__name__}, language={self.language!r})"
        return repr(self.loaded_as).replace("LoadedAs", "Summarizer", 1)

    def __reduce__(self) -> tuple[Any, ...]:
        if self.loaded_as is None:
            raise TypeError("only a Summarizer loaded with Summarizer.from_pretrained can be pickled")
        return (_reload, (self.loaded_as,))

    @classmethod
    def from_pretrained(
        cls,
        path: str | Path | None = None,
        device: str | torch.device = "cpu",
        precision: str = "auto",
        backend: str = "auto",
        threads: int | None = None,
    ) -> Summarizer:
        """Load a built-in model by name (`news`, `news-accurate`) or an exported model
        directory, never from the network.

        The default is `$BERTSUM_MODEL_DIR` if set, else the built-in `news` model. `precision`:
        auto (int8 where the CPU computes it fast on the backend chosen, else fp32), fp32, bf16
        or int8 (CPU only), see `summarizer.runtime.precision`. `backend`: "onnx" (ONNX Runtime, CPU, fp32 or int8),
        "torch", or "auto": ONNX Runtime where it can run the model (`summarizer.runtime.backends`).
        `threads`: the threads it computes with (ONNX Runtime's per call, or torch's, which are
        the process's); None: ONNX Runtime's default of one per core, or torch's setting as it is.
        `repr()` names the model, backend, precision, device and threads chosen.
        """
        check_precision(precision)  # before anything is loaded
        check_backend(backend)
        if threads is not None and threads < 1:
            raise ValueError(f"threads must be at least 1 or None, got {threads}")
        directory = model_dir(path)
        if not directory.exists():
            raise InputError(f"{directory}: no such model directory")
        runtime, precision = resolve_backend(directory, str(device), precision, backend)
        loaded_as = LoadedAs(model_source(path), runtime, precision, str(device), threads)
        if runtime == "onnx":
            from summarizer.runtime.onnx_model import OnnxModel

            graph = OnnxModel.from_pretrained(
                directory, threads=threads or 0, precision=precision, weight_bits=int8_weight_bits()
            )
            return cls(_splits_sentences(graph, directory), graph.tokenizer)._loaded(loaded_as)
        import torch

        from summarizer.runtime.torch_model import load_torch_model

        if threads is not None:
            torch.set_num_threads(threads)
        model, tokenizer = load_torch_model(directory, device, precision)
        return cls(_splits_sentences(model, directory), tokenizer)._loaded(loaded_as)

    def _loaded(self, loaded_as: LoadedAs) -> Summarizer:
        self.loaded_as = loaded_as
        return self

    def summarize(
        self,
        text: Text,
        k: int = 3,
        ratio: float | None = None,
        max_words: int | None = None,
        trigram_blocking: bool | None = None,
        order: str = "document",
        format: str = "text",
        language: str | None = None,
    ) -> Summary:
        """Summary of one document: text (or bytes) in `format` (any of
        `summarizer.readers.formats()`), a `Document`, or a list of sentences already split. A
        LaTeX text's `\\input` files are read by `Document.from_file`, not from text.
        `language`: as `summarize_batch` takes it."""
        return next(
            self.summarize_batch(
                [text], 1, k, ratio, max_words, trigram_blocking, order, format=format, language=language
            )
        )

    def summarize_batch(
        self,
        texts: Iterable[Text],
        batch_size: int = 16,
        k: int = 3,
        ratio: float | None = None,
        max_words: int | None = None,
        trigram_blocking: bool | None = None,
        order: str = "document",
        progress: Progress | None = None,
        format: str = "text",
        errors: str = "raise",
        language: str | None = None,
    ) -> Iterator[Summary]:
        """Summaries of `texts`, yielded lazily in input order: each text (or bytes) read in
        `format` (any of `summarizer.readers.formats()`), a `Document`, or a list of sentences.

        `errors`: "raise" (the default): a document that cannot be read (None, NaN, not text, a
        file that is not of its format) raises, ending the iteration. "keep": it yields a
        `Summary` whose `error` says why in its place, as table mode and Ray Data write it in
        their `error` column, and so does an empty text or an empty list of sentences.

        Reads at most `batch_size * CHUNK_BATCHES` documents ahead of what it has yielded and
        batches documents (or sections of long ones) of similar length together, so any number
        of documents fits in bounded memory. Options are checked before any document is read.
        `progress(done, total)` hears of each batch scored: sentences of the documents read so far.

        `language`: the language of every document, an ISO 639-1 code (`fr`) or a Punkt name
        (`french`); None: each document's own, detected (`summarizer.text.language`), or the
        model's `language` where detection is unsure. Each is split into sentences, and its
        centrality and selection read, in its language. An `InputError` (a document's error, with
        errors="keep") when the language is not one the model reads (`languages`).
        """
        if isinstance(texts, (str, bytes, Document)):
            raise TypeError("summarize_batch takes an iterable of documents; use summarize for one text")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        selection = SelectionConfig(k, ratio, max_words, trigram_blocking, order)
        check_format(format)
        if errors not in ERRORS:
            raise ValueError(f"errors must be one of {', '.join(ERRORS)}, got {errors!r}")
        language = self.check_language(language)
        return self._stream(iter(texts), batch_size, selection, progress, format, errors == "keep", language)

    def _stream(
        self,
        texts: Iterator[Text],
        batch_size: int,
        selection: SelectionConfig,
        progress: Progress | None,
        format: str,
        keep_errors: bool,
        language: str | None = None,
    ) -> Iterator[Summary]:
        size = batch_size * CHUNK_BATCHES
        prepared = (
            self.prepare(chunk, i * size, format, keep_errors, language) for i, chunk in enumerate(_chunks(texts, size))
        )
        return self._summaries(prepared, batch_size, selection, progress)

    def summarize_prepared(
        self,
        documents: Sequence[PreparedDocument],
        batch_size: int = 16,
        selection: SelectionConfig = SelectionConfig(),
    ) -> Iterator[Summary]:
        """Summaries of documents already prepared (`prepare`, `prepare_features`), scored exactly
        as `summarize_batch` scores them."""
        return self._summaries(_chunks(iter(documents), batch_size * CHUNK_BATCHES), batch_size, selection, None)

    def _summaries(
        self,
        chunks: Iterable[list[PreparedDocument]],
        batch_size: int,
        selection: SelectionConfig,
        progress: Progress | None,
    ) -> Iterator[Summary]:
        selection = selection.for_model(self.trigram_blocking)
        done = total = 0

        def scored(sentences: int) -> None:
            nonlocal done
            done += sentences
            if progress is not None and sentences:
                progress(done, total)

        for prepared in chunks:
            sections = [section for document in prepared for section in document.sections]
            total += sum(len(document.sentences) for document in prepared)
            scores: list[list[float]] = [[] for _ in sections]
            for group in length_batches([section.num_tokens for section in sections], batch_size):
                for position, section_scores in zip(group, self._score([sections[i] for i in group], scored)):
                    scores[position] = section_scores
            in_order = iter(scores)  # sections are listed document by document
            for document in prepared:
                document_scores = [next(in_order) for _ in document.sections]
                yield _summary(document, document_scores, selection, self.language, self.ranker)

    def check_language(self, language: str | None) -> str | None:
        """The Punkt name of `language` (an ISO 639-1 code or a Punkt name; None stays None: each
        document's own); a `ValueError` naming the known ones, or an `InputError` when the model
        does not read it."""
        if language is None:
            return None
        name = punkt_language(language)
        if language_code(name) not in self.languages:
            raise InputError(
                self._not_read(language_code(name), f"language {language!r} is {language_name(language_code(name))}")
            )
        return self.language if language_code(name) == language_code(self.language) else name

    def _not_read(self, code: str, what: str) -> str:
        """Why a document in the language `code` is not summarized by this model."""
        model = self.loaded_as.model if self.loaded_as is not None else "this model"
        if self.loaded_as is not None and ("/" in model or "\\" in model):
            model = Path(model).name
        covered = ", ".join(language_name(known) for known in self.languages)
        only = " only" if len(self.languages) == 1 else ""
        anyway = language_code(self.language)
        readers = builtin_models_reading(code)
        name = LANGUAGE_CODES[code].capitalize() if code in LANGUAGE_CODES else "it"  # no Punkt parameters: no model
        other = f"--model {readers[0]}" if readers else f"a model that reads {name}"
        return (
            f"{what}; model {model!r} covers {covered}{only}: use {other}, or --language {anyway} "
            f"to read it as {LANGUAGE_CODES[anyway].capitalize()} anyway"
        )

    def _language_of(self, text: Sequence[str], given: str | None, position: int) -> str:
        """The Punkt name of the language of a document of paragraphs (or sentences) `text`:
        `given` (checked by `check_language`), else detected, else the model's."""
        if given is not None:
            return given
        code = detect_language(text)
        if code is None or code == language_code(self.language):
            return self.language
        if code not in self.languages:
            raise InputError(
                f"document {position}: " + self._not_read(code, f"the document reads as {language_name(code)}")
            )
        return LANGUAGE_CODES[code]

    def prepare(
        self,
        texts: Sequence[Text],
        first_position: int = 0,
        format: str = "text",
        keep_errors: bool = False,
        language: str | None = None,
    ) -> list[PreparedDocument]:
        """Split documents into sentences and sections and tokenize them (`first_position`
        numbers the documents in error messages). `keep_errors`: a document that cannot be read
        is prepared as its error, with no sentences, instead of raising. `language`: as
        `summarize_batch` takes it."""
        given = self.check_language(language)
        read: list[list[list[str]]] = []
        problems: list[str | None] = []
        languages: list[str] = []
        entries: list[frozenset[int]] = []
        for i, text in enumerate(texts):
            problem = document_error(text) if keep_errors else None
            if problem is None:
                try:
                    paragraphs, own, listed = self._paragraph_sentences(text, format, first_position + i, given)
                    read.append(paragraphs)
                    languages.append(own)
                    entries.append(listed)
                except (InputError, TypeError) as error:
                    if not keep_errors:
                        raise
                    problem = first_line(error).removeprefix(f"document {first_position + i}: ")
            if problem is not None:
                read.append([])
                languages.append(self.language)
                entries.append(frozenset())
            problems.append(problem)
        documents = [[sentence for paragraph in document for sentence in paragraph] for document in read]
        token_ids = iter(self.builder.tokenize([sentence for document in documents for sentence in document]))
        sections: list[list[Section]] = [[] for _ in documents]
        for i, sentences in enumerate(documents):
            ids = list(itertools.islice(token_ids, len(sentences)))
            if problems[i] is None:
                starts = section_starts(self.builder.window_tokens(ids))
                for first, end in zip(starts, [*starts[1:], len(sentences)]):
                    features = self.builder.from_tokenized(sentences[first:end], ids[first:end], languages[i])
                    sections[i].append(Section(first, end - first, features))
        return [
            PreparedDocument(
                sentences,
                own,
                [i for i, paragraph in enumerate(document) for _ in paragraph],
                problem,
                language,
                listed,
            )
            for sentences, own, document, problem, language, listed in zip(
                documents, sections, read, problems, languages, entries
            )
        ]

    def prepare_features(
        self, sentences: list[str], features: DocumentFeatures, language: str | None = None
    ) -> PreparedDocument:
        """A document whose features were built with this model's `FeatureConfig.for_inference()`
        (as training builds its test documents'), in `language` (a Punkt name; None: the
        model's); one longer than a section is cut into sections."""
        language = language or self.language
        if len(sentences) > SECTION_SENTENCES or Section(0, len(sentences), features).num_tokens > SECTION_TOKENS:
            return self.prepare([sentences], language=language)[0]
        sections = [Section(0, len(sentences), features)]
        return PreparedDocument(sentences, sections, [0] * len(sentences), language=language)

    def sentences(self, text: Text, format: str = "text", language: str | None = None) -> list[str]:
        """The sentences of a document, as `summarize` reads it (`language` as it takes it)."""
        paragraphs, _, _ = self._paragraph_sentences(text, format, 0, self.check_language(language))
        return [sentence for paragraph in paragraphs for sentence in paragraph]

    def _paragraph_sentences(
        self, text: Text, format: str, position: int = 0, language: str | None = None
    ) -> tuple[list[list[str]], str, frozenset[int]]:
        """The sentences of each paragraph of a document (a list of sentences is one paragraph),
        the Punkt name of the language they were split in (`_language_of`), and the paragraphs
        that are a list's entries (`Document.entries`)."""
        entries: frozenset[int] = frozenset()
        if isinstance(text, Document):
            paragraphs, entries = list(text.paragraphs), text.entries
        elif isinstance(text, (str, bytes)):  # read as a file of `format` is, plain text included
            document = read_document(text, format, f"document {position}")
            paragraphs, entries = list(document.paragraphs), document.entries
        elif isinstance(text, Sequence) and all(isinstance(s, str) for s in text):
            sentences = list(cast("Sequence[str]", text))  # not bytes, which the branch above took
            return [sentences], self._language_of(sentences, language, position), entries
        else:
            raise TypeError(
                f"document {position}: expected text, a Document or a list of sentences, got {type(text).__name__}"
            )
        own = self._language_of(paragraphs, language, position)
        return paragraph_sentences(paragraphs, own), own, entries

    def _collate(self, sections: Sequence[Section]) -> Batch:
        """One padded batch of the sections' windows, on the torch model's device."""
        from summarizer.modeling.batch import collate

        model = cast("BertSumModel", self.model)  # batches are for the torch model only
        batch = collate(_rows(sections), self.pad_token_id, token_slots=model.pooling.needs_token_slots)
        return batch.to(next(model.parameters()).device)

    def _score(self, sections: Sequence[Section], scored: Callable[[int], None] | None = None) -> list[list[float]]:
        """Score of each scored sentence (in `features.sentence_indices` order), as one batch,
        but for a section of more than MAX_WINDOWS_PER_PASS windows (a long document's), scored
        in a call of its own so that `scored(sentences)` hears of each call as it ends.

        In int8, whose activations are quantized with one scale per call, each section is a call
        of its own: its scores, and so a document's summary, never depend on the documents it is
        batched with (`summarize` and `summarize_batch`, any batch size, choose the same)."""
        scores: list[list[float]] = [[] for _ in sections]
        present = [i for i, section in enumerate(sections) if section.features.sentence_indices]
        int8 = self.loaded_as is not None and self.loaded_as.precision == "int8"
        alone = {i for i in present if int8 or len(sections[i].features.windows) > MAX_WINDOWS_PER_PASS}
        together = [i for i in present if i not in alone]
        for call in [[i] for i in sorted(alone)] + ([together] if together else []):
            rows = _rows([sections[i] for i in call])
            for i, row_scores in zip(call, self.model.score_rows(rows, self.pad_token_id, self.max_windows_per_pass)):
                scores[i] = row_scores
            if scored is not None:
                scored(sum(sections[i].size for i in call))
        if scored is not None:  # sections without a sentence to score
            scored(sum(section.size for i, section in enumerate(sections) if i not in set(present)))
        return scores


def _splits_sentences(model: M, directory: Path) -> M:
    """`model`, once the sentence splitters of its languages are known to load (one line if
    their parameters are not installed)."""
    try:
        punkt_tokenizer(model.config.language)
        for code in model.config.languages or ():
            punkt_tokenizer(LANGUAGE_CODES[code])
    except SettingError as error:
        raise InputError(f"{directory}: {first_line(error)}") from None
    return model


def builtin_models_reading(code: str) -> list[str]:
    """The built-in models (those installed) that read the language `code`."""
    readers = []
    for name in BUILTIN_MODELS:
        try:
            if code in read_settings(builtin_model_dir(name)).languages:
                readers.append(name)
        except InputError:  # not installed
            continue
    return readers


def _rows(sections: Sequence[Section]) -> list[dict[str, Any]]:
    """The sections' features as the columns a batch is collated from."""
    return [{**section.features.to_columns(), "first_sentence": section.first} for section in sections]


def _chunks(items: Iterator[T], size: int) -> Iterator[list[T]]:
    """`items` in consecutive lists of `size` (the last may be shorter), read as they are needed."""
    return iter(lambda: list(itertools.islice(items, size)), [])


def section_size(sentences: int) -> int:
    """Sentences per section of a document: as even as the fewest sections of at most
    SECTION_SENTENCES allow (513 sentences give 257 and 256, not 512 and 1)."""
    sections = max(1, -(-sentences // SECTION_SENTENCES))
    return max(1, -(-sentences // sections))


def section_starts(tokens: Sequence[int]) -> list[int]:
    """The first sentence of each section of a document whose sentences take `tokens[i]`
    tokens of the encoder's windows (`FeatureBuilder.window_tokens`).

    Sections of `section_size` sentences, unless one of them would take more than
    SECTION_TOKENS tokens (a book): then as many sections as its tokens need, each cut where
    the document's running token count passes its even share, and any of them longer than
    SECTION_SENTENCES sentences cut again into even parts."""
    size = section_size(len(tokens))
    starts = list(range(0, max(len(tokens), 1), size))
    if all(sum(tokens[first : first + size]) <= SECTION_TOKENS for first in starts):
        return starts
    total, longest = sum(tokens), max(tokens)
    # A section holds less than one share and one sentence: under SECTION_TOKENS.
    count = -(-total // max(SECTION_TOKENS - longest, longest))
    by_tokens, share, before = [], -1, 0
    for i, sentence_tokens in enumerate(tokens):
        section = min(before * count // total, count - 1)  # the last keeps the sentences that take none
        if section > share:
            by_tokens.append(i)
            share = section
        before += sentence_tokens
    starts = []
    for first, end in zip(by_tokens, [*by_tokens[1:], len(tokens)]):
        starts.extend(range(first, end, section_size(end - first)))
    return starts


def document_error(text: Any) -> str | None:
    """Why `text` (a document as `summarize_batch` takes it, or a table's value) cannot be
    summarized before it is read, or None: null or NaN, empty, or not a document."""
    if text is None or isinstance(text, float) and math.isnan(text):
        return "no text (null)"
    if isinstance(text, str):
        return None if text.strip() else "empty text"
    if isinstance(text, (bytes, Document)):
        return None  # read in its format, which says what is wrong
    if isinstance(text, Sequence) and all(isinstance(s, str) for s in text):
        return None if any(s.strip() for s in text) else "empty text"
    return f"expected text or a list of sentences, got {type(text).__name__}"


def _summary(
    document: PreparedDocument,
    scores: list[list[float]],
    selection: SelectionConfig,
    language: str,
    ranker: RankerConfig | None,
) -> Summary:
    """The summary of `document` (read in `language`, the model's, unless it names its own;
    chosen with the model's `ranker`, if any)."""
    if document.error is not None:
        return Summary([], [], [], [], [], [], document.error)
    language = document.language or language
    indices = [section.first + i for section in document.sections for i in section.features.sentence_indices]
    flat_scores = [score for section_scores in scores for score in section_scores]
    listed = [i for i, paragraph in enumerate(document.paragraphs) if paragraph in document.entries]
    chosen = select_sentences(
        document.sentences, indices, flat_scores, selection, language, entries=listed, ranker=ranker
    )
    by_index = dict(zip(indices, flat_scores))
    return Summary(
        sentences=[document.sentences[i] for i in chosen],
        indices=chosen,
        scores=[by_index[i] for i in chosen],
        document=document.sentences,
        sentence_scores=[by_index.get(i) for i in range(len(document.sentences))],
        sentence_paragraphs=document.paragraphs,
        language=language_code(language),
    )
