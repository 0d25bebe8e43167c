"""The `summarize` command: summarize files, directories or stdin with a trained model.

Each input file is one document, read in the format its extension names (`summarizer.readers`;
`--input-format` overrides it; stdin is plain text unless told).
Exit status: 0 when every input was summarized, 1 when some input or output failed (each
reported on stderr, the rest still summarized), 2 for usage errors and models that cannot be
loaded; 130, 143 and 129 when stopped by SIGINT, SIGTERM or SIGHUP (within `STOP_SECONDS`,
wherever the run is), 141 when the reader of stdout goes away (quietly, as Unix tools do).
Outputs appear whole or not at all; inputs are regular files or stdin, of bounded size
(docs/usage.md says what the command guarantees).
"""

from __future__ import annotations

import argparse
import contextlib
import html
import itertools
import json
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO

from tqdm import tqdm

from summarizer import __version__
from summarizer.cli import corpus
from summarizer.console import Parser, UsageError, add_debug_flag, positive_int, run_command
from summarizer.errors import InputError, OutputError, printable, quoted
from summarizer.files import atomic_writer, checked
from summarizer.options import add_language_argument, add_model_arguments, add_selection_arguments, selection_from
from summarizer.pipeline import Summarizer, Summary
from summarizer.readers import Document, TooLarge, formats, read_file, reader
from summarizer.text.language import warm_up
from summarizer.text.sentences import separator

PROG = "summarize"
FORMATS = ("text", "json", "jsonl", "html")
EXTENSIONS = {"text": ".txt", "json": ".json", "jsonl": ".jsonl", "html": ".html"}
STDIN = "-"
SERVE = "serve"  # `summarize serve`: the HTTP service (summarizer.serve); a file of that name is ./serve
MAX_INPUT_MB = 10  # default limit on one input's size
PROGRESS_DELAY = 2.0  # seconds of work before a progress bar appears
STOP_SECONDS = 2.0  # a run stopped by a signal ends within this time
_FILE_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


@dataclass(frozen=True)
class Source:
    """One input document: a file, or stdin when `path` is None."""

    path: Path | None
    name: str  # as written in JSON and HTML outputs
    relative: Path  # where its output goes under an output directory

    @property
    def shown(self) -> str:
        """The name as messages and text outputs show it: quoted as `ls` quotes it when it holds
        characters a shell or a terminal would take as its own (a newline, an escape, a space)."""
        return self.name if self.path is None else quoted(self.name)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="Summarize text files by extracting their most important sentences.",
        epilog="Exit status: 0 all summarized, 1 some input or output failed, 2 usage or model error. "
        "`summarize serve` runs the HTTP service and web page (summarize serve --help).",
    )
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="files, directories (recursive) or - for stdin")
    by_extension = ", ".join(f"{'/'.join(reader(name).extensions)} {name}" for name in formats())
    parser.add_argument(
        "--input-format",
        choices=formats(),
        help=f"read every input as this format (default: by extension: {by_extension}; any other and stdin text)",
    )
    add_language_argument(parser)
    add_selection_arguments(parser, summaries=True)
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default text)")
    parser.add_argument(
        "-o",
        "--output",
        help="output file, or directory (existing, or named with a trailing /) for one output per input file",
    )
    add_model_arguments(parser)
    parser.add_argument(
        "--max-input-mb",
        type=positive_int,
        default=MAX_INPUT_MB,
        help=f"refuse an input larger than this many megabytes (default {MAX_INPUT_MB}); a Word, "
        "PowerPoint, OpenDocument or EPUB file named here is read when its text is within it",
    )
    parser.add_argument(
        "--max-seconds",
        type=positive_int,
        help="skip (and report) a document that takes longer than this many seconds to read (default: no limit)",
    )
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress bar and no warnings (errors are still reported); the bar shows only on a terminal",
    )
    corpus.add_arguments(parser)
    add_debug_flag(parser)
    parser.add_argument("--version", action="version", version=f"{PROG} (bertsum) {__version__}")
    return parser


@dataclass
class Tally:
    """How far a run of several files got, for the line that says it was stopped."""

    summarized: int = 0
    total: int = 0

    def done(self) -> str:
        return f"{self.summarized} of {self.total} files summarized" if self.total > 1 else ""


