"""Tables of documents: each row of a JSONL, JSON, CSV or Parquet file is one document.

`summarize corpus.parquet --text-field text -o out.parquet` writes the table back with the
columns `summary`, `indices`, `scores` and `error` added beside its own, row for row and in
order, through `Summarizer.summarize_batch` in this process; `--ray` runs the same on Ray
Data (`summarizer.ray`), on a local cluster or the one at `--address`. A row that cannot be
summarized (no text, empty, not text) keeps its place: its `error` says why, its summary
columns are null, and it is reported on stderr by file and row (exit status 1). The output is
Parquet when `-o` ends in `.parquet`, else JSON Lines (standard output without `-o`), and
appears whole or not at all. Without `--ray` the table is read into memory; `--ray` streams
it (a Parquet output is assembled in memory, JSON Lines stream out). On Ray the input may also
be a directory of Parquet files or a URI the cluster reads (s3://..., local://... for a file
of this machine).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from summarizer.columns import output_columns, summary_columns
from summarizer.console import UsageError, positive_int
from summarizer.errors import InputError, first_line, quoted
from summarizer.files import atomic_file, atomic_writer, checked, is_stream
from summarizer.options import selection_from
from summarizer.pipeline import LoadedAs, Summarizer
from summarizer.selection import SelectionConfig
from summarizer.text.tables import SUFFIXES, SUFFIXES_NAMED, file_rows

# The command: `summarize TABLE --text-field FIELD [--ray [--address A]] [-o OUT]`.


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("tables (one document a row; docs/scale.md)")
    group.add_argument(
        "--text-field",
        metavar="FIELD",
        help=f"read the input as a table ({SUFFIXES_NAMED}) whose FIELD holds each document; "
        "write it back with summary, indices, scores and error columns (Parquet if -o ends in .parquet, else "
        "JSON Lines)",
    )
    group.add_argument(
        "--ray",
        action="store_true",
        help="summarize the table on Ray Data (pip install 'bertsum[ray]'); FIELD defaults to text",
    )
    group.add_argument("--address", help="with --ray: the Ray cluster to join (default: start one on this machine)")
    group.add_argument(
        "--actors",
        type=positive_int,
        help="with --ray: model copies, one CPU each (default: the cluster's CPUs but one, which Ray Data's own "
        "tasks need; a local cluster has one more logical CPU than this machine for them)",
    )
    group.add_argument(
        "--prefix", default="", help="prefix of the added column names (when the table already has a summary column)"
    )


def wanted(args: argparse.Namespace) -> bool:
    """Whether the arguments ask for a table (any of its options given)."""
    return args.text_field is not None or args.ray or bool(args.address or args.actors or args.prefix)


def run(args: argparse.Namespace, report: Callable[[str], None]) -> int:
    """Summarize the table `args.inputs` names; the exit status."""
    if not args.ray and (args.address or args.actors):
        raise UsageError("--address and --actors need --ray")
    if args.text_field is None and not args.ray:
        raise UsageError("--prefix needs --text-field or --ray")
    if len(args.inputs) != 1 or args.inputs[0] == "-":
        raise UsageError("--text-field and --ray read one table file")
    if args.format != "text":
        raise UsageError("--format is for documents; a table is written as Parquet (-o FILE.parquet) or JSON Lines")
    source = args.inputs[0]
    shown = quoted(source)
    output = Path(args.output) if args.output else None
    if output is not None and (args.output.endswith(("/", "\\")) or output.is_dir()):
        raise UsageError("a table is written to one file, not a directory")
    if "://" not in source:  # on Ray, a URI (s3://..., local://...) is read by the cluster
        path = Path(source)
        if args.ray and path.is_dir():  # a directory of Parquet files, as Ray Data writes them
            pass
        elif not path.is_file():
            raise InputError(f"{shown}: no such file" if not path.exists() else f"{shown}: not a file")
        elif path.suffix.lower() not in SUFFIXES:
            raise InputError(f"{shown}: not a table; use {SUFFIXES_NAMED}")
        if output is not None and output.resolve() == path.resolve():
            raise UsageError(f"the output {quoted(str(output))} would overwrite its input")
    parquet = output is not None and output.suffix.lower() == ".parquet"
    if parquet and output is not None and is_stream(output):  # (parquet: output is given)
        raise UsageError(f"{quoted(str(output))}: Parquet is written to a file")
    field = args.text_field or "text"
    selection = selection_from(args)
    summarizer = Summarizer.from_pretrained(
        args.model, device=args.device, precision=args.precision, backend=args.backend
    )  # a bad model: one line
    if args.ray:
        assert summarizer.loaded_as is not None  # loaded by from_pretrained
        loaded_as = summarizer.loaded_as
        del summarizer  # each actor loads its own, as this one was resolved
        batches = _on_ray(source, field, selection, loaded_as, args)
    else:
        batches = _here(Path(source), field, selection, args.prefix, args.batch_size, summarizer, args.language)
    failed = False

    def checked_rows() -> Iterator[dict[str, Any]]:
        nonlocal failed
        number = 0
        for batch in batches:
            for row in batch:
                number += 1
                error = row.get(args.prefix + "error")
                if error is not None:
                    report(f"{shown}, row {number}: {error}")
                    failed = True
                yield row

    written = _write(checked_rows(), output, parquet)
    return 1 if failed or not written else 0


def _here(
    path: Path,
    field: str,
    selection: SelectionConfig,
    prefix: str,
    batch_size: int,
    summarizer: Summarizer,
    language: str | None = None,
) -> Iterator[list[dict[str, Any]]]:
    """The rows of `path` with their summary columns, summarized in this process."""
    rows: list[dict[str, Any]] = []
    errors: list[str | None] = []  # why a row is not summarized
    for location, row in file_rows(path):
        if isinstance(row, InputError):  # malformed JSON, not UTF-8: kept in its place as an error row
            rows.append({})
            errors.append(str(row).removeprefix(location).removeprefix(": ").removeprefix(", "))
        elif not isinstance(row, dict):
            rows.append({})
            errors.append(f"expected an object, got {type(row).__name__}")
        else:
            rows.append(row)
            errors.append(None if field in row else f"no field {field!r}")
    if not any(field in row for row in rows):
        keys = sorted({key for row in rows for key in row})
        found = ", ".join(keys) or "none"
        raise InputError(f"{quoted(str(path))}: no column {field!r} (columns: {found}); name it with --text-field")
    try:
        names = output_columns(prefix, {key for row in rows for key in row})
    except ValueError as error:
        raise InputError(f"{quoted(str(path))}: {error}") from None
    readable = [i for i, error in enumerate(errors) if error is None]
    columns = summary_columns(summarizer, [rows[i][field] for i in readable], batch_size, selection, language)
    values = dict(zip(readable, zip(*columns)))
    for i, row in enumerate(rows):
        row.update(zip(names, values.get(i, (None, None, None, errors[i]))))
    yield rows


def _on_ray(
    source: str, field: str, selection: SelectionConfig, model: LoadedAs, args: argparse.Namespace
) -> Iterator[list[dict[str, Any]]]:
    """The rows of `source` with their summary columns, summarized on Ray Data, in order, by
    actors that load `model` with the backend and precision it was resolved to here."""
    if not args.debug:  # Ray Data's progress reports stay out of the command's stderr
        os.environ.setdefault("RAY_DATA_LOG_LEVEL", "CRITICAL")  # failures end as one line here
    try:
        import ray
        import ray.data
    except ImportError:
        raise InputError("--ray needs Ray Data: pip install 'bertsum[ray]'") from None
    from summarizer.ray import summarize_dataset

    logging.getLogger("ray").setLevel(logging.ERROR)
    if not args.debug:  # advice on tuning a pipeline, not the command's business
        warnings.filterwarnings("ignore", category=UserWarning, module=r"ray\.")
    started = not ray.is_initialized()
    if started:
        # A local cluster gets one logical CPU more than the machine has: Ray Data's own tasks (listing a
        # Parquet input's files) need one, and with actors on every CPU they would wait for ever.
        ray.init(
            address=args.address,
            num_cpus=None if args.address else (os.cpu_count() or 1) + 1,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,
        )
    try:
        context = ray.data.DataContext.get_current()
        context.execution_options.preserve_order = True  # rows come back in the table's order
        context.enable_progress_bars = sys.stderr.isatty()
        # Reading takes no CPU of its own, so that actors can have them all and reads still run.
        reading: dict[str, Any] = {"num_cpus": 0}
        suffix = Path(source.rstrip("/")).suffix.lower()
        # A path as the cluster's workers read it: their working folder is not this one's.
        if "://" not in source:
            located = str(Path(source).absolute())
        elif source.startswith("local://"):
            located = "local://" + str(Path(source.removeprefix("local://")).absolute())
        else:
            located = source
        if suffix == ".csv":
            dataset = ray.data.read_csv(located, **reading)
        elif suffix in (".jsonl", ".json"):
            dataset = ray.data.read_json(located, lines=suffix == ".jsonl", **reading)
        else:  # a Parquet file, or a directory of them
            dataset = ray.data.read_parquet(located, **reading)
        actors = args.actors or max(1, int(ray.cluster_resources().get("CPU", 1)) - 1)
        options = {
            "text_field": field,
            "prefix": args.prefix,
            "precision": model.precision,
            "backend": model.backend,
            "device": model.device,
            "language": args.language,
            **asdict(selection),
        }
        # model.model: a built-in model's name or an absolute path, as actors start in other directories
        out = summarize_dataset(dataset, model.model, concurrency=actors, batch_size=args.batch_size, **options)
        for batch in out.iter_batches(batch_format="pyarrow"):
            assert not isinstance(batch, dict)  # a pyarrow Table, as asked
            yield batch.to_pylist()
    except ray.exceptions.RayTaskError as error:  # its first cause says what: a bad file, a missing column...
        raise InputError(f"{quoted(source)}: {_ray_failure(error)}") from error
    finally:
        if started:
            ray.shutdown()


def _ray_failure(error: BaseException) -> str:
    """What went wrong in a Ray task: its cause, or where Ray kept only the text of the
    traceback (an error in user code), the first error named in it."""
    cause = getattr(error, "cause", None)
    if cause is not None and not type(cause).__module__.startswith("ray."):
        return first_line(cause)
    named = re.search(r"^(?:[\w.]+\.)?(\w+(?:Error|Exception)): (.+)$", str(error), re.MULTILINE)
    return f"{named[1]}: {named[2]}" if named else first_line(error)


def _write(rows: Iterator[dict[str, Any]], output: Path | None, parquet: bool) -> bool:
    """Write `rows` to `output` (standard output when None) as Parquet or JSON Lines; False when
    there was no row. A file appears only once complete."""
    first = next(rows, None)
    if first is None:
        return False
    rows = _chain(first, rows)
    if parquet:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pylist(list(rows))
        assert output is not None  # Parquet is written to a file
        with atomic_file(output) as temporary:
            pq.write_table(table, temporary)
        return True
    if output is None:
        _write_lines(checked(sys.stdout, "standard output"), rows)
        return True
    with atomic_writer(output) as out:
        _write_lines(out, rows)
    return True


def _write_lines(out: Any, rows: Iterable[dict[str, Any]]) -> None:
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
    out.flush()


def _chain(first: dict[str, Any], rest: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    yield first
    yield from rest
