"""Summaries of a Ray Data dataset of any size: `pip install 'bertsum[ray]'` (Ray Data beside the
inference install: ONNX Runtime, no torch).

    import ray
    from summarizer.ray import Summarize

    ds = ray.data.read_parquet("s3://bucket/corpus/")
    ds = ds.map_batches(Summarize, fn_constructor_kwargs={"k": 3}, concurrency=8, batch_size=128)
    ds.write_parquet("s3://bucket/summaries/")

`Summarize` loads the model once per actor and adds the columns `summary`, `indices`,
`scores` and `error` beside the input columns (names prefixed with `prefix` when given). A row
whose text is missing, empty or not text keeps its place: its `error` says why and its summary
columns are null. Each actor loads the model as `Summarizer.from_pretrained` and the `summarize`
command do (backend and precision "auto" unless given: ONNX Runtime where the model has its
graph), so that every way gives the same summaries, and computes with as many threads as the
CPUs Ray gave it (`num_cpus`, one by default), so that actors sharing a machine do not fight
over its cores.
`summarize_dataset` is the same call with these defaults filled in; `summarize TABLE --ray`
(`summarizer.cli.corpus`) uses it. Ray is imported only when one of them is used.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from summarizer.columns import output_columns, summary_columns
from summarizer.pipeline import CHUNK_BATCHES, Summarizer
from summarizer.selection import SelectionConfig

if TYPE_CHECKING:
    import ray.data


class Summarize:
    """A callable class for `Dataset.map_batches`: the summaries of a batch's `text_field` column.

    Accepts and returns any batch format Ray Data hands over (`pyarrow`, `pandas`, or the default
    dict of NumPy arrays). `model`: an exported model directory readable on every node (default:
    `$BERTSUM_MODEL_DIR`, else the built-in news model, which ships in the package).
    `batch_size` documents go through the encoder at once; the selection options are those of
    `Summarizer.summarize_batch`; `device`, `precision` and `backend` those of
    `Summarizer.from_pretrained`. `threads`: this actor's threads (default: the CPUs Ray assigned
    to it, at least one). `language`: that of every document, as `Summarizer.summarize_batch`
    takes it (None: each document's, detected).
    """

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        text_field: str = "text",
        prefix: str = "",
        k: int = 3,
        ratio: float | None = None,
        max_words: int | None = None,
        trigram_blocking: bool | None = None,
        order: str = "document",
        batch_size: int = 16,
        device: str = "cpu",
        precision: str = "auto",
        backend: str = "auto",
        threads: int | None = None,
        language: str | None = None,
    ) -> None:
        self.selection = SelectionConfig(k, ratio, max_words, trigram_blocking, order)  # checked before the model loads
        self.summarizer = Summarizer.from_pretrained(
            model, device, precision, backend, threads if threads is not None else assigned_cpus()
        )
        self.text_field = text_field
        self.prefix = prefix
        self.batch_size = batch_size
        self.language = self.summarizer.check_language(language)

    def __call__(self, batch: Any) -> Any:
        columns = list(batch.column_names if hasattr(batch, "column_names") else batch.keys())
        if self.text_field not in columns:
            raise ValueError(
                f"no column {self.text_field!r} to summarize (columns: {', '.join(columns)}); name it with text_field"
            )
        names = output_columns(self.prefix, columns)
        values = summary_columns(
            self.summarizer, _values(batch, self.text_field), self.batch_size, self.selection, self.language
        )
        return _with_columns(batch, dict(zip(names, values)))


def summarize_dataset(
    dataset: ray.data.Dataset,
    model: str | Path | None = None,
    *,
    concurrency: int = 1,
    num_cpus: float = 1,
    batch_size: int = 16,
    **options: Any,
) -> ray.data.Dataset:
    """`dataset` with summary columns: `concurrency` actors of `num_cpus` CPUs each, each reading
    `batch_size * CHUNK_BATCHES` rows a call so that documents of similar length batch together.
    `options` go to `Summarize` (text_field, prefix, k, ratio, precision, backend, ...)."""
    import ray.data

    return dataset.map_batches(
        Summarize,
        fn_constructor_kwargs={"model": model, "batch_size": batch_size, **options},
        batch_size=batch_size * CHUNK_BATCHES,
        batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(size=concurrency),
        num_cpus=num_cpus,
    )


def assigned_cpus() -> int:
    """The CPUs Ray assigned to the current actor or task (at least one); 1 outside Ray."""
    import ray

    if not ray.is_initialized():
        return 1
    return max(1, int(ray.get_runtime_context().get_assigned_resources().get("CPU", 1)))


def _values(batch: Any, name: str) -> list[Any]:
    column = batch[name]
    if hasattr(column, "to_pylist"):  # pyarrow
        return column.to_pylist()
    if hasattr(column, "notna"):  # pandas: its missing values (NA, NaN) as None
        return column.astype(object).where(column.notna(), None).tolist()
    return list(column)


def _with_columns(batch: Any, added: dict[str, list[Any]]) -> Any:
    """`batch` with the `added` columns, in its own format."""
    import pyarrow as pa

    types = dict(zip(added, (pa.string(), pa.list_(pa.int64()), pa.list_(pa.float64()), pa.string())))
    if isinstance(batch, pa.Table):
        for name, values in added.items():
            batch = batch.append_column(name, pa.array(values, types[name]))
        return batch
    if hasattr(batch, "assign"):  # a pandas DataFrame
        return batch.assign(**added)
    import numpy as np

    out = dict(batch)
    for name, values in added.items():
        column = np.empty(len(values), dtype=object)  # lists of different lengths stay lists
        column[:] = values
        out[name] = column
    return out
