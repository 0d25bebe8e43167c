"""Training settings and batching, without a model: config loading, length grouping, hold-out."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from pytorch_lightning.utilities.rank_zero import rank_zero_only

from summarizer.errors import InputError
from summarizer.modeling.modeling_bertsum import InterSentenceHead
from summarizer.training.data import Example, LoadedData
from summarizer.training.datamodule import LengthGroupedSampler, _hold_out, _mixed, one_window
from summarizer.training.settings import ConfigError, load_config
from summarizer.training.train import build_datamodule, build_trainer

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
_RNG = random.Random(1)
LENGTHS = [_RNG.randint(10, 2000) for _ in range(103)]


SHIPPED_CONFIGS = sorted(path.stem for path in CONFIGS.glob("*.yaml"))


def test_the_shipped_configs_are_found() -> None:
    assert {"default", "tiny", "bbc", "cnndm", "cnndm-dm", "cnndm-accurate"} <= set(SHIPPED_CONFIGS)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_shipped_configs_load(name: str) -> None:
    config = load_config(CONFIGS / f"{name}.yaml")
    assert config.name == name


def test_default_config_is_the_main_job() -> None:
    config = load_config(CONFIGS / "default.yaml")
    assert (config.data.train, config.data.validation, config.data.test) == ("aclsum",) * 3
    assert (config.data.validation_split, config.data.test_split) == ("validation", "test")
    assert config.model.encoder is None and config.export_dir == Path("runs/default/model")
    assert config.selection.k == 3 and config.selection.trigram_blocking


def test_cnndm_config_builds_the_builtin_model_s_first_stage_and_its_learning_curve() -> None:
    config = load_config(CONFIGS / "cnndm.yaml")
    assert config.data.train.endswith("cnndm/train.jsonl") and config.data.shuffle == "fixed"
    assert config.data.limit_train == 4000 and [(m.data, m.split) for m in config.data.mix] == [("aclsum", "train")]
    assert (config.data.validation_split, config.data.test_split) == (":300", "300:")
    assert config.output.compact and config.model.trainable_layers == 2
    assert config.optim.scheduler == "inverse_sqrt" and config.trainer.max_epochs == 1
    overrides = ["data.limit_train=null", "data.mix=[]", "optim.ema_decay=null", "output.snapshots=[1000,4000,16000]"]
    curve = load_config(CONFIGS / "cnndm.yaml", overrides)
    chunk = curve.data.batch_size * curve.data.bucket_batches
    assert not curve.data.mix and all(n % chunk == 0 for n in curve.output.snapshots)


def test_the_builtin_model_s_second_stage_starts_from_the_first_s_export_and_weighs_dailymail() -> None:
    first, second = load_config(CONFIGS / "cnndm.yaml"), load_config(CONFIGS / "cnndm-dm.yaml")
    assert second.model.init_from == str(first.export_dir)
    assert second.model.trainable_layers == 4 and second.output.compact and second.output.compact_weights == "int8"
    assert (second.data.train, second.data.train_split, second.data.limit_train) == (first.data.train, "22294:", 12000)
    news = [m for m in second.data.mix if m.data == first.data.train]
    assert [m.split for m in news] == [":3000"]  # CNN: a fifth of the news (of the test split, a tenth)
    assert second.data.validation.endswith("validation-dm.jsonl") and second.data.validation_split == ":300"
    assert second.data.teacher is None and not second.model.features.truncate


def test_yaml_values_and_overrides(tmp_path: Path) -> None:
    path = tmp_path / "run.yaml"
    path.write_text("name: x\noptim:\n  encoder_lr: 3e-5\nmodel:\n  features:\n    truncate: true\n")
    config = load_config(path, ["optim.head_lr=2e-3", "trainer.devices=[0, 1]", "trainer.max_time=null"])
    assert (config.optim.encoder_lr, config.optim.head_lr) == (3e-5, 2e-3)
    assert config.model.features.truncate and config.trainer.arguments()["devices"] == [0, 1]
    assert config.run_dir == Path("runs/x") and config.export_dir == Path("runs/x/model")


def test_every_trainer_argument_reaches_lightning_untouched(tmp_path: Path) -> None:
    overrides = ["trainer.val_check_interval=0.5", "trainer.limit_train_batches=3", "trainer.profiler=simple"]
    config = load_config(CONFIGS / "tiny.yaml", [*overrides, f"output.runs_dir={tmp_path}"])
    trainer = build_trainer(config, [])
    assert (trainer.val_check_interval, trainer.limit_train_batches) == (0.5, 3)
    assert type(trainer.profiler).__name__ == "SimpleProfiler"
    assert "val_check_interval: 0.5" in config.to_yaml()  # the run's config.yaml keeps them
    with pytest.raises(ConfigError, match="trainer: .*val_check_interval"):
        build_trainer(load_config(CONFIGS / "tiny.yaml", ["trainer.val_check_interval=often"]), [])


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["model.features.max_window=3"], "model.features.max_window: unknown setting"),
        (["data.batch_size=0"], "data.batch_size: batch_size must be at least 1"),
        (["data.batch_size=true"], "data.batch_size: expected an integer, got True"),
        (["optim.scheduler=steps"], "optim.scheduler: scheduler must be one of"),
        (["checkpoint.monitor=val_bleu"], "checkpoint.monitor: monitor must be one of"),
        (["trainer=3"], "trainer: expected a section of settings, got 3"),
        (
            ["trainer.max_epoch=2"],
            "trainer.max_epoch: not an argument of pytorch_lightning.Trainer .did you mean max_epochs",
        ),
        (["trainer.logger=false"], "trainer.logger: set by training itself, not a setting"),
        (
            ["trainer.limit_val_batches=[1]"],
            "trainer.limit_val_batches: expected an integer or a number or null, got .1.$",
        ),
        (["seed.value=3"], "seed: is a value, not a section"),
        (["max_epochs"], "an override looks like section.key=value"),
        (["data.validation_fraction=0.2"], "data.validation: validation must be null to hold out validation_fraction"),
        (["data.teacher_weight=1.5"], r"data.teacher_weight: teacher_weight must be in \[0, 1\], got 1.5"),
        (["optim.ema_decay=1"], "optim.ema_decay: ema_decay must be a number in .0, 1. or null, got 1.0"),
    ],
)
def test_bad_settings_name_their_key(overrides: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        load_config(CONFIGS / "tiny.yaml", overrides)


def test_training_batches_group_lengths_and_follow_the_seed() -> None:
    sampler = LengthGroupedSampler(LENGTHS, 4, shuffle=True, seed=3, bucket_batches=5)
    first = sampler.batches()
    assert sorted(i for batch in first for i in batch) == list(range(len(LENGTHS)))
    assert all(len(batch) == 4 for batch in first[:-1]) and len(first[-1]) == 3
    spread = sum(max(LENGTHS[i] for i in b) - min(LENGTHS[i] for i in b) for b in first) / len(first)
    assert spread < 0.25 * (max(LENGTHS) - min(LENGTHS))
    assert LengthGroupedSampler(LENGTHS, 4, shuffle=True, seed=3, bucket_batches=5).batches() == first
    sampler.set_epoch(1)
    assert sampler.batches() != first
    assert list(sampler) == [i for batch in sampler.batches() for i in batch]


def test_processes_step_together_in_training_and_share_evaluation() -> None:
    train = [LengthGroupedSampler(LENGTHS, 4, shuffle=True, num_replicas=3, rank=r).batches() for r in range(3)]
    assert len({len(batches) for batches in train}) == 1
    assert {i for batches in train for b in batches for i in b} == set(range(len(LENGTHS)))
    evaluation = [LengthGroupedSampler(LENGTHS, 8, shuffle=False, num_replicas=3, rank=r).batches() for r in range(3)]
    documents = [i for batches in evaluation for b in batches for i in b]
    assert sorted(documents) == list(range(len(LENGTHS)))


def test_hold_out_is_fixed_and_disjoint() -> None:
    data = LoadedData("x.jsonl", [Example(id=str(i), text="t", reference="r") for i in range(50)], [], "f")
    splits = _hold_out(data, {"validation": 0.1, "test": 0.2})
    ids = {name: [d.id for d in split.documents] for name, split in splits.items()}
    assert [len(ids[n]) for n in ("train", "validation", "test")] == [35, 5, 10]
    assert len(set().union(*ids.values())) == 50
    assert len({split.fingerprint for split in splits.values()}) == 3
    again = _hold_out(data, {"validation": 0.1, "test": 0.2})
    assert {n: [d.id for d in s.documents] for n, s in again.items()} == ids


def test_skipped_rows_are_reported_once_by_the_first_process(
    tmp_path: Path, tokenizer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "The council approved the new budget for the harbour. The library will open on Sundays."
    rows = [json.dumps({"id": str(i), "text": text, "summary": "The council approved the budget."}) for i in range(4)]
    rows[1:1] = ['{"id": "broken"', json.dumps({"id": "empty", "text": "", "summary": "x"})]
    path = tmp_path / "train.jsonl"
    path.write_text("\n".join(rows) + "\n")
    overrides = [f"data.train={path}", "data.validation=null", "data.validation_fraction=0.25", "data.test=null"]
    config = load_config(CONFIGS / "tiny.yaml", [*overrides, "data.limit_train=null", "data.skip_bad_rows=true"])

    datamodule = build_datamodule(config, tokenizer)
    datamodule.prepare_data()
    datamodule.setup("fit")
    assert [len(datamodule.datasets[s]) for s in ("train", "validation")] == [3, 1]
    reported = [line for line in capsys.readouterr().err.splitlines() if line.startswith("skipped")]
    assert reported == [
        f"skipped: {path}, line 2: malformed JSON: Expecting ',' delimiter (column 16)",
        f"skipped: {path}, line 3: empty document in field 'text'",
    ]
    monkeypatch.setattr(rank_zero_only, "rank", 1)
    build_datamodule(config, tokenizer).setup("fit")
    assert "skipped" not in capsys.readouterr().err


def test_kept_order_batches_of_a_prefix_do_not_depend_on_what_follows() -> None:
    lengths = [random.Random(i).randint(10, 500) for i in range(40)]
    whole = LengthGroupedSampler(lengths, 2, shuffle=True, seed=3, bucket_batches=4, keep_order=True).batches()
    prefix = LengthGroupedSampler(lengths[:16], 2, shuffle=True, seed=3, bucket_batches=4, keep_order=True).batches()
    assert whole[: len(prefix)] == prefix
    assert sorted(i for batch in whole for i in batch) == list(range(40))
    assert prefix != [[i, i + 1] for i in range(0, 16, 2)]  # batches are grouped by length, not in file order


def test_a_resumed_epoch_skips_the_batches_already_trained() -> None:
    lengths = list(range(20))
    done = {"batches": 0}
    sampler = LengthGroupedSampler(lengths, 2, shuffle=True, seed=1, start=lambda: done["batches"])
    every = list(sampler)
    done["batches"] = 3
    assert list(sampler) == every[6:]


def _row(windows: list[list[int]]) -> dict:
    count = sum(map(len, windows))
    return {
        "id": "d",
        "input_ids": [[7] * (len(positions) * 4) for positions in windows],
        "cls_positions": windows,
        "sentence_indices": list(range(count)),
        "labels": [float(i) for i in range(count)],
        "sentence_features": [[float(i), 0.0] for i in range(count)],
    }


def test_one_window_cuts_the_row_to_one_window_and_its_sentences() -> None:
    row = _row([[0, 4], [0, 4, 8], [0]])
    first = one_window(row, 1.0, random.Random(0))
    assert first["first_sentence"] == 0 and first["labels"] == [0.0, 1.0] and len(first["input_ids"]) == 1
    later = {one_window(row, 0.0, random.Random(seed))["first_sentence"] for seed in range(20)}
    assert later == {2, 5}
    cut = one_window(
        row,
        0.0,
        random.Random(next(s for s in range(20) if one_window(row, 0.0, random.Random(s))["first_sentence"] == 2)),
    )
    assert cut["labels"] == [2.0, 3.0, 4.0] and cut["sentence_indices"] == [2, 3, 4]
    assert cut["sentence_features"] == [[2.0, 0.0], [3.0, 0.0], [4.0, 0.0]] and cut["cls_positions"] == [[0, 4, 8]]
    assert one_window(_row([[0, 4]]), 0.0, random.Random(0))["first_sentence"] == 0  # a single window is the first


def test_the_head_places_each_row_at_its_first_sentence() -> None:
    torch.manual_seed(0)
    head = InterSentenceHead(8, InterSentenceHead.Settings(heads=2, feedforward=16, dropout=0.0)).eval()
    sentences, mask = torch.randn(2, 3, 8), torch.ones(2, 3, dtype=torch.bool)
    assert torch.equal(head(sentences, mask, torch.zeros(2, dtype=torch.long)), head(sentences, mask))
    shifted = head(sentences, mask, torch.tensor([0, 5]))
    assert torch.equal(shifted[0], head(sentences, mask)[0]) and not torch.allclose(
        shifted[1], head(sentences, mask)[1]
    )


def test_mix_adds_other_sources_repeated_and_spread_through_the_run(tmp_path: Path, tokenizer) -> None:
    def jsonl(name: str, count: int) -> Path:
        path = tmp_path / f"{name}.jsonl"
        summary = "The council voted."
        text = "The {} council met on day {}. It voted for the budget."
        rows = (
            json.dumps({"id": f"{name}{i}", "text": text.format(name, i), "summary": summary}) for i in range(count)
        )
        path.write_text("".join(row + "\n" for row in rows))
        return path

    news, papers = jsonl("news", 20), jsonl("paper", 3)
    base = [f"data.train={news}", "data.validation=null", "data.test=null", "data.shuffle=fixed", "data.limit_train=8"]

    def ids(*overrides: str) -> list[str]:
        config = load_config(CONFIGS / "tiny.yaml", [*base, *overrides])
        return [document.id for document in build_datamodule(config, tokenizer).load()["train"].documents]

    def fingerprint(*overrides: str) -> str:
        config = load_config(CONFIGS / "tiny.yaml", [*base, *overrides])
        return build_datamodule(config, tokenizer).load()["train"].fingerprint

    alone = ids()
    mixed = ids(f"data.mix=[{{data: {papers}, repeat: 2}}]")
    repeats = ["paper0", "paper1", "paper2", "paper0#2", "paper1#2", "paper2#2"]
    assert len(alone) == 8 and sorted(mixed) == sorted(alone + repeats)  # limit_train counts data.train's only
    assert {i for i, name in enumerate(mixed) if name.startswith("paper")} != set(range(8, 14))
    assert mixed == ids(f"data.mix=[{{data: {papers}, repeat: 2}}]")
    # the feature cache tells the mixes apart
    prints = {
        fingerprint(),
        fingerprint(f"data.mix=[{{data: {papers}}}]"),
        fingerprint(f"data.mix=[{{data: {papers}, repeat: 2}}]"),
    }
    assert len(prints) == 3
    # ids stay unique across sources, so each document reads a window of its own
    twice = ids(f"data.mix=[{{data: {papers}}}, {{data: {papers}}}, {{data: {news}}}]")
    assert len(set(twice)) == len(twice) == 8 + 3 + 3 + 20 and "paper0#2" in twice and "news0#2" in twice
    # a source with other field names names them
    other = tmp_path / "other.jsonl"
    other.write_text(
        json.dumps({"id": "o", "body": "The port reopened. Ships sailed in.", "gist": "It reopened."}) + "\n"
    )
    assert "o" in ids(f"data.mix=[{{data: {other}, text_field: body, summary_field: gist}}]")
    # never the documents the run validates or tests on
    with pytest.raises(InputError, match=r"^data.mix\[0\]: 3 of its documents are data.test's too: the run would"):
        ids(f"data.test={papers}", "data.test_split=null", f"data.mix=[{{data: {papers}}}]")
    with pytest.raises(InputError, match=r"^data.mix\[0\]: 4 of its documents are data.validation's too"):
        ids("data.validation_fraction=0.2", "data.limit_train=null", f"data.mix=[{{data: {news}}}]")
    with pytest.raises(InputError, match=r"^data.mix\[0\]: .*missing.jsonl"):
        ids(f"data.mix=[{{data: {tmp_path / 'missing.jsonl'}}}]")
    with pytest.raises(ConfigError, match=r"^data.mix\[0\].repeat: repeat must be at least 1"):
        ids(f"data.mix=[{{data: {papers}, repeat: 0}}]")
    with pytest.raises(ConfigError, match=r"^data.mix\[0\].data: "):
        ids("data.mix=[{repeat: 2}]")


def test_mixed_keeps_the_order_the_built_in_model_was_trained_in() -> None:
    # configs/cnndm.yaml reproduces summarizer/builtin/news only if this order never changes
    train = LoadedData("t", [Example(id=f"n{i}", text=f"news {i}") for i in range(5)], [], "t")
    papers = LoadedData("p", [Example(id=f"p{i}", text=f"paper {i}") for i in range(3)], [], "p")
    plain = train.documents + [
        doc if r == 0 else replace(doc, id=f"{doc.id}#{r + 1}") for r in range(2) for doc in papers.documents
    ]
    order = list(range(len(plain)))
    random.Random(0).shuffle(order)
    mixed, ids = _mixed(train, [(papers, 2)])
    assert [d.id for d in mixed.documents] == [plain[i].id for i in order]
    assert ids == [[d.id for d in plain[5:]]]  # each source's documents, as the mix named them
    clash = LoadedData("c", [Example(id="n0", text="another")], [], "p")
    renamed, ids = _mixed(train, [(clash, 2)])
    assert sorted(d.id for d in renamed.documents)[:3] == ["n0", "n0#2", "n0#3"] and ids == [["n0#2", "n0#3"]]
    assert (
        renamed.fingerprint
        != _mixed(train, [(LoadedData("c", [Example(id="x", text="another")], [], "p"), 2)])[0].fingerprint
    )


def test_a_mix_sources_language_is_checked_and_names_the_setting() -> None:
    assert load_config(None, ["data.mix=[{data: aclsum, language: fr}]"]).data.mix[0].language == "fr"
    with pytest.raises(ConfigError, match=r"^data\.mix\[0\]\.language: language must be an ISO code .*got 'xx'$"):
        load_config(None, ["data.mix=[{data: aclsum, language: xx}]"])