def main(argv: list[str] | None = None) -> int:
    """Run the command (`summarize serve ...`: the HTTP service); returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [SERVE]:
        from summarizer.serve.command import main as serve

        return serve(argv[1:])
    tally = Tally()
    return run_command(build_parser(), argv, lambda args: _run(args, tally), _report, STOP_SECONDS, tally.done)


def _run(args: argparse.Namespace, tally: Tally) -> int:
    if corpus.wanted(args):
        return corpus.run(args, _report)
    output = Path(args.output) if args.output else None
    sources, failed = collect_sources(args.inputs, exclude=output)
    if not sources:
        return 1
    tally.total = len(sources)
    to_directory = output is not None and (output.is_dir() or args.output.endswith(("/", os.sep)))
    check_outputs(sources, output, args.format, to_directory)
    if args.language is None:
        warm_up()  # the language detector loads while the model does
    summarizer = Summarizer.from_pretrained(
        args.model, device=args.device, precision=args.precision, backend=args.backend
    )
    selection = selection_from(args)
    options = asdict(selection)
    warn = _ignore if args.quiet else _report
    # A progress bar on stderr, for a person at a terminal, once the work takes a few seconds:
    # files when there are several, else the sentences of the one document.
    several = len(sources) > 1
    progress = tqdm(
        total=len(sources) if several else None,
        unit="file" if several else "sentence",
        file=sys.stderr,
        disable=args.quiet or not sys.stderr.isatty(),
        delay=PROGRESS_DELAY,
    )
    inputs = ReadableInputs(
        sources, args.max_input_mb * 1_000_000, args.input_format, progress.update, warn, args.max_seconds
    )

    def sentences_scored(done: int, total: int) -> None:
        progress.total = total
        progress.update(done - progress.n)  # drawn only after PROGRESS_DELAY

    # Each summary is paired with its source by order: tee keeps the pairs summarize_batch has
    # read ahead and not yet summarized.
    for_model, for_output = itertools.tee(inputs)
    summaries = summarizer.summarize_batch(
        (document for _, document in for_model),
        args.batch_size,
        progress=None if several else sentences_scored,
        **options,
        errors="keep",  # a document in a language the model does not read is reported, and the rest summarized
        language=args.language,
    )
    summaries_out = ((source, summary) for summary, (source, _) in zip(summaries, for_output))
    results = _counted(_warn_if_empty(_summarized(summaries_out, inputs), warn, args), tally)
    advance = progress.update if several else lambda: None
    try:
        if to_directory:
            assert output is not None  # only an output given can be a directory
            for source, summary in results:
                target = output / source.relative.with_suffix(EXTENSIONS[args.format])
                try:
                    with atomic_writer(target) as out:
                        write_one(out, args.format, source, summary)
                except OutputError as error:
                    _report(str(error))
                    failed = True
                advance()
        else:
            written = write_all(output, args.format, results, several, advance)
            failed = failed or not written
    finally:
        progress.close()
    return 1 if failed or inputs.failed else 0


def _counted(results: Iterator[tuple[Source, Summary]], tally: Tally) -> Iterator[tuple[Source, Summary]]:
    for result in results:
        yield result
        tally.summarized += 1  # once its output is written


def _summarized(results: Iterator[tuple[Source, Summary]], inputs: ReadableInputs) -> Iterator[tuple[Source, Summary]]:
    """`results` but those not summarized (a language the model does not read), each reported
    on stderr, counted on the progress bar and setting `inputs.failed`."""
    for source, summary in results:
        if summary.error is None:
            yield source, summary
            continue
        _report(f"{source.shown}: {summary.error}")
        inputs.skipped()
        inputs.failed = True


def _warn_if_empty(
    results: Iterator[tuple[Source, Summary]], warn: Callable[[str], None], args: argparse.Namespace
) -> Iterator[tuple[Source, Summary]]:
    """`results`, with a warning for each summary that came out empty (written all the same)."""
    for source, summary in results:
        if not summary.indices:
            if not any(score is not None for score in summary.sentence_scores):
                why = "no sentence is long enough to be scored"
            elif args.max_words is not None:
                why = f"every sentence is longer than --max-words {args.max_words}"
            else:
                why = "no sentence was chosen"
            warn(f"{source.shown}: the summary is empty: {why}")
        yield source, summary


class ReadableInputs:
    """The documents of `sources` that can be read (each within `seconds`, if given), each with
    its source, in order. One that cannot is reported on stderr, counted on the progress bar
    (`skipped`) and sets `failed`; notes on what a document leaves out go to `warn`."""

    def __init__(
        self,
        sources: list[Source],
        limit: int,
        input_format: str | None,
        skipped: Callable[[], object],
        warn: Callable[[str], None],
        seconds: int | None = None,
    ):
        self.sources, self.limit, self.input_format, self.skipped = sources, limit, input_format, skipped
        self.warn, self.seconds = warn, seconds
        self.failed = False

    def __iter__(self) -> Iterator[tuple[Source, Document]]:
        for source in self.sources:
            try:
                with time_limit(self.seconds):
                    document = read_source(source, self.limit, self.input_format, self.warn)
            except (InputError, TimeLimit) as error:
                _report(str(error) if isinstance(error, InputError) else f"{source.shown}: {error}")
                self.skipped()
                self.failed = True
                continue
            yield source, document


class TimeLimit(BaseException):
    """A document took longer to read than `--max-seconds` (a BaseException, so that a reader's
    library catching its own errors does not catch it)."""


@contextlib.contextmanager
def time_limit(seconds: int | None) -> Iterator[None]:
    """`TimeLimit` raised in the main thread once `seconds` have passed, and again every tenth of
    a second after, should something catch it."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise TimeLimit(f"not read within {seconds} s (--max-seconds); skipped")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.1)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def collect_sources(inputs: list[str], exclude: Path | None = None) -> tuple[list[Source], bool]:
    """The files named by `inputs` (directories walked recursively, hidden entries skipped).

    Returns them and whether some input was missing (reported on stderr). `exclude` (the
    output location) is never read as input.
    """
    if inputs.count(STDIN) > 1:
        raise UsageError("stdin (-) can be read only once")
    excluded = exclude.resolve() if exclude is not None else None
    sources: list[Source] = []
    failed = False
    for item in inputs:
        if item == STDIN:
            sources.append(Source(None, "<stdin>", Path("stdin")))
            continue
        path = Path(item)
        if path.is_dir():
            root = path.resolve()
            # Earlier outputs written inside the directory are not inputs (unless it is the output).
            skip = excluded if excluded not in (None, root, *root.parents) else None
            files = [
                file
                for file in sorted(path.rglob("*"))
                if file.is_file()
                and not any(part.startswith(".") for part in file.relative_to(path).parts)
                and not (skip is not None and skip in (file.resolve(), *file.resolve().parents))
            ]
            if not files:
                _report(f"{quoted(str(path))}: no files in this directory")
                failed = True
            sources.extend(Source(file, str(file), file.relative_to(path)) for file in files)
        elif path.is_file():
            sources.append(Source(path, str(path), Path(path.name)))
        else:
            _report(f"{quoted(str(path))}: {_not_a_file(path)}")
            failed = True
    return sources, failed


