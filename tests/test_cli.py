import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from summarizer.cli.command import build_parser, main
from summarizer.console import UsageError, run_guarded
from summarizer.errors import InputError

ARTICLE = (
    "The river flooded the old town on Tuesday night. "
    "Hundreds of residents were moved to the school gym. "
    "Officials said the water rose faster than expected. "
    "Volunteers brought blankets and hot food. "
    "Repairs to the bridge will take several weeks."
)
OTHER = (
    "A new library opened in the city centre. "
    "It holds more than fifty thousand books. "
    "Children can join reading clubs every Saturday. "
    "The building uses solar panels on its roof."
)
# The root user can read files without read permission.
needs_permissions = pytest.mark.skipif(os.geteuid() == 0, reason="root reads files regardless of permissions")


@pytest.fixture
def run(tiny_model_dir, capsys):
    def run(*args):
        code = main(["--model", str(tiny_model_dir), *map(str, args)])
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def corpus(tmp_path):
    root = tmp_path / "docs"
    (root / "nested").mkdir(parents=True)
    (root / "flood.txt").write_text(ARTICLE)
    (root / "nested" / "library.txt").write_text(OTHER)
    (root / ".hidden.txt").write_text(OTHER)
    return root


def test_one_file_prints_its_summary(run, corpus):
    code, out, err = run(corpus / "flood.txt", "-k", "2")
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 2 and all(line in ARTICLE for line in lines)


def test_document_of_short_sentences_still_gets_a_summary(run, tmp_path):
    note = tmp_path / "note.txt"
    note.write_text("OK. Thanks.")
    code, out, err = run(note, "-k", "3")
    assert code == 0, err
    assert out.splitlines() == ["OK.", "Thanks."]


def test_stdin(run, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(ARTICLE.encode())))
    code, out, _ = run("-", "--format", "jsonl", "-k", "1")
    assert code == 0
    record = json.loads(out)
    assert record["file"] == "<stdin>" and len(record["sentences"]) == 1


