"""`summarize serve`: the service (`summarizer.serve.app`) on uvicorn.

Each option but the model's own can be set by an environment variable instead (`ENVIRONMENT`);
an option given on the command line wins, and the model is `--model`, else `$BERTSUM_MODEL_DIR`,
else the built-in news model. The model is loaded before the port is opened, so a model that
cannot be loaded is one line and exit status 2, as for `summarize`.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from typing import Any

from summarizer.console import add_debug_flag, positive_int, run_command
from summarizer.errors import InputError
from summarizer.options import add_model_arguments

PROG = "summarize serve"
SERVE_EXTRA = "pip install 'bertsum[serve]'"


def port_number(value: str) -> int:
    """A TCP port, 0 (any free one, which the log names) to 65535."""
    if not value.isdigit() or int(value) > 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 0 to 65535, got {value!r}")
    return int(value)


def positive_number(value: str) -> float:
    """A finite number above 0."""
    try:
        number = float(value)
    except ValueError:
        number = 0.0
    if not (math.isfinite(number) and number > 0):
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {value!r}")
    return number


# Option (its dest): its environment variable, type, default and help.
ENVIRONMENT: dict[str, tuple[str, Callable[[str], Any], Any, str]] = {
    "host": ("BERTSUM_SERVE_HOST", str, "127.0.0.1", "address to listen on; 0.0.0.0 for every interface"),
    "port": ("BERTSUM_SERVE_PORT", port_number, 8000, "port to listen on (0: any free port)"),
    "workers": ("BERTSUM_SERVE_WORKERS", positive_int, 1, "processes, each with the model loaded once"),
    "threads": (
        "BERTSUM_SERVE_THREADS",
        positive_int,
        None,
        "requests summarized at once in each process, each on one thread (default: the CPUs this process may use, "
        "shared among the workers)",
    ),
    "max_request_mb": ("BERTSUM_SERVE_MAX_REQUEST_MB", positive_number, 10.0, "largest request body, in MB (413)"),
    "max_documents": ("BERTSUM_SERVE_MAX_DOCUMENTS", positive_int, 64, "most documents in a batch request (422)"),
    "max_in_flight": (
        "BERTSUM_SERVE_MAX_IN_FLIGHT",
        positive_int,
        32,
        "requests in hand at once in each process; more are refused (503 with Retry-After)",
    ),
    "timeout": ("BERTSUM_SERVE_TIMEOUT", positive_number, 60.0, "seconds a request may take (504)"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Serve the summarizer over HTTP: POST /v1/summarize, POST /v1/summarize/batch, GET /v1/models, "
        "GET /health, and a web page at / (docs/serve.md).",
        epilog="Exit status: 2 usage or model error; 130 or 143 when stopped by SIGINT or SIGTERM (0 with several "
        "workers), once the requests in hand are answered.",
    )
    add_model_arguments(parser)
    for dest, (variable, kind, default, help) in ENVIRONMENT.items():
        shown = f"default {default}; ${variable}" if default is not None else f"${variable}"
        parser.add_argument("--" + dest.replace("_", "-"), dest=dest, type=kind, help=f"{help} ({shown})")
    add_debug_flag(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the service until it is stopped; returns the exit status."""
    return run_command(build_parser(), argv, _run, _report)


def _run(args: argparse.Namespace) -> int:
    values = {dest: _setting(args, dest) for dest in ENVIRONMENT}
    try:
        import uvicorn

        from summarizer.serve.app import Settings, create_app, to_environment
    except ImportError:
        raise InputError(f"summarize serve needs starlette and uvicorn: {SERVE_EXTRA}") from None
    settings = Settings(
        model=args.model,
        device=args.device,
        precision=args.precision,
        backend=args.backend,
        batch_size=args.batch_size,
        threads=values["threads"] or max(1, usable_cpus() // values["workers"]),
        max_request_mb=values["max_request_mb"],
        max_documents=values["max_documents"],
        max_in_flight=values["max_in_flight"],
        timeout=values["timeout"],
    )
    # The model, loaded here first: one that cannot be loaded is one line. Each worker of
    # several loads its own, from the settings handed on.
    app: Any = create_app(settings)
    if values["workers"] > 1:
        to_environment(settings)
        app = "summarizer.serve.app:from_environment"
    uvicorn.run(
        app,
        factory=values["workers"] > 1,
        host=values["host"],
        port=values["port"],
        workers=values["workers"],
        server_header=False,
        timeout_graceful_shutdown=math.ceil(settings.timeout),
    )
    return 0


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _setting(args: argparse.Namespace, dest: str) -> Any:
    """An option's value: the command line's, else its environment variable's, else its default."""
    variable, kind, default, _ = ENVIRONMENT[dest]
    given = getattr(args, dest)
    if given is not None:
        return given
    if not os.environ.get(variable):
        return default
    try:
        return kind(os.environ[variable])
    except argparse.ArgumentTypeError as error:
        raise InputError(f"${variable}: {error}") from None


def _report(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)