def check_outputs(sources: list[Source], output: Path | None, output_format: str, to_directory: bool) -> None:
    """Refuse outputs that would collide with each other or overwrite an input."""
    if output is None:
        return
    inputs = {source.path.resolve(): source.shown for source in sources if source.path is not None}
    if not to_directory:
        if output.resolve() in inputs:
            raise UsageError(f"the output {quoted(str(output))} would overwrite its input")
        return
    seen: dict[Path, str] = {}
    for source in sources:
        target = (output / source.relative.with_suffix(EXTENSIONS[output_format])).resolve()
        if target in inputs:
            raise UsageError(f"the output for {source.shown} would overwrite the input {inputs[target]}")
        if target in seen:
            raise UsageError(f"{seen[target]} and {source.shown} would both be written to {quoted(str(target))}")
        seen[target] = source.shown


def _not_a_file(path: Path) -> str:
    """Why `path`, neither a directory nor a regular file, is not read."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "no such file or directory"
    except OSError as error:
        return f"cannot read: {error.strerror or error}"
    kind = _FILE_KINDS.get(stat.S_IFMT(mode), "not a regular file")
    return f"{kind}, not a regular file; pipe it to standard input (-) instead"


def read_source(
    source: Source,
    limit: int = MAX_INPUT_MB * 1_000_000,
    input_format: str | None = None,
    warn: Callable[[str], None] | None = None,
) -> Document:
    """The running text of `source` (at most `limit` bytes, and as much text), read as
    `input_format` or the format of its extension (`read_file`); an `InputError` naming it when
    it cannot be read or has no running text. What the document leaves out is noted to `warn`
    (default: stderr)."""
    file = sys.stdin.buffer if source.path is None else source.path
    try:
        return read_file(file, input_format, name=source.shown, limit=limit, require_text=True, notes=warn or _report)
    except TooLarge as error:
        raise InputError(f"{error} (raise it with --max-input-mb)") from None


def write_all(
    target: Path | None,
    output_format: str,
    results: Iterator[tuple[Source, Summary]],
    several: bool,
    advance: Callable[[], object],
) -> bool:
    """Write every summary to `target` (stdout when None); False when there was none.

    A file target appears only when at least one summary was written.
    """
    if target is None:
        return _write_stream(checked(sys.stdout, "standard output"), output_format, results, several, advance)
    first = next(results, None)
    if first is None:
        return False
    with atomic_writer(target) as out:
        return _write_stream(out, output_format, itertools.chain([first], results), several, advance)


def _write_stream(
    out: checked | IO[str],
    output_format: str,
    results: Iterator[tuple[Source, Summary]],
    several: bool,
    advance: Callable[[], object],
) -> bool:
    count = 0
    for source, summary in results:
        if count == 0:
            page = _html_head("Summaries" if several else source.name, None if several else summary.language)
            opening = {"json": "[\n", "html": page}
            out.write(opening.get(output_format, ""))
        if output_format == "text":
            out.write(("\n" if count else "") + (f"==> {source.shown} <==\n" if several else "") + _text(summary))
        elif output_format == "json":
            out.write((",\n" if count else "") + json.dumps(_record(source, summary), ensure_ascii=False, indent=2))
        elif output_format == "jsonl":
            out.write(json.dumps(_record(source, summary), ensure_ascii=False) + "\n")
        else:
            out.write(_html_section(source, summary))
        out.flush()
        count += 1
        advance()
    if count:
        out.write({"json": "\n]\n", "html": _HTML_TAIL}.get(output_format, ""))
        out.flush()  # within the run, so that a failure here is reported like any other
    return count > 0


def write_one(out: checked | IO[str], output_format: str, source: Source, summary: Summary) -> None:
    """One document's output, as written to its own file."""
    if output_format == "text":
        out.write(_text(summary))
    elif output_format == "json":
        out.write(json.dumps(_record(source, summary), ensure_ascii=False, indent=2) + "\n")
    elif output_format == "jsonl":
        out.write(json.dumps(_record(source, summary), ensure_ascii=False) + "\n")
    else:
        out.write(_html_head(source.name, summary.language) + _html_section(source, summary) + _HTML_TAIL)


