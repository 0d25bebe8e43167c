"""The service: a Starlette application around one model loaded once per process.

    POST /v1/summarize        one document: JSON {"text": ...} or an uploaded `file`, with options
    POST /v1/summarize/batch  several: JSON {"documents": [...]} or several uploaded `file`s
    GET  /v1/models           the model: name, backend, precision, language, languages
    GET  /health              {"status": "ok"} once the model is loaded
    GET  /                    the web page (page/: no build step, no external assets)

Every error is JSON, {"error": "...", "field": "..."} (the field where one is at fault): 400 a
body that cannot be parsed, 404 and 405, 413 a request past the size limit, 415 neither JSON nor
a form, 422 an unknown field, a bad value or a document with no running text, 503 (with
Retry-After) when `max_in_flight` requests are in hand, 504 past the time limit, and 500 with no
detail for anything else (its traceback goes to the log, never to the client).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from summarizer.errors import InputError
from summarizer.pipeline import Summarizer, Summary
from summarizer.resources import BUILTIN_MODELS, model_dir
from summarizer.runtime.backends import resolve_backend
from summarizer.serve.inputs import RequestError, Source, parse, read, read_body
from summarizer.serve.runner import Busy, Result, Runner

SETTINGS_VARIABLE = "BERTSUM_SERVE_SETTINGS"  # how `summarize serve --workers N` passes its settings to each worker
PAGE_FILES = {
    "/": ("index.html", "text/html"),
    "/page.js": ("page.js", "text/javascript"),
    "/page.css": ("page.css", "text/css"),
}
PAGE_HEADERS = {
    # The page's own script, style and requests, nothing from elsewhere; not framed by other sites.
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Settings:
    """The model and the limits of a service process."""

    model: str | None = None  # a built-in model's name or a model directory; None: $BERTSUM_MODEL_DIR, else news
    device: str = "cpu"
    precision: str = "auto"
    backend: str = "auto"
    batch_size: int = 16
    threads: int = 1  # requests summarized at once, each on one thread
    max_request_mb: float = 10.0
    max_documents: int = 64
    max_in_flight: int = 32
    timeout: float = 60.0


def create_app(settings: Settings) -> Starlette:
    """The application, with its model loaded (an `InputError` says why it cannot be)."""
    summarizer = Summarizer.from_pretrained(
        settings.model, device=settings.device, precision=settings.precision, backend=settings.backend, threads=1
    )
    model = describe(settings, summarizer)
    if model["backend"] == "torch" and settings.device == "cpu":
        import torch

        torch.set_num_threads(1)  # each request on one thread, as ONNX Runtime's above
    runner = Runner(summarizer, settings.batch_size, settings.threads, settings.max_in_flight)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await asyncio.to_thread(runner.stop)

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "in_flight": runner.in_flight})

    async def models(request: Request) -> Response:
        return JSONResponse({"models": [model]})

    summarize = functools.partial(_summarize, runner=runner, settings=settings)
    routes = [
        Route("/health", health, methods=["GET"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/v1/summarize", functools.partial(summarize, batch=False), methods=["POST"]),
        Route("/v1/summarize/batch", functools.partial(summarize, batch=True), methods=["POST"]),
        *(_page_route(path, name, kind) for path, (name, kind) in PAGE_FILES.items()),
    ]
    return Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={HTTPException: _http_error, Exception: _internal_error},
    )


def from_environment() -> Starlette:
    """The application of a worker process that `summarize serve --workers N` started."""
    return create_app(Settings(**json.loads(os.environ[SETTINGS_VARIABLE])))


def to_environment(settings: Settings) -> None:
    """Hand `settings` to the worker processes this process starts (`from_environment`)."""
    os.environ[SETTINGS_VARIABLE] = json.dumps(asdict(settings))


def describe(settings: Settings, summarizer: Summarizer) -> dict[str, Any]:
    """The model as /v1/models names it (a directory by its name only: the service's paths stay its own)."""
    directory = model_dir(settings.model)
    name = settings.model or os.environ.get("BERTSUM_MODEL_DIR") or BUILTIN_MODELS[0]
    backend, precision = resolve_backend(directory, settings.device, settings.precision, settings.backend)
    return {
        "name": name if name in BUILTIN_MODELS else Path(name).name,
        "backend": backend,
        "precision": precision,
        "language": summarizer.language,
        "languages": list(summarizer.languages),  # ISO 639-1 codes of those it reads
    }


async def _summarize(request: Request, runner: Runner, settings: Settings, batch: bool) -> Response:
    try:
        release = runner.take_slot()
    except Busy as error:
        return _error(503, str(error), headers={"Retry-After": "1"})
    handed = False  # once the work has the slot, it gives it back when done
    try:
        async with asyncio.timeout(settings.timeout):
            body = await read_body(request, int(settings.max_request_mb * 1_000_000))
            ask = await parse(request.headers, body, batch, settings.max_documents)
            try:
                runner.summarizer.check_language(ask.language)
            except InputError as error:
                raise RequestError(422, f"language: {error}", "language") from None
            future = runner.submit(
                [functools.partial(read, source) for source in ask.sources],
                ask.selection,
                release,
                ask.language,
                [source.name for source in ask.sources],
            )
            handed = True
            results = await asyncio.wrap_future(future)
    except TimeoutError:
        return _error(504, f"not answered within the time limit of {settings.timeout:g} s")
    except RequestError as error:  # after a 413 the rest of the body is not read: the connection closes
        return JSONResponse(
            error.body(), error.status, headers={"Connection": "close"} if error.status == 413 else None
        )
    finally:
        if not handed:
            release()
    if batch:
        return JSONResponse({"summaries": [_record(source, result) for source, result in zip(ask.sources, results)]})
    (result,) = results
    if isinstance(result, InputError):
        return _error(422, str(result), "file" if ask.sources[0].file is not None else "text")
    return JSONResponse(_record(ask.sources[0], result))


def _record(source: Source, result: Result) -> dict[str, Any]:
    """A document's summary as `summarize --format json` writes it, with every sentence of the
    document, its score (null: too short to score) and its paragraph; or its error."""
    if isinstance(result, InputError):
        return {"file": source.file, "error": str(result)}
    summary: Summary = result
    return {
        "file": source.file,
        **summary.record(),
        "document": summary.document,
        "sentence_scores": [None if score is None else round(score, 6) for score in summary.sentence_scores],
        "paragraphs": summary.sentence_paragraphs,
    }


def _page_route(path: str, name: str, kind: str) -> Route:
    content = (files("summarizer.serve") / "page" / name).read_bytes()

    async def page(request: Request) -> Response:
        return Response(content, media_type=kind, headers=PAGE_HEADERS)

    return Route(path, page, methods=["GET"])


def _error(status: int, message: str, field: str | None = None, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse(RequestError(status, message, field).body(), status, headers=headers)


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    return JSONResponse({"error": error.detail}, error.status_code, headers=error.headers)


async def _internal_error(request: Request, error: Exception) -> Response:
    log.error("%s %s failed", request.method, request.url.path, exc_info=error)
    return JSONResponse({"error": "internal error (the service's log has the detail)"}, 500)