def test_directory_to_mirrored_outputs(run, corpus, tmp_path):
    out_dir = tmp_path / "out"
    code, out, err = run(corpus, "-o", f"{out_dir}/", "--format", "json", "--ratio", "0.5")
    assert code == 0, err
    assert out == "" and err == ""  # no progress bar when stderr is not a terminal
    written = sorted(p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*"))
    assert written == ["flood.json", "nested", "nested/library.json"]  # hidden files skipped, no temp files
    record = json.loads((out_dir / "nested" / "library.json").read_text())
    assert record["file"].endswith("library.txt")
    assert len(record["sentences"]) == 2 and record["summary"] == " ".join(record["sentences"])
    assert record["indices"] == sorted(record["indices"])


def test_several_files_into_one_output(run, corpus, tmp_path):
    target = tmp_path / "all.json"
    code, _, err = run(corpus / "flood.txt", corpus / "nested" / "library.txt", "-o", target, "--format", "json")
    assert code == 0, err
    assert [r["file"] for r in json.loads(target.read_text())] == [
        str(corpus / "flood.txt"),
        str(corpus / "nested" / "library.txt"),
    ]
    code, out, _ = run(corpus / "flood.txt", corpus / "nested" / "library.txt", "--format", "text")
    assert out.count("==> ") == 2


def test_length_and_order_options(run, corpus):
    _, out, _ = run(corpus / "flood.txt", "--format", "jsonl", "-k", "3", "--order", "score")
    scores = json.loads(out)["scores"]
    assert scores == sorted(scores, reverse=True)
    _, out, _ = run(corpus / "flood.txt", "--format", "jsonl", "--max-words", "12", "--no-trigram-blocking")
    assert sum(len(s.split()) for s in json.loads(out)["sentences"]) <= 12


def test_trigram_blocking_is_the_models_unless_an_option_says(tiny_model_dir, tmp_path, capsys, repeated):
    model = tmp_path / "model"
    shutil.copytree(tiny_model_dir, model)
    config = json.loads((model / "config.json").read_text())
    (model / "config.json").write_text(json.dumps({**config, "trigram_blocking": False}))
    text = tmp_path / "repeated.txt"
    text.write_text(" ".join(repeated))

    def chosen(*options):  # how many of the sentences that repeat "the red car is" two takes
        assert main(["--model", str(model), str(text), "--format", "jsonl", "-k", "2", *options]) == 0
        return sum("red car" in sentence for sentence in json.loads(capsys.readouterr().out)["sentences"])

    assert (chosen(), chosen("--trigram-blocking"), chosen("--no-trigram-blocking")) == (2, 1, 2)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--trigram-blocking", "--no-trigram-blocking", str(text)])


def test_html_joins_chinese_and_japanese_sentences_without_spaces(run, tmp_path):
    page = tmp_path / "ja.txt"
    page.write_text("メソッドは関数に似ています。ライフタイムを明示します。Then English follows.")
    code, out, _ = run(page, "--format", "html", "-k", "3")
    assert code == 0
    body = out[out.index("<p>") : out.index("</p>")]
    assert "</span><" in body and "</span> <" in body  # no space between the two Japanese, one before English


def test_html_highlights_and_escapes(run, tmp_path):
    page = tmp_path / "page.txt"
    page.write_text("The <script>alert('x')</script> tag & friends appeared. " + ARTICLE)
    code, out, _ = run(page, "--format", "html", "-k", "2")
    assert code == 0
    assert out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>")
    assert "<script>" not in out and "&lt;script&gt;" in out and "&amp; friends" in out
    assert out.count("<mark") == 2 and out.count('class="score"') == 2


def test_bad_files_are_reported_and_skipped(run, corpus, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (bad / "latin1.txt").write_bytes("Caf\xe9 au lait is served daily. It is popular.".encode("latin-1"))
    (bad / "empty.txt").write_text("  \n\n")
    out_dir = tmp_path / "out"
    code, _, err = run(corpus / "flood.txt", bad, tmp_path / "missing.txt", "-o", f"{out_dir}/")
    assert code == 1
    assert f"{bad / 'image.png'}: binary file" in err
    assert f"{bad / 'latin1.txt'}: not valid UTF-8" in err
    assert f"{bad / 'empty.txt'}: empty file" in err
    assert f"{tmp_path / 'missing.txt'}: no such file or directory" in err
    assert "Traceback" not in err
    assert [p.name for p in out_dir.iterdir()] == ["flood.txt"]


@needs_permissions
def test_unreadable_file(run, corpus):
    locked = corpus / "locked.txt"
    locked.write_text(ARTICLE)
    locked.chmod(0)
    try:
        code, out, err = run(locked, corpus / "flood.txt")
    finally:
        locked.chmod(0o644)
    assert code == 1
    assert f"{locked}: cannot read" in err
    assert "==> " in out


def test_read_errors_are_reported(run, corpus, monkeypatch):
    locked = corpus / "flood.txt"
    open_path = Path.open

    def refuse(path, *args, **kwargs):
        if path == locked:
            raise PermissionError(13, "Permission denied")
        return open_path(path, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refuse)
    code, out, err = run(corpus)
    assert code == 1
    assert f"{locked}: cannot read: Permission denied" in err
    assert "library.txt <==" in out


def test_outputs_inside_an_input_directory_are_not_read_again(run, corpus):
    for _ in range(2):
        code, _, err = run(corpus, "-o", f"{corpus}/summaries/")
        assert code == 0, err
    assert sorted(p.name for p in (corpus / "summaries").rglob("*.txt")) == ["flood.txt", "library.txt"]


def test_no_output_file_when_nothing_was_summarized(run, tmp_path):
    (tmp_path / "empty.txt").write_text("")
    code, _, err = run(tmp_path / "empty.txt", "-o", tmp_path / "summary.txt")
    assert code == 1 and "empty file" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.txt"]


def test_model_problems(corpus, tmp_path, monkeypatch, capsys):
    assert main(["--model", str(tmp_path / "absent"), str(corpus)]) == 2
    assert "no such model directory" in capsys.readouterr().err
    assert main(["--model", str(corpus), str(corpus)]) == 2
    assert "not a bertsum model directory" in capsys.readouterr().err
    monkeypatch.setenv("BERTSUM_MODEL_DIR", str(tmp_path / "not-trained"))
    assert main([str(corpus)]) == 2
    assert f"{tmp_path / 'not-trained'}: no such model directory" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["-k", "0", "x"],
        ["--ratio", "1.5", "x"],
        ["-k", "2", "--ratio", "0.5", "x"],
        ["--format", "pdf", "x"],
        ["-", "-"],
    ],
)
def test_usage_errors_exit_2_with_one_line_and_a_pointer_to_help(run, args):
    code, out, err = run(*args)
    assert code == 2 and out == ""
    message, hint = err.splitlines()
    assert message.startswith("summarize: error: ") and hint == "try 'summarize --help'"


def test_outputs_never_overwrite_inputs(run, corpus):
    code, _, err = run(corpus, "-o", f"{corpus}/")
    assert code == 2 and "overwrite" in err
    assert (corpus / "flood.txt").read_text() == ARTICLE


