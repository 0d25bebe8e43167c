import json
import shutil

import pytest
from conftest import export

from summarizer import Summarizer
from summarizer.modeling.features import FeatureConfig
from summarizer.modeling.modeling_bertsum import BertSumModel
from summarizer.selection import SelectionConfig
from summarizer.text.centrality import most_central
from summarizer.training import evaluate as evaluate_module
from summarizer.training.data import Example, load_documents
from summarizer.training.evaluate import evaluate, main
from summarizer.training.rouge import METRICS, rouge

ROWS = [
    {
        "id": f"doc-{n}",
        "text": f"Town {n} opened a new park on Friday. Families came from nearby villages. "
        f"The mayor of town {n} gave a short speech. Rain started in the afternoon. "
        "Most visitors stayed until the evening.",
        # The reference repeats the first two sentences, so Lead with k=2 is perfect.
        "summary": f"Town {n} opened a new park on Friday.\nFamilies came from nearby villages.",
    }
    for n in range(6)
]


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "tiny.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path


def test_model_lead_and_oracle_on_the_same_sentences(tiny_model_dir, data_file):
    summarizer = Summarizer.from_pretrained(tiny_model_dir)
    documents = load_documents(data_file).documents
    result = evaluate(summarizer, documents, SelectionConfig(k=2), bootstrap_samples=200)
    assert result.documents == 6 and set(result.systems) == {"model", "lead", "textrank", "oracle"}
    for metric in METRICS:
        assert result.systems["lead"].mean[metric] == pytest.approx(100.0)
        assert result.systems["oracle"].mean[metric] == pytest.approx(100.0)
    model_summaries = [s.sentences for s in summarizer.summarize_batch([d.text for d in documents], k=2)]
    references = [row["summary"].split("\n") for row in ROWS]
    assert result.systems["model"].mean == pytest.approx(rouge(model_summaries, references).mean)
    for system in result.systems.values():
        for metric in METRICS:
            low, high = system.interval[metric]
            assert low <= system.mean[metric] + 1e-9 and system.mean[metric] <= high + 1e-9


def test_textrank_takes_the_most_central_sentences(tiny_model_dir, tmp_path):
    # The last sentence shares "council", "bridge" or "harbour" with three of the other four.
    text = (
        "The council met on Monday. Cats sleep all afternoon. The bridge needs repairs. "
        "Fishing boats fill the harbour. The council will repair the harbour bridge."
    )
    path = tmp_path / "central.jsonl"
    path.write_text(json.dumps({"text": text, "summary": "The council will repair the harbour bridge."}) + "\n")
    documents = load_documents(path).documents
    result = evaluate(Summarizer.from_pretrained(tiny_model_dir), documents, SelectionConfig(k=1))
    assert result.systems["textrank"].mean["rouge1"] == pytest.approx(100.0)
    assert result.systems["lead"].mean["rouge1"] < 50.0


@pytest.mark.parametrize(
    ("centrality", "words", "textrank_words"),
    [(True, "letters", "letters"), (True, "tokens", "tokens"), (False, "tokens", "letters")],
)
def test_textrank_reads_words_as_the_model_does(
    tiny_encoder_dir, tokenizer, tmp_path, centrality, words, textrank_words
):
    # "Pernod's" and "Pernod" are one word as letters, two as tokens: the most central differs.
    sentences = ["Pernod's shares rose.", "Pernod will bid.", "Pernod's rivals waited.", "Cats sleep all day."]
    assert most_central(sentences, 1, words="letters") == [1] and most_central(sentences, 1, words="tokens") == [0]
    features = FeatureConfig(centrality=centrality, centrality_words=words)
    export(BertSumModel.from_encoder(tiny_encoder_dir, features=features), tokenizer, tmp_path)
    documents = [Example(id="d", sentences=sentences, reference=sentences[1])]
    result = evaluate(Summarizer.from_pretrained(tmp_path), documents, SelectionConfig(k=1))
    textrank = result.systems["textrank"].mean["rouge1"]
    if textrank_words == "letters":
        assert textrank == pytest.approx(100.0)
    else:
        assert textrank < 50.0


def test_ratio_sets_the_lead_length(tiny_model_dir, data_file):
    summarizer = Summarizer.from_pretrained(tiny_model_dir)
    result = evaluate(summarizer, load_documents(data_file).documents, SelectionConfig(ratio=0.2))
    assert result.systems["lead"].mean["rouge1"] < 100.0  # one sentence of the two in the reference


