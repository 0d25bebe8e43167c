"""Bad and hostile inputs: each ends with one line on stderr and its exit status, and nothing
outside the output location is written or lost.

Every case runs in a sandbox folder (an article, a copy of a tiny model, data files); the
sandbox is compared, file by file, before and after.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import runpy
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import TINY_HEAD
from safetensors.torch import load_file, save_file

from summarizer.cli import command as cli
from summarizer.console import run_guarded
from summarizer.errors import InputError
from summarizer.pipeline import Summarizer
from summarizer.training import evaluate
from summarizer.training import train as train_module

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "tiny.yaml"
ARTICLE = (
    "The river flooded the old town on Tuesday night. "
    "Hundreds of residents were moved to the school gym. "
    "Officials said the water rose faster than expected. "
    "Volunteers brought blankets and hot food."
)
ROW = {"id": "a", "text": ARTICLE, "summary": "The river flooded the old town on Tuesday night."}
MARKER = "code-ran"  # written by the Python file of a hostile model directory, if it ever runs
HOSTILE_CODE = f"from pathlib import Path\nPath(__file__).with_name({MARKER!r}).write_text('x')\n"
is_root = os.geteuid() == 0
LAUNCH = "from bertsum.launch import summarize; summarize()"  # what the installed command runs


def edit_json(path: Path, **changes: object) -> None:
    settings = json.loads(path.read_text())
    settings.update(changes)
    path.write_text(json.dumps(settings))


def hostile(box: Path, file: str, **changes: object) -> None:
    """A model directory whose `file` asks transformers to run the directory's own code."""
    (box / "model" / "hostile.py").write_text(HOSTILE_CODE)
    edit_json(box / "model" / file, **changes)


def summarize(*args: object) -> Callable[[Path], tuple[str, list[str]]]:
    return lambda box: ("summarize", [*map(str, args)])


def in_box(setup: Callable[[Path], object], tool: str, *args: str) -> Callable[[Path], tuple[str, list[str]]]:
    """A case that prepares the sandbox, then runs `tool` with `args` ("{box}" is the sandbox)."""

    def build(box: Path) -> tuple[str, list[str]]:
        setup(box)
        return tool, [arg.format(box=box) for arg in args]

    return build


def write(name: str, data: bytes | str) -> Callable[[Path], object]:
    def setup(box: Path) -> None:
        path = box / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)

    return setup


def jsonl(*rows: object) -> str:
    return "".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows)


def remove(name: str) -> Callable[[Path], object]:
    return lambda box: [path.unlink() for path in (box / "model").glob(name)]


def corrupt_weights(box: Path) -> None:
    path = box / "model" / "model.safetensors"
    path.write_bytes(path.read_bytes()[:200])


def reshape_weight(box: Path) -> None:
    path = box / "model" / "model.safetensors"
    weights = load_file(str(path))
    name = next(k for k in weights if k.startswith("head.") and k.endswith("weight") and weights[k].dim() == 2)
    weights[name] = weights[name][:, :-1].contiguous()
    save_file(weights, str(path))


def train_args(data: str) -> list[str]:
    return [
        "--config", str(TINY), "model.encoder={box}/encoder", f"data.train={{box}}/{data}",
        "data.validation=null", "data.test=null", "output.runs_dir={box}/runs",
    ]  # fmt: skip


