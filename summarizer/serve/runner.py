"""The model of a service process and the requests it has in hand.

`threads` threads each take a request in turn, read its documents and summarize them together
(`summarize_batch`, as `summarize` does the files it is given), each computing on one thread of
its own (`Summarizer.from_pretrained(threads=1)`): on a CPU, requests side by side on one core
each go faster than one at a time on every core, and a request is never batched with another's
documents, so its answer is the same whatever else the service is doing (int8 models quantize
the activations of each batch as a whole).

Each request holds one of `max_in_flight` slots until its work is over, even when its client
has stopped waiting (a timed-out request's work still takes the CPU), so that a request past
the limit is refused at once (`Busy`) rather than queued behind work it cannot overtake.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict

from summarizer.errors import InputError
from summarizer.pipeline import Summarizer, Summary
from summarizer.readers import Document
from summarizer.selection import SelectionConfig

Result = Summary | InputError  # a document's summary, or why it has none


class Busy(Exception):
    """Every slot is taken: the request is refused (503)."""


class Runner:
    """Reads and summarizes the documents of requests with `summarizer` on `threads` threads,
    at most `max_in_flight` requests in hand at a time."""

    def __init__(self, summarizer: Summarizer, batch_size: int, threads: int, max_in_flight: int) -> None:
        self.summarizer, self.batch_size, self.max_in_flight = summarizer, batch_size, max_in_flight
        self._in_flight = 0
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="bertsum")

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def stop(self) -> None:
        """Finish the work in hand, then end the threads."""
        self._pool.shutdown(wait=True)

    def take_slot(self) -> Callable[[], None]:
        """A slot for one request, as the function that gives it back (once); `Busy` when none is free."""
        with self._lock:
            if self._in_flight >= self.max_in_flight:
                raise Busy(f"{self.max_in_flight} requests are in hand; try again shortly")
            self._in_flight += 1
        given_back = False

        def release() -> None:
            nonlocal given_back
            with self._lock:
                if not given_back:
                    given_back = True
                    self._in_flight -= 1

        return release

    def submit(
        self,
        read: Sequence[Callable[[], Document]],
        selection: SelectionConfig,
        release: Callable[[], None],
        language: str | None = None,
        names: Sequence[str] = (),
    ) -> Future[list[Result]]:
        """The summaries of the documents `read` gives, in order (an `InputError` in place of
        each that cannot be read or is in a language the model does not read, after its name in
        `names`); `release` is called once the work is over or cancelled (a request whose future
        is cancelled before a thread takes it is never read). `language`: as `summarize_batch`
        takes it (None: each document's, detected)."""
        future = self._pool.submit(self._summarize, read, selection, language, names)
        future.add_done_callback(lambda _: release())
        return future

    def _summarize(
        self,
        read: Sequence[Callable[[], Document]],
        selection: SelectionConfig,
        language: str | None,
        names: Sequence[str],
    ) -> list[Result]:
        documents: list[Document | InputError] = []
        for reader in read:
            try:
                documents.append(reader())
            except InputError as error:
                documents.append(error)
        readable = [document for document in documents if isinstance(document, Document)]
        summaries = iter(
            list(
                self.summarizer.summarize_batch(
                    readable, self.batch_size, **asdict(selection), errors="keep", language=language
                )
            )
        )
        results: list[Result] = []
        for i, document in enumerate(documents):
            result = next(summaries) if isinstance(document, Document) else document
            if isinstance(result, Summary) and result.error is not None:
                result = InputError(f"{names[i]}: {result.error}" if i < len(names) else result.error)
            results.append(result)
        return results