def test_command_prints_json(tiny_model_dir, data_file, capsys):
    assert main(["--model", str(tiny_model_dir), "--data", str(data_file), "-k", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["documents"] == 6 and report["selection"]["k"] == 2
    lead = report["systems"]["lead"]["rougeLsum"]
    assert lead["f1"] == pytest.approx(100.0) and lead["low"] <= lead["f1"] <= lead["high"]
    assert set(report["systems"]["model"]) == set(METRICS)


def test_the_report_names_the_trigram_blocking_the_models_summaries_had(tiny_model_dir, data_file, tmp_path, capsys):
    model = tmp_path / "model"
    shutil.copytree(tiny_model_dir, model)
    config = json.loads((model / "config.json").read_text())
    (model / "config.json").write_text(json.dumps({**config, "trigram_blocking": False}))
    seen = []
    for directory, options in ((tiny_model_dir, []), (model, []), (model, ["--trigram-blocking"])):
        assert main(["--model", str(directory), "--data", str(data_file), "-k", "2", "--json", *options]) == 0
        seen.append(json.loads(capsys.readouterr().out)["selection"]["trigram_blocking"])
    assert seen == [True, False, True]
    assert main(["--model", str(model), "--data", str(data_file), "-k", "2"]) == 0
    assert "2 sentences, trigram blocking off" in capsys.readouterr().out


def test_the_report_says_where_the_models_ranker_chose(tiny_model_dir, data_file, tmp_path, capsys):
    model = tmp_path / "model"
    shutil.copytree(tiny_model_dir, model)
    config = json.loads((model / "config.json").read_text())
    ranker = {"features": ["position"], "mean": [0.0], "std": [1.0], "weights": [1.0], "lengths": [2]}
    (model / "config.json").write_text(json.dumps({**config, "ranker": ranker}))
    chose = []
    for options in (["-k", "2"], ["-k", "3"], ["--ratio", "0.4"], ["-k", "2", "--no-ranker"]):
        assert main(["--model", str(model), "--data", str(data_file), "--json", *options]) == 0
        chose.append(json.loads(capsys.readouterr().out)["ranker"])
    assert chose[0]["features"] == ["position"] and chose[0]["candidates"] == 5
    assert chose[1:] == [None, None, None]
    assert main(["--model", str(model), "--data", str(data_file), "-k", "2"]) == 0
    assert (
        "2 sentences, trigram blocking on, the model's ranker over its 5 best-scored sentences"
        in capsys.readouterr().out
    )
    assert main(["--model", str(model), "--data", str(data_file), "-k", "2", "--no-ranker"]) == 0
    assert "ranker" not in capsys.readouterr().out


def test_command_prints_a_table(tiny_model_dir, data_file, capsys):
    assert main(["--model", str(tiny_model_dir), "--data", str(data_file), "--ratio", "0.4", "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert "3 documents" in out and "ROUGE-Lsum" in out
    assert [line.split()[0] for line in out.splitlines()[2:]] == ["model", "lead", "textrank", "oracle"]


def test_bad_model_or_data_exit_2(tiny_model_dir, data_file, tmp_path, capsys):
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(ROWS[0]) + "\n{not json\n")
    cases = [
        (["--model", str(tmp_path / "absent"), "--data", str(data_file)], "no such model directory"),
        (["--model", str(tiny_model_dir), "--data", str(tmp_path / "absent.jsonl")], "absent.jsonl: no such file"),
        (["--model", str(tiny_model_dir), "--data", str(broken)], "broken.jsonl, line 2: malformed JSON"),
        (["--model", str(tiny_model_dir), "--data", str(data_file), "--text-field", "body"], "no field 'body'"),
        (["--model", str(tiny_model_dir)], "--data"),
    ]
    for argv, message in cases:
        assert main(argv) == 2
        assert message in capsys.readouterr().err


def test_aclsum_needs_a_split(tmp_path, capsys):
    assert main(["--model", str(tmp_path / "absent"), "--data", "aclsum"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "evaluate: error: --data aclsum needs --split (train, validation or test)",
        "try 'python -m summarizer.evaluate --help'",
    ]
    assert "no such model directory" not in err  # refused before anything is loaded


@pytest.mark.parametrize(
    "error, status, message",
    [
        (RuntimeError("boom"), 1, "evaluate: unexpected error: RuntimeError: boom"),
        (KeyboardInterrupt(), 130, "evaluate: interrupted"),
    ],
)
def test_failures_after_loading_end_with_one_line(
    tiny_model_dir, data_file, monkeypatch, capsys, error, status, message
):
    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(evaluate_module, "evaluate", fail)
    assert main(["--model", str(tiny_model_dir), "--data", str(data_file)]) == status
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.splitlines()) == 1


def test_skip_bad_rows(tiny_model_dir, tmp_path, capsys):
    data = tmp_path / "mixed.jsonl"
    data.write_text(json.dumps(ROWS[0]) + "\n" + json.dumps({"text": "No summary here."}) + "\n")
    assert main(["--model", str(tiny_model_dir), "--data", str(data), "--skip-bad-rows", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["documents"] == 1
    assert "line 2" in captured.err


def test_margins_of_each_source_and_of_the_test_split_mix():
    from summarizer.training.benchmark import margins

    got = margins({"CNN": [3.0, 1.0], "DailyMail": [1.0, 1.0, 1.0]}, {"CNN": [0.0, 0.0], "DailyMail": [0.0] * 3})
    assert got["CNN"].mean == pytest.approx(2.0) and got["CNN"].low == pytest.approx(1.0)
    assert got["CNN"].high == pytest.approx(3.0)
    assert got["DailyMail"].mean == got["DailyMail"].low == got["DailyMail"].high == pytest.approx(1.0)
    assert got["mix"].mean == pytest.approx(0.1 * 2.0 + 0.9 * 1.0)
    assert got["mix"].low == pytest.approx(0.1 * 1.0 + 0.9) and got["mix"].high == pytest.approx(0.1 * 3.0 + 0.9)
    assert "mix" not in margins({"CNN": [1.0]}, {"CNN": [0.0]})


@pytest.fixture
def cnndm_dir(tmp_path, monkeypatch):
    from summarizer.training import benchmark

    # Development portions of 2 CNN and 3 DailyMail documents, so that 6 rows each leave 4 and 3 to test.
    monkeypatch.setattr(benchmark, "SOURCES", (("CNN", "validation.jsonl", 2), ("DailyMail", "validation-dm.jsonl", 3)))
    for name in ("validation.jsonl", "validation-dm.jsonl"):
        (tmp_path / name).write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return tmp_path


@pytest.mark.parametrize("portion, sizes", [("dev", {"CNN": 2, "DailyMail": 3}), ("test", {"CNN": 4, "DailyMail": 3})])
def test_cnndm_reads_each_source_apart_with_its_margin_and_the_mix(tiny_model_dir, cnndm_dir, portion, sizes, capsys):
    argv = ["--model", str(tiny_model_dir), "--cnndm", portion, "--cnndm-dir", str(cnndm_dir), "-k", "2", "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert {source: part["documents"] for source, part in report["sources"].items()} == sizes
    margins = report["rouge1_margin_over_lead"]
    for source, part in report["sources"].items():
        systems = part["systems"]
        expected = systems["model"]["rouge1"]["f1"] - systems["lead"]["rouge1"]["f1"]
        assert margins[source]["mean"] == pytest.approx(expected)
        assert margins[source]["low"] <= margins[source]["mean"] <= margins[source]["high"]
    assert margins["mix"]["mean"] == pytest.approx(0.1 * margins["CNN"]["mean"] + 0.9 * margins["DailyMail"]["mean"])
    assert main(argv[:-1]) == 0
    table = capsys.readouterr().out
    assert "CNN:" in table and "DailyMail:" in table and "test-split mix (10% CNN, 90% DailyMail)" in table


def test_cnndm_portion_without_documents_is_one_line(tiny_model_dir, cnndm_dir, capsys):
    (cnndm_dir / "validation.jsonl").write_text(json.dumps(ROWS[0]) + "\n")
    assert main(["--model", str(tiny_model_dir), "--cnndm", "test", "--cnndm-dir", str(cnndm_dir)]) == 2
    err = capsys.readouterr().err
    assert "validation.jsonl: no usable documents" in err and len(err.strip().splitlines()) == 1