# (case id, builder, exit status, what the one line on stderr says)
CASES = [
    # Inputs of `summarize`
    ("latin-1", in_box(write("in.txt", "Caf\xe9 au lait. It is good.".encode("latin-1")), "summarize", "{box}/in.txt"), 1, "not valid UTF-8"),
    ("binary", in_box(write("in.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "summarize", "{box}/in.png"), 1, "binary file"),
    ("utf-16-without-mark", in_box(write("in.txt", "Hello. World.".encode("utf-16-le")), "summarize", "{box}/in.txt"), 1, "binary file"),
    ("empty", in_box(write("in.txt", ""), "summarize", "{box}/in.txt"), 1, "empty file"),
    ("blank", in_box(write("in.txt", " \n\t\n"), "summarize", "{box}/in.txt"), 1, "empty file"),
    ("bom only", in_box(write("in.txt", b"\xef\xbb\xbf"), "summarize", "{box}/in.txt"), 1, "empty file"),
    ("missing", summarize("no-such-file.txt"), 1, "no-such-file.txt: no such file or directory"),
    ("binary named .md", in_box(write("in.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "summarize", "{box}/in.md"), 1, "in.md: binary file, not text"),
    ("markdown without text", in_box(write("in.md", "# Title\n\n```\ncode\n```\n"), "summarize", "{box}/in.md"), 1, "in.md: no running text found in this markdown file"),
    ("html without a body", in_box(write("in.html", "<html><head><title>T</title></head></html>"), "summarize", "{box}/in.html"), 1, "in.html: no running text found in this html file"),
    ("pdf that is not one", in_box(write("in.pdf", ARTICLE), "summarize", "{box}/in.pdf"), 1, "in.pdf: not a PDF file"),
    ("truncated pdf", in_box(write("in.pdf", b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog"), "summarize", "{box}/in.pdf"), 1, "in.pdf: not a readable PDF"),
    ("input format markdown on a pdf", in_box(write("in.pdf", b"%PDF-1.7\n\x00\x01"), "summarize", "--input-format", "markdown", "{box}/in.pdf"), 1, "in.pdf: binary file, not text"),
    ("unknown input format", summarize("--input-format", "xlsx", "x"), 2, "invalid choice: 'xlsx'"),
    ("empty directory", in_box(lambda box: (box / "nothing").mkdir(), "summarize", "{box}/nothing"), 1, "no files in this directory"),
    ("only hidden files", in_box(write("hid/.secret.txt", ARTICLE), "summarize", "{box}/hid"), 1, "no files in this directory"),
    ("/dev/zero", summarize("/dev/zero"), 1, "/dev/zero: a character device, not a regular file"),
    ("fifo", in_box(lambda box: os.mkfifo(box / "pipe"), "summarize", "{box}/pipe"), 1, "a FIFO, not a regular file"),
    ("over the size limit", in_box(write("big.txt", "Word. " * 200_000), "summarize", "--max-input-mb", "1", "{box}/big.txt"), 1, "larger than the input limit of 1 MB"),
    ("/dev/zero in a directory", in_box(lambda box: (box / "d").mkdir() or (box / "d" / "z.txt").symlink_to("/dev/zero"), "summarize", "{box}/d"), 1, "no files in this directory"),
    ("broken link in a directory", in_box(lambda box: (box / "d").mkdir() or (box / "d" / "x.txt").symlink_to(box / "gone"), "summarize", "{box}/d"), 1, "no files in this directory"),
    ("stdin twice", summarize("-", "-"), 2, "stdin (-) can be read only once"),
    ("k 0", summarize("-k", "0", "x"), 2, "expected a whole number of at least 1"),
    ("ratio 2", summarize("--ratio", "2", "x"), 2, "expected a number in (0, 1]"),
    ("max-input-mb 0", summarize("--max-input-mb", "0", "x"), 2, "expected a whole number of at least 1"),
    ("unknown format", summarize("--format", "pdf", "x"), 2, "invalid choice: 'pdf'"),
    ("a name with a newline", in_box(write("bad\nname.txt", b"\x00\x01"), "summarize", "{box}/bad\nname.txt"), 1, "'{box}/bad'$'\\n''name.txt': binary file, not text"),
    ("a name with an escape sequence", in_box(write("\x1b[2Jx.txt", ""), "summarize", "{box}/\x1b[2Jx.txt"), 1, "'{box}/'$'\\033''[2Jx.txt': empty file"),
    ("a table: a .json with a 10,000-digit integer", in_box(write("t.json", '[{"text": "A b."}, {"id": 1' + "0" * 10_000 + "}]"), "summarize", "--model", "{box}/model", "--text-field", "text", "{box}/t.json"), 2, "t.json, field '[1].id': an integer of 10001 digits (more than the 4300 Python reads)"),
    # Outputs of `summarize`
    ("output overwrites its input", in_box(write("in.txt", ARTICLE), "summarize", "{box}/in.txt", "-o", "{box}/in.txt"), 2, "would overwrite its input"),
    ("output under a file", in_box(write("in.txt", ARTICLE), "summarize", "{box}/in.txt", "-o", "{box}/in.txt/out.txt"), 1, "cannot write: Not a directory"),
    ("output directory under a file", in_box(write("in.txt", ARTICLE), "summarize", "{box}/in.txt", "-o", "{box}/in.txt/sub/"), 1, "cannot write: Not a directory"),
    # Broken model directories
    ("model missing", in_box(lambda box: None, "summarize", "--model", "absent", "{box}/a.txt"), 2, "absent: no such model directory"),
    ("model is a file", in_box(write("in.txt", ARTICLE), "summarize", "--model", "{box}/in.txt", "{box}/in.txt"), 2, "not a bertsum model directory"),
    ("model empty", in_box(lambda box: (box / "m").mkdir(), "summarize", "--model", "{box}/m", "{box}/a.txt"), 2, "not a bertsum model directory"),
    ("config not JSON", in_box(write("model/config.json", "{oops"), "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "config.json: not readable JSON"),
    ("config a list", in_box(write("model/config.json", "[1, 2]"), "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "config.json: expected a JSON object"),
    ("config binary", in_box(write("model/config.json", b"\xff\xfe\x00"), "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "config.json: not readable JSON"),
    ("config nested too deeply", in_box(write("model/config.json", '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"), "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "config.json: not readable JSON: arrays or objects nested too deeply"),
    ("config with a 10,000-digit integer", in_box(write("model/config.json", '{"a": 1' + "0" * 10_000 + "}"), "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "config.json: not readable JSON: an integer too long to read"),
    ("config of another model", in_box(lambda box: edit_json(box / "model/config.json", model_type="bert"), "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, 'no config.json with model_type "bertsum"'),
    ("unknown head", in_box(lambda box: edit_json(box / "model/config.json", head={"type": "evil"}), "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "head type must be one of"),
    ("unknown head setting", in_box(lambda box: edit_json(box / "model/config.json", head={"type": "linear", "depth": 2}), "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "head setting 'depth' is not one of the linear head's"),
    ("old format of the future", in_box(lambda box: (write("model/bertsum.json", '{"format_version": 99}')(box), edit_json(box / "model/config.json", model_type="bert")), "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "bertsum.json: model format 99 is not supported"),
    ("base encoder path", in_box(lambda box: edit_json(box / "model/config.json", base_encoder="../../etc"), "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "base_encoder must be one of"),
    ("weights truncated", in_box(corrupt_weights, "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "cannot load the model"),
    ("weights missing", in_box(lambda box: edit_json(box / "model/config.json", head={**TINY_HEAD, "layers": 3}), "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "weights do not fit config.json (missing: head.layers.layers.2"),
    ("weights of another shape", in_box(reshape_weight, "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "weights do not fit config.json (wrong shape"),
    ("config missing", in_box(remove("config.json"), "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "not a bertsum model directory"),
    ("config not JSON", in_box(write("model/config.json", "{"), "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "config.json: not readable JSON"),
    ("tokenizer missing", in_box(remove("tokenizer*"), "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "no tokenizer (tokenizer_config.json is missing)"),
    ("vocabulary missing", in_box(remove("tokenizer.json"), "summarize", "--model", "{box}/model", "{box}/a.txt"), 2, "no tokenizer vocabulary"),
    # Hostile model directories: never a prompt, never their code
    ("config auto_map", in_box(lambda box: hostile(box, "config.json", auto_map={"AutoModel": "hostile.Model"}), "summarize", "--model", "{box}/model", "-"), 2, "config.json: refused: it asks to run Python code"),
    ("unknown model_type", in_box(lambda box: hostile(box, "config.json", model_type="hostile"), "summarize", "--model", "{box}/model", "-"), 2, "model_type 'hostile' is not one transformers knows"),
    ("encoder auto_map", in_box(lambda box: edit_json(box / "model/config.json", encoder={"model_type": "bert", "auto_map": {"AutoModel": "hostile.M"}}), "summarize", "--model", "{box}/model", "-"), 2, "config.json: refused: it asks to run Python code"),
    ("unknown encoder model_type", in_box(lambda box: edit_json(box / "model/config.json", encoder={"model_type": "hostile"}), "summarize", "--model", "{box}/model", "-"), 2, "model_type 'hostile' is not one transformers knows"),
    ("bertsum as its own encoder", in_box(lambda box: edit_json(box / "model/config.json", encoder={"model_type": "bertsum"}), "summarize", "--model", "{box}/model", "-"), 2, "a bertsum model cannot be the encoder of another"),
    ("tokenizer auto_map", in_box(lambda box: hostile(box, "tokenizer_config.json", auto_map={"AutoTokenizer": ["hostile.T", None]}), "summarize", "--model", "{box}/model", "-"), 2, "tokenizer_config.json: refused"),
    # evaluate
    ("evaluate: missing data", in_box(lambda box: None, "evaluate", "--model", "{box}/model", "--data", "{box}/none.jsonl"), 2, "none.jsonl: no such file"),
    ("evaluate: malformed line", in_box(write("d.jsonl", jsonl(ROW, "{nope")), "evaluate", "--model", "{box}/model", "--data", "{box}/d.jsonl"), 2, "d.jsonl, line 2: malformed JSON"),
    ("evaluate: no summary field", in_box(write("d.jsonl", jsonl({"text": ARTICLE})), "evaluate", "--model", "{box}/model", "--data", "{box}/d.jsonl"), 2, "d.jsonl"),
    ("evaluate: empty file", in_box(write("d.jsonl", ""), "evaluate", "--model", "{box}/model", "--data", "{box}/d.jsonl"), 2, "d.jsonl"),
    ("evaluate: binary file", in_box(write("d.jsonl", b"\x00\x01\x02\xff"), "evaluate", "--model", "{box}/model", "--data", "{box}/d.jsonl"), 2, "d.jsonl"),
    ("evaluate: aclsum without split", in_box(lambda box: None, "evaluate", "--model", "{box}/model", "--data", "aclsum"), 2, "--data aclsum needs --split"),
    ("evaluate: hostile model", in_box(lambda box: hostile(box, "config.json", auto_map={"AutoConfig": "hostile.C"}), "evaluate", "--model", "{box}/model", "--data", "{box}/none.jsonl"), 2, "refused"),
    # Training data
    ("train: malformed line", in_box(write("t.jsonl", jsonl(ROW, "{nope")), "train", *train_args("t.jsonl")), 2, "data.train: {box}/t.jsonl, line 2: malformed JSON"),
    ("train: missing field", in_box(write("t.jsonl", jsonl(ROW, {"id": "b", "text": ARTICLE})), "train", *train_args("t.jsonl")), 2, "data.train: {box}/t.jsonl"),
    ("train: empty file", in_box(write("t.jsonl", ""), "train", *train_args("t.jsonl")), 2, "data.train: {box}/t.jsonl"),
    ("train: missing file", in_box(lambda box: None, "train", *train_args("none.jsonl")), 2, "none.jsonl: no such file"),
    ("train: not UTF-8", in_box(write("t.jsonl", '{"text": "Caf\xe9", "summary": "x"}\n'.encode("latin-1")), "train", *train_args("t.jsonl")), 2, "data.train: {box}/t.jsonl"),
    ("train: hostile encoder", in_box(lambda box: (box / "encoder" / "config.json").write_text(json.dumps({"model_type": "hostile"})), "train", *train_args("t.jsonl")), 2, "model.encoder: {box}/encoder/config.json: refused"),
]  # fmt: skip


def snapshot(box: Path) -> dict[str, tuple[int, str]]:
    """Every entry under `box` (links not followed): its kind and permissions, and content hash."""
    entries = {}
    for path in sorted(box.rglob("*")):
        mode = path.lstat().st_mode
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if stat.S_ISREG(mode) else ""
        entries[str(path.relative_to(box))] = (mode, digest)
    return entries


@pytest.fixture
def box(tmp_path: Path, tiny_model_dir: Path, tiny_encoder_dir: Path) -> Path:
    box = tmp_path / "box"
    box.mkdir()
    shutil.copytree(tiny_model_dir, box / "model")
    shutil.copytree(tiny_encoder_dir, box / "encoder")
    (box / "t.jsonl").write_text(jsonl(ROW))
    (box / "a.txt").write_text(ARTICLE)
    return box


TOOLS = {"summarize": cli.main, "evaluate": evaluate.main, "train": train_module.main}


@pytest.mark.parametrize(("build", "status", "message"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_bad_input_ends_with_one_line(build, status, message, box, capfd, monkeypatch):
    monkeypatch.chdir(box)
    # A hostile model would be asked "run its code? [y/N]" on stdin: answer yes, and be refused anyway.
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"y\n" + ARTICLE.encode())))
    tool, argv = build(box)
    before = snapshot(box)
    assert TOOLS[tool](argv) == status
    out, err = capfd.readouterr()
    lines = err.strip().splitlines()
    assert "Traceback" not in err
    if status == 2 and lines and lines[-1].startswith("try '"):
        lines = lines[:-1]  # usage errors: the error, then where to find the usage
    assert len(lines) == 1, err
    assert message.format(box=box) in lines[0]
    assert out == ""
    assert snapshot(box) == before  # nothing written, nothing lost, no temporary file left
    assert not list(box.rglob(MARKER))


def test_table_rows_no_json_reader_holds_are_one_line_each_naming_row_and_field_and_the_valid_rows_are_kept(
    box, capsys
):
    table = box / "t.jsonl"
    long_integer = '{"id": ' + "9" * 10_000 + ', "text": "x"}'
    deep = '{"text": ' + "[" * 100_000 + "]" * 100_000 + "}"
    table.write_text(jsonl({"text": ARTICLE}, long_integer, deep, {"text": ARTICLE}))
    out = box / "out.jsonl"
    assert cli.main(["--model", str(box / "model"), "--text-field", "text", str(table), "-o", str(out)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"summarize: {table}, row 2: field 'id': an integer of 10000 digits (more than the 4300 Python reads)",
        f"summarize: {table}, row 3: malformed JSON: arrays or objects nested too deeply",
    ]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["summary"] is not None for row in rows] == [True, False, False, True]


def test_control_characters_of_a_document_or_a_message_never_reach_the_terminal(box, capsys):
    (box / "a.txt").write_text("The \x1b[2J\x1b[31mriver flooded the town.\x07 People\x85moved to the gym.\x9b1m Done.")
    assert run_summarize(box, "-k", "3") == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["The [2J[31mriver flooded the town.", "People moved to the gym.1m Done."]
    cli._report("a\x1b[2Jb\nc\u2028d")
    assert capsys.readouterr().err == "summarize: a\\x1b[2Jb\\nc\\u2028d\n"


# Outputs that are not regular files are written into, never replaced.


def run_summarize(box: Path, *args: object) -> int:
    return cli.main(["--model", str(box / "model"), str(box / "a.txt"), *map(str, args)])


@pytest.mark.skipif(not is_root, reason="making a character device needs root")
def test_a_device_output_is_written_into_not_replaced(box, capsys):
    null, full = box / "null", box / "full"  # copies of /dev/null and /dev/full: the real ones are never at risk
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    assert run_summarize(box, "-o", null) == 0
    assert run_summarize(box, "-o", full, "--format", "json") == 1
    assert capsys.readouterr().err == f"summarize: {full}: cannot write: No space left on device\n"
    assert stat.S_ISCHR(null.lstat().st_mode) and stat.S_ISCHR(full.lstat().st_mode)
    assert sorted(p.name for p in box.iterdir()) == ["a.txt", "encoder", "full", "model", "null", "t.jsonl"]


def test_a_fifo_output_is_written_into(box):
    fifo = box / "fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    assert run_summarize(box, "-o", fifo, "-k", "2") == 0
    reader.join(timeout=30)
    assert len(received[0].splitlines()) == 2 and stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.parametrize("target", ["/dev/stdout", "/proc/self/fd/1"])
def test_dev_stdout_as_output_works_as_for_cat(box, target):
    # The built-in model (its graph on ONNX Runtime, which starts in under a second).
    command = [sys.executable, "-c", LAUNCH, box / "a.txt", "-k", "2", "-o", target]
    piped = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0, piped.stderr
    assert len(piped.stdout.splitlines()) == 2
    log = box / "log"
    log.write_text("earlier line\n")
    inode = log.stat().st_ino
    with log.open("a") as appended:  # summarize ... -o /dev/stdout >> log
        assert subprocess.run(command, stdout=appended, timeout=120).returncode == 0
    assert log.read_text() == "earlier line\n" + piped.stdout and log.stat().st_ino == inode


def test_a_linked_output_stays_a_link_and_a_new_file_gets_the_usual_permissions(box):
    (box / "out.txt").write_text("old")
    (box / "link.txt").symlink_to("out.txt")
    assert run_summarize(box, "-o", box / "link.txt", "-k", "1") == 0
    assert (box / "link.txt").is_symlink() and len((box / "out.txt").read_text().splitlines()) == 1
    umask = os.umask(0o022)
    try:
        assert run_summarize(box, "-o", box / "new.txt") == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE((box / "new.txt").stat().st_mode) == 0o644


# Clean failure: signals, a closed pipe.


def test_sigterm_while_writing_removes_the_temporary_file(box, monkeypatch, capsys):
    documents = box / "docs"
    documents.mkdir()
    for n in range(3):
        (documents / f"{n}.txt").write_text(ARTICLE)
    summarize_batch = Summarizer.summarize_batch

    def stopped_after_one(self, *args, **kwargs):
        for count, summary in enumerate(summarize_batch(self, *args, **kwargs)):
            if count == 1:  # the output file is open, one summary in it
                assert list(box.glob(".out.txt.*.tmp"))
                os.kill(os.getpid(), signal.SIGTERM)
            yield summary

    monkeypatch.setattr(Summarizer, "summarize_batch", stopped_after_one)
    assert cli.main(["--model", str(box / "model"), str(documents), "-o", str(box / "out.txt")]) == 143
    assert capsys.readouterr().err == "summarize: stopped by SIGTERM (1 of 3 files summarized)\n"
    assert not list(box.glob("*out.txt*"))
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # the handler lasts only as long as the run


# A reader that never ends, and catches every exception: the run must end all the same.
STUCK_READER = """
import sys, time
import dataclasses
from summarizer import readers
from summarizer.text.layout import paragraphs
def stuck(text):
    if "STUCK" not in text:
        return paragraphs(text)
    print("reading", file=sys.stderr, flush=True)
    while True:
        try:
            time.sleep(0.01)
        except BaseException:
            pass
readers.register(dataclasses.replace(readers.reader("text"), read=stuck), replace=True)
"""


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
@pytest.mark.parametrize("ending", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_the_run_within_two_seconds_even_inside_a_parser_that_holds_on(ending, box):
    documents = box / "docs"
    documents.mkdir()
    for n in range(8):  # read, summarized and written to the output's temporary file before the ninth is read
        (documents / f"{n}.txt").write_text(ARTICLE)
    (documents / "8.txt").write_text("STUCK. " + ARTICLE)
    command = [sys.executable, "-c", STUCK_READER + LAUNCH, documents, "-o", box / "out.txt", "--batch-size", "1"]
    # Started as from a terminal: SIGINT at its default, whatever a test run before left ignored
    # (a child inherits an ignored SIGINT, and Python then leaves it ignored).
    with subprocess.Popen(command, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint) as run:
        try:
            assert run.stderr is not None and run.stderr.readline() == "reading\n"
            assert len(list(box.glob(".out.txt.*.tmp"))) == 1
            sent = time.monotonic()
            run.send_signal(ending)
            status = run.wait(timeout=30)
            took = time.monotonic() - sent
            err = run.stderr.read()
        finally:
            run.kill()
    how = "interrupted" if ending == signal.SIGINT else f"stopped by {ending.name}"
    assert (status, err) == (128 + ending, f"summarize: {how} (8 of 9 files summarized)\n")
    assert took < 2.0
    assert list(box.glob("*out.txt*")) == []  # no output, whole or partial, and no temporary file


def test_a_document_that_takes_too_long_to_read_is_skipped_and_the_others_go_on(box, monkeypatch, capsys):
    from summarizer.readers import reader, registry
    from summarizer.text.layout import paragraphs

    def slow(text: str) -> list[str]:
        while "SLOW" in text:
            sum(range(1000))
        return paragraphs(text)

    monkeypatch.setitem(registry.READERS, "text", dataclasses.replace(reader("text"), read=slow))
    (box / "slow.txt").write_text("SLOW. " + ARTICLE)
    started = time.monotonic()
    assert (
        cli.main(["--model", str(box / "model"), str(box / "slow.txt"), str(box / "a.txt"), "--max-seconds", "1"]) == 1
    )
    assert time.monotonic() - started < 30
    out, err = capsys.readouterr()
    assert err == f"summarize: {box / 'slow.txt'}: not read within 1 s (--max-seconds); skipped\n"
    assert out.startswith(f"==> {box / 'a.txt'} <==\n")
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_reader_closing_the_pipe_ends_the_run_quietly(box):
    documents = box / "docs"
    documents.mkdir()
    for n in range(100):  # their pages (about 1 kB each) overflow the pipe's buffer
        (documents / f"{n:02d}.txt").write_text(ARTICLE)
    summarize = (
        f"{shlex.quote(sys.executable)} -c {shlex.quote(LAUNCH)} {documents} --format html"  # the built-in model
    )
    done = subprocess.run(
        ["bash", "-c", f"{summarize} | head -1; echo ${{PIPESTATUS[0]}} >&2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout == "<!DOCTYPE html>\n"
    assert done.stderr == "141\n"  # 128 + SIGPIPE, as for cat, and not a word


@pytest.mark.parametrize("ending", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_ends_the_run_with_its_status(ending, capsys):
    def run() -> int:
        os.kill(os.getpid(), ending)
        return 0

    ignored = signal.signal(ending, signal.SIG_DFL)  # as for a run not started under nohup
    try:
        assert run_guarded(cli.build_parser(), run, print) == 128 + ending
    finally:
        signal.signal(ending, ignored)
    assert capsys.readouterr().out == f"stopped by {signal.Signals(ending).name}\n"


def test_an_ignored_hangup_stays_ignored(monkeypatch):
    """`nohup summarize ...` keeps running when the terminal closes."""
    monkeypatch.setattr(
        signal, "getsignal", lambda number: signal.SIG_IGN if number == signal.SIGHUP else signal.SIG_DFL
    )
    handlers = {}
    real_signal = signal.signal

    def record(number, handler):
        handlers[number] = handler
        return real_signal(number, handler)

    monkeypatch.setattr(signal, "signal", record)
    assert run_guarded(cli.build_parser(), lambda: 0, print) == 0
    assert signal.SIGHUP not in handlers and signal.SIGTERM in handlers


def test_debug_shows_the_cause_of_a_model_error(box, capsys):
    corrupt_weights(box)
    assert run_summarize(box) == 2
    plain = capsys.readouterr().err
    assert plain.count("\n") == 1 and "cannot load the model" in plain
    assert run_summarize(box, "--debug") == 2
    detailed = capsys.readouterr().err
    assert detailed.startswith("Traceback") and detailed.endswith(plain)


# Files built by scripts/bench_hostile.py (compression bombs whose ZIP directory lies, parts never
# read...): its fast subset, each beside a good file, in a process of its own.

BENCH = runpy.run_path(str(ROOT / "scripts" / "bench_hostile.py"))


@pytest.mark.slow
@pytest.mark.parametrize("case", [case for case in BENCH["cases"]() if case.fast], ids=lambda case: case.id)
def test_hostile_files_end_with_one_line_in_bounded_memory_and_the_good_file_is_summarized(case, tmp_path):
    assert BENCH["run"](case, BENCH["FAST_SCALE"], tmp_path, alone=False).failures == []


# The library: the same one-line errors, as exceptions.

LIBRARY_CASES = [
    ("text of a number", lambda s: s.summarize(123), TypeError, "document 0: expected text, a Document or a list of sentences, got int"),
    ("bytes not UTF-8", lambda s: s.summarize(b"Caf\xe9. More text."), InputError, "document 0: not valid UTF-8 text (byte 3)"),
    ("pdf given as text", lambda s: s.summarize("%PDF-1.7", format="pdf"), InputError, "document 0: a PDF is read from its bytes"),
    ("unknown format", lambda s: s.summarize("Text.", format="xlsx"), ValueError, "format must be one of docx, email, epub, html, latex, markdown"),
    ("a sentence that is not text", lambda s: s.summarize(["Fine.", 5]), TypeError, "got list"),
    ("one string to summarize_batch", lambda s: list(s.summarize_batch("A text.")), TypeError, "use summarize for one text"),
    ("batch size 0", lambda s: s.summarize_batch([ARTICLE], batch_size=0), ValueError, "batch_size must be at least 1"),
    ("k 0", lambda s: s.summarize(ARTICLE, k=0), ValueError, "k"),
    ("ratio 2", lambda s: s.summarize(ARTICLE, ratio=2.0), ValueError, "ratio"),
    ("unknown order", lambda s: s.summarize(ARTICLE, order="random"), ValueError, "order"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call", "error", "message"), [case[1:] for case in LIBRARY_CASES], ids=[case[0] for case in LIBRARY_CASES]
)
def test_library_misuse_raises_one_line(call, error, message, tiny_model_dir):
    with pytest.raises(error) as raised:
        call(Summarizer.from_pretrained(tiny_model_dir))
    assert message in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize("file", ["config.json", "tokenizer_config.json"])
def test_library_refuses_a_hostile_model_without_asking(file, box, monkeypatch):
    hostile(
        box, file, auto_map={"AutoConfig": "hostile.C", "AutoModel": "hostile.M", "AutoTokenizer": ["hostile.T", None]}
    )
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"y\ny\ny\n")))
    with pytest.raises(InputError, match=f"{file}: refused") as raised:
        Summarizer.from_pretrained(box / "model")
    assert "\n" not in str(raised.value) and not list(box.rglob(MARKER))
    assert sys.stdin.read() == "y\ny\ny\n"  # nothing was asked