def test_installed_command_exit_status(tiny_model_dir, corpus, tmp_path):
    (tmp_path / "empty.txt").write_text("")
    launcher = "from bertsum.launch import summarize; summarize()"
    done = subprocess.run(
        [sys.executable, "-c", launcher, "--model", str(tiny_model_dir), corpus / "flood.txt", tmp_path / "empty.txt"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 1
    assert len(done.stdout.splitlines()) == 3 + 1  # a header and three sentences
    assert "empty.txt: empty file" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "error, status, message",
    [
        (UsageError("bad pair"), 2, "error: bad pair"),
        (InputError("data.jsonl, line 3: malformed JSON"), 2, "data.jsonl, line 3: malformed JSON"),
        (KeyboardInterrupt(), 130, "interrupted"),
        (RuntimeError("boom"), 1, "unexpected error: RuntimeError: boom (--debug shows more)"),
        (BrokenPipeError(), 141, None),
    ],
)
def test_errors_end_with_one_line_and_an_exit_status(error, status, message, tmp_path, monkeypatch, capsys):
    reported = []

    def fail():
        raise error

    with (tmp_path / "stdout").open("w") as stdout:
        monkeypatch.setattr(sys, "stdout", stdout)  # a closed pipe points stdout at /dev/null
        assert run_guarded(build_parser(), fail, reported.append) == status
    assert reported == ([message] if message else [])
    assert capsys.readouterr().err == ("try 'summarize --help'\n" if isinstance(error, UsageError) else "")


def test_files_are_read_by_their_format(run, tmp_path):
    from test_documents import PAGE, PARAGRAPHS, README, pdf_bytes

    pytest.importorskip("trafilatura")
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "README.md").write_text(README)
    (folder / "page.html").write_text(PAGE)
    (folder / "report.pdf").write_bytes(pdf_bytes(2))
    (folder / "wrapped.txt").write_text(textwrap.fill(" ".join(PARAGRAPHS), 60))
    code, out, err = run(folder, "--format", "jsonl", "-k", "2")
    assert code == 0, err
    records = {record["file"]: record for record in map(json.loads, out.splitlines())}
    assert len(records) == 4
    for record in records.values():
        for sentence in record["sentences"]:
            assert any(sentence in paragraph for paragraph in PARAGRAPHS) or "mayor" in sentence, sentence


def test_latex_office_notebook_ebook_and_e_mail_files_are_read_by_their_format(run, tmp_path):
    from test_ebook_mail import REPLY, epub_bytes, message_bytes
    from test_latex import INTRO, PAPER
    from test_notebook import NOTEBOOK
    from test_office import MEMO_RTF, odt_bytes, pptx_bytes

    folder = tmp_path / "papers"
    (folder / "sections").mkdir(parents=True)
    (folder / "sections" / "intro.tex").write_text(INTRO)
    (folder / "paper.tex").write_text(PAPER)
    (folder / "analysis.ipynb").write_text(json.dumps(NOTEBOOK))
    (folder / "reply.eml").write_bytes(message_bytes(REPLY))
    files = [folder / "paper.tex", folder / "analysis.ipynb", folder / "reply.eml"]
    if importlib.util.find_spec("docx"):
        from test_word import report_bytes

        (folder / "report.docx").write_bytes(report_bytes())
        files.append(folder / "report.docx")
    if importlib.util.find_spec("trafilatura"):
        (folder / "novel.epub").write_bytes(epub_bytes())
        files.append(folder / "novel.epub")
    if importlib.util.find_spec("lxml"):
        (folder / "report.odt").write_bytes(odt_bytes())
        (folder / "talk.pptx").write_bytes(pptx_bytes())
        files += [folder / "report.odt", folder / "talk.pptx"]
    if importlib.util.find_spec("striprtf"):
        (folder / "memo.rtf").write_bytes(MEMO_RTF.encode())
        files.append(folder / "memo.rtf")
    code, out, err = run(*files, "--format", "jsonl", "-k", "40")  # every sentence read
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert [Path(record["file"]).name for record in records] == [path.name for path in files]
    for record in records:
        assert len(record["sentences"]) >= 2
        for sentence in record["sentences"]:
            assert sentence.endswith((".", ",")), sentence  # whole sentences ("Hi Sam,"), no markup
            assert not any(mark in sentence for mark in "\\{}$#*[]<>|") and "not read" not in sentence, sentence
    assert any("future latent states" in sentence for sentence in records[0]["sentences"])  # from an \\input file
    if importlib.util.find_spec("lxml"):
        assert "We expect them to fall." in records[files.index(folder / "talk.pptx")]["sentences"]  # its notes


