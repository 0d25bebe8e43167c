"""Argument types, usage errors and exit statuses shared by the command-line tools."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from summarizer.errors import InputError, first_line


class UsageError(Exception):
    """Arguments that cannot work together."""


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


def run_guarded(parser: argparse.ArgumentParser, run: Callable[[], int], report: Callable[[str], None]) -> int:
    """`run()`'s exit status; errors end with a one-line message on stderr, never a traceback.

    Usage, model and data errors give 2, an interrupt 130, anything else 1 (a closed stdout quietly).
    """
    try:
        return run()
    except UsageError as error:
        parser.print_usage(sys.stderr)
        report(f"error: {error}")
        return 2
    except InputError as error:
        report(str(error))
        return 2
    except KeyboardInterrupt:
        report("interrupted")
        return 130
    except BrokenPipeError:  # the reader of stdout went away (`... | head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as error:  # anything else still ends with a message, not a traceback
        report(f"unexpected error: {type(error).__name__}: {first_line(error)}")
        return 1
