"""Argument types, usage errors and exit statuses shared by the command-line tools."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator

from summarizer.errors import InputError, OutputError, first_line

# Signals that end a run like an interrupt does: temporary files removed, status 128 + number.
_ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class UsageError(Exception):
    """Arguments that cannot work together."""


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


def run_guarded(
    parser: argparse.ArgumentParser, run: Callable[[], int], report: Callable[[str], None], debug: bool = False
) -> int:
    """`run()`'s exit status; errors end with a one-line message on stderr, never a traceback.

    Usage, model and data errors give 2, an output that cannot be written 1, SIGINT 130, SIGTERM
    143 and SIGHUP 129 (temporary files removed), a reader closing stdout 141 quietly, as for
    Unix tools, anything else 1. `debug` adds the traceback (and the cause of a model error).
    """
    try:
        with _ending_signals_raise():
            return run()
    except UsageError as error:
        parser.print_usage(sys.stderr)
        report(f"error: {error}")
        return 2
    except (InputError, OutputError) as error:
        if debug:
            traceback.print_exception(error)
        report(str(error))
        return 2 if isinstance(error, InputError) else 1
    except KeyboardInterrupt:
        report("interrupted")
        return 128 + signal.SIGINT
    except Terminated as stop:
        report(f"stopped by {stop}")
        return 128 + stop.signum
    except BrokenPipeError:  # the reader of stdout went away (`... | head`)
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except Exception as error:  # anything else still ends with a message, not a traceback
        if debug:
            traceback.print_exc()
        report(f"unexpected error: {type(error).__name__}: {first_line(error)}" + ("" if debug else " (--debug shows more)"))
        return 1


@contextlib.contextmanager
def _ending_signals_raise() -> Iterator[None]:
    """SIGTERM and SIGHUP raise `Terminated` while the run lasts (in the main thread only).

    A signal set to be ignored (`nohup`) stays ignored; a forked worker that inherits the
    handler ends as the signal's default action would, without a traceback of its own.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    owner = os.getpid()

    def stop(signum: int, frame: object) -> None:
        if os.getpid() != owner:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise Terminated(signum)

    previous = {
        number: signal.signal(number, stop) for number in _ENDING_SIGNALS if signal.getsignal(number) != signal.SIG_IGN
    }
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