def test_a_deck_of_bullets_has_no_running_text(run, tmp_path):
    pytest.importorskip("lxml")
    from test_office import pptx_bytes, shape, slide

    bullets = slide(shape("Prices", "Storage levels", placeholder='idx="1"'))
    deck = tmp_path / "bullets.pptx"
    no_notes = slide(root="p:notes")
    parts = {
        "ppt/slides/slide1.xml": bullets,
        "ppt/slides/slide2.xml": bullets,
        "ppt/notesSlides/notesSlide1.xml": no_notes,
    }
    deck.write_bytes(pptx_bytes(**parts))
    code, out, err = run(deck)
    assert (code, out) == (1, "") and f"{deck}: no running text found in this pptx file" in err


def test_a_latex_input_file_that_is_missing_is_reported_and_the_rest_summarized(run, tmp_path):
    from test_latex import PAPER

    (tmp_path / "paper.tex").write_text(PAPER)  # without its sections/intro.tex
    code, out, err = run(tmp_path / "paper.tex", "-k", "1")
    assert code == 0 and out.strip()
    note = f"\\input{{sections/intro}}: left out: not a file under {tmp_path.resolve()}"
    assert err == f"summarize: {tmp_path / 'paper.tex'}: {note}\n"


def test_input_format_overrides_the_extension_and_stdin(run, tmp_path, monkeypatch):
    from test_documents import README

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(README.encode())))
    code, out, _ = run("-", "--input-format", "markdown", "--format", "json", "-k", "5")
    assert code == 0
    summary = " ".join(json.loads(out)[0]["sentences"])
    assert "](" not in summary and "pip install" not in summary and "|" not in summary
    plain = tmp_path / "notes.md"
    plain.write_text("# Not a heading here\nJust text.")
    code, out, _ = run(plain, "--input-format", "text", "-k", "2")
    assert "# Not a heading here" in out


def test_html_output_puts_the_summary_above_the_paragraphs(run, tmp_path):
    page = tmp_path / "two.txt"
    page.write_text(ARTICLE + "\n\n" + OTHER)
    code, out, _ = run(page, "--format", "html", "-k", "2")
    assert code == 0
    summary, document = out.split('<div class="summary">')[1].split("</div>")
    assert summary.count("<li>") == 2
    assert document.count("<p>") == 2 and document.count("<mark") == 2


def test_version(capsys):
    from summarizer import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr() == (f"summarize (bertsum) {__version__}\n", "")


def test_an_empty_summary_is_written_with_a_warning_unless_quiet(run, tmp_path):
    (tmp_path / "one.txt").write_text(ARTICLE)
    code, out, err = run(tmp_path / "one.txt", "--max-words", "5", "--format", "jsonl")
    assert code == 0 and json.loads(out)["indices"] == []
    assert (
        err == f"summarize: {tmp_path / 'one.txt'}: the summary is empty: every sentence is longer than --max-words 5\n"
    )
    assert run(tmp_path / "one.txt", "--max-words", "5", "--quiet")[1:] == ("", "")


def on_a_terminal(*args: str) -> tuple[int, str, str]:
    """The command's exit status, stdout (a pipe) and what it wrote to stderr, a terminal (a
    pty); its progress bar shows at once."""
    import fcntl
    import pty
    import struct
    import termios

    code = "import sys, summarizer.cli.command as c; c.PROGRESS_DELAY = 0; raise SystemExit(c.main(sys.argv[1:]))"
    terminal, stderr = pty.openpty()
    fcntl.ioctl(stderr, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 24 rows of 100 columns
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr
    )
    os.close(stderr)
    shown = b""
    while True:
        try:
            data = os.read(terminal, 4096)
        except OSError:  # EIO: the command has closed its side
            break
        if not data:
            break
        shown += data
    assert process.stdout is not None
    out = process.stdout.read().decode()
    os.close(terminal)
    return process.wait(timeout=120), out, shown.decode()


@pytest.mark.slow
def test_progress_shows_on_a_terminal_and_never_in_a_pipe_or_when_quiet(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for i, text in enumerate([ARTICLE, OTHER, ARTICLE.upper()]):
        (folder / f"{i}.txt").write_text(text)
    status, out, shown = on_a_terminal(str(folder))
    assert status == 0 and out.count("==> ") == 3
    assert "3/3" in shown and "file" in shown  # files done of all
    status, out, shown = on_a_terminal(str(folder / "0.txt"))
    assert status == 0 and "5/5" in shown and "sentence" in shown  # one document: its sentences scored
    assert on_a_terminal(str(folder), "--quiet")[2] == ""
    code = "import sys, summarizer.cli.command as c; c.PROGRESS_DELAY = 0; raise SystemExit(c.main(sys.argv[1:]))"
    piped = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, timeout=120)
    assert (piped.returncode, piped.stderr) == (0, "")