def _text(summary: Summary) -> str:
    return "".join(f"{sentence}\n" for sentence in summary.sentences)


def _record(source: Source, summary: Summary) -> dict[str, object]:
    return {"file": source.name, **summary.record()}


_HTML_STYLE = (
    "body{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.5}"
    "mark{background:#fff3a0}.score{font-size:.75em;color:#555;margin-left:.2em}"
    ".summary{background:#f6f6f6;padding:.5em 1em;border-left:4px solid #e0c000}"
)
_HTML_TAIL = "</body>\n</html>\n"


def _html_head(title: str, language: str | None = None) -> str:
    """The page's head; `language`: its document's (several documents: each section says its own)."""
    return (
        f'<!DOCTYPE html>\n<html lang="{language or "en"}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_HTML_STYLE}</style>\n</head>\n<body>\n"
    )


def _html_section(source: Source, summary: Summary) -> str:
    """The summary, then the whole document in its paragraphs, chosen sentences highlighted
    with their scores."""
    chosen = set(summary.indices)
    paragraphs: dict[int, list[str]] = {}
    for index, (sentence, score, paragraph) in enumerate(
        zip(summary.document, summary.sentence_scores, summary.sentence_paragraphs)
    ):
        if paragraphs.get(paragraph):  # a space before it, unless Chinese or Japanese follow each other
            paragraphs[paragraph].append(separator(summary.document[index - 1], sentence))
        text = html.escape(sentence)
        title = f' title="score {score:.3f}"' if score is not None else ""
        if index in chosen:
            part = f'<mark{title}>{text}</mark><span class="score">{score:.3f}</span>'
        else:
            part = f"<span{title}>{text}</span>"
        paragraphs.setdefault(paragraph, []).append(part)
    items = "".join(f"<li>{html.escape(sentence)}</li>\n" for sentence in summary.sentences)
    body = "".join(f"<p>{''.join(parts)}</p>\n" for parts in paragraphs.values())
    return (
        f'<section lang="{summary.language or "en"}">\n<h2>{html.escape(source.name)}</h2>\n'
        f'<div class="summary">\n<h3>Summary</h3>\n<ol>\n{items}</ol>\n</div>\n{body}</section>\n'
    )


def _ignore(message: str) -> None:
    pass


def _report(message: str) -> None:
    # One line, above the progress bar when there is one; a control character from a file's name
    # or a document is written as its escape, never raw to a terminal.
    tqdm.write(f"{PROG}: {printable(message)}", file=sys.stderr)
