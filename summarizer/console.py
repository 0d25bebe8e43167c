"""What every command of the package shares, whatever it does: one-line usage errors, argument
types, and a guarded run that ends with a one-line message and an exit status, never a
traceback (usage, model and data errors 2, an output that cannot be written 1, signals 128 +
their number), its temporary files removed. `summarize`, `summarize serve`, `python -m
summarizer.train`, `python -m summarizer.evaluate` and `python -m summarizer.runtime.onnx_export`
run on it."""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import functools
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from typing import IO, NoReturn

from summarizer.errors import InputError, OutputError, first_line
from summarizer.files import remove_temporary_files

# Signals that end a run like an interrupt does: temporary files removed, status 128 + number.
_ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
# A run that stops within a time (`run_guarded`'s `stop_within`) ends this much earlier where it
# could not unwind (inside a parser that holds on, in native code), and at that time, at the last,
# where Python cannot run at all.
_UNWIND_MARGIN = 0.5


class UsageError(Exception):
    """Arguments that cannot work together."""


class Parser(argparse.ArgumentParser):
    """An `ArgumentParser` whose usage errors are one line, `PROG: error: ...`, and a pointer to
    `--help`, not the whole usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n{help_hint(self)}\n")


def help_hint(parser: argparse.ArgumentParser) -> str:
    return f"try '{parser.prog} --help'"


class Terminated(BaseException):
    """A SIGTERM or SIGHUP: unwinds the run (removing temporary files) like an interrupt."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def add_debug_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--debug", action="store_true", help="show the full detail and traceback of an error")


def positive_int(value: str) -> int:
    """A whole number of at least 1."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {value!r}")
    return number


def fraction(value: str) -> float:
    """A number in (0, 1]."""
    try:
        number = float(value)
    except ValueError:
        number = 0.0
    if not 0.0 < number <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {value!r}")
    return number


def run_command(
    parser: argparse.ArgumentParser,
    argv: list[str] | None,
    run: Callable[[argparse.Namespace], int],
    report: Callable[[str], None],
    stop_within: float | None = None,
    done: Callable[[], str] = str,
) -> int:
    """Parse `argv` and `run` the command under `run_guarded`; returns the exit status (argparse's
    2 for usage errors, 0 after --help)."""
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 2
    return run_guarded(parser, lambda: run(args), report, args.debug, stop_within, done)


def run_guarded(
    parser: argparse.ArgumentParser,
    run: Callable[[], int],
    report: Callable[[str], None],
    debug: bool = False,
    stop_within: float | None = None,
    done: Callable[[], str] = str,
) -> int:
    """`run()`'s exit status; errors end with a one-line message on stderr, never a traceback.

    Usage, model and data errors give 2, an output that cannot be written 1, SIGINT 130, SIGTERM
    143 and SIGHUP 129 (temporary files removed), a reader closing stdout 141 quietly, as for
    Unix tools, anything else 1. `debug` adds the traceback (and the cause of a model error).
    With `stop_within` (seconds), a run that a signal stops ends within that time wherever it is
    (`_ending_signals_raise`); `done()` says what it had done ("3 of 10 files summarized").
    """
    try:
        with _ending_signals_raise(stop_within, lambda how: f"{parser.prog}: {_stopped(how, done())}\n"):
            return run()
    except UsageError as error:
        report(f"error: {error}")
        print(help_hint(parser), file=sys.stderr)
        return 2
    except (InputError, OutputError) as error:
        if debug:
            traceback.print_exception(error)
        report(str(error))
        return 2 if isinstance(error, InputError) else 1
    except KeyboardInterrupt:
        report(_stopped("interrupted", done()))
        return 128 + signal.SIGINT
    except Terminated as stop:
        report(_stopped(f"stopped by {stop}", done()))
        return 128 + stop.signum
    except BrokenPipeError:  # the reader of stdout went away (`... | head`)
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except Exception as error:  # anything else still ends with a message, not a traceback
        if debug:
            traceback.print_exc()
        report(
            f"unexpected error: {type(error).__name__}: {first_line(error)}"
            + ("" if debug else " (--debug shows more)")
        )
        return 1


def _stopped(how: str, done: str) -> str:
    return f"{how} ({done})" if done else how


@functools.cache
def _devnull() -> IO[str]:
    """Where faulthandler writes the tracebacks of a run it ends (nowhere): open while the process lives."""
    return open(os.devnull, "w")


@contextlib.contextmanager
def _ending_signals_raise(stop_within: float | None, message: Callable[[str], str]) -> Iterator[None]:
    """SIGTERM and SIGHUP raise `Terminated` while the run lasts (in the main thread only).

    A signal set to be ignored (`nohup`) stays ignored; a forked worker that inherits the
    handler ends as the signal's default action would, without a traceback of its own. With
    `stop_within`, SIGINT is handled too, and a run still going `_UNWIND_MARGIN` before that time
    after the signal (a parser that caught the exception, native code that does not return) is
    ended from another thread: its temporary files removed, `message(signal name)` written, and
    its status 128 + the signal's number; where no Python thread can run then, faulthandler's
    native one ends it at `stop_within`, status 1.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    owner = os.getpid()
    watching, finished = threading.Event(), threading.Event()  # a signal came; the run is over
    signals = (*_ENDING_SIGNALS, signal.SIGINT) if stop_within is not None else _ENDING_SIGNALS

    def end_later(signum: int) -> None:
        assert stop_within is not None
        if finished.wait(stop_within - _UNWIND_MARGIN):
            return
        remove_temporary_files()
        how = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
        with contextlib.suppress(OSError):
            os.write(2, message(how).encode())
        os._exit(128 + signum)

    def stop(signum: int, frame: object) -> None:
        if os.getpid() != owner:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        if stop_within is not None and not watching.is_set():
            watching.set()
            threading.Thread(target=end_later, args=(signum,), daemon=True).start()
            faulthandler.dump_traceback_later(stop_within, exit=True, file=_devnull())
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated(signum)

    previous = {number: signal.signal(number, stop) for number in signals if signal.getsignal(number) != signal.SIG_IGN}
    try:
        yield
    finally:
        finished.set()
        if stop_within is not None:
            faulthandler.cancel_dump_traceback_later()
        for number, handler in previous.items():
            signal.signal(number, handler)
