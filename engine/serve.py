"""``kwx serve``: advertising keywords over HTTP, for ad systems that ask once per page view.

One ASGI process (Starlette on uvicorn) takes the requests and checks them; ``workers``
processes (a :class:`~concurrent.futures.ProcessPoolExecutor`, each loading the models
once) do the pages, one at a time each. Requests go to whichever worker is free, not to
the process that accepted the connection: with uvicorn's own workers (a process per
connection) four keep-alive clients got 1.04x one client's pages per second in
``benchmarks/serve_load.py``, as if their connections sat on one process (an event loop
accepts every connection waiting at once); that design is gone, so the figure cannot be
run again from this code.

- ``POST /extract`` with a JSON object: ``html`` (the page; with ``url``, the page's
  address) or ``url`` alone (fetched, public addresses only unless the server was started
  with ``allow_private``), optional ``id``,
  ``top`` (1-100, default 10), and ``include``: a list of ``"text"`` (the main content)
  and ``"metadata"`` (title, author, date, ...), each a parse of its own, so they are
  asked for. The answer: ``{"page", "url", "keywords": [{"phrase", "score", "count"}]}``
  and what was included.
- ``GET /health``: ``{"status": "ok", "pid", "workers", "version"}`` once every worker
  has its models: the keyword models, the language identifier and the tokenizers of
  ``languages`` (:data:`WARM_LANGUAGES`: the first page in French would otherwise wait
  some 5 s for spaCy's French exceptions).

Every error is ``{"error": {"code", "message"}}`` with its status: 400 ``bad_request``
(not a JSON object, a field of the wrong kind), 413 ``too_large`` (a body over
``max_bytes``), 415 ``not_json``, 422 ``bad_page`` / ``fetch_failed`` (a page the toolkit
cannot use, said as ``denoise apply`` says it), 504 ``timeout`` (the page took longer than
``timeout`` seconds; its worker finishes it in the background), 500 ``internal`` (a bug,
or a worker that died: the pool is started again).
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
from collections.abc import AsyncIterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from denoise.decode import DEFAULT_MAX_BYTES
from denoise.errors import PageError
from denoise.page import Page, site_of
from denoise.reader import Skipped, is_url
from denoise.shipped import toolkit_version

__all__ = ["ServeSettings", "create_app", "run_server"]

log = logging.getLogger(__name__)

INCLUDE = ("text", "metadata")
MAX_TOP = 100
#: Languages whose tokenizers each worker loads before it answers (about 7 s together,
#: French 5 of them): frequent on the web after English, and tokenized by spaCy without
#: a package of their own.
WARM_LANGUAGES = ("de", "es", "fr", "it", "nl", "pl", "pt", "ru", "tr")
_START_SECONDS = 300.0  # the longest a worker waits for the others to load their models


@dataclass(frozen=True)
class ServeSettings:
    """How the service runs: its models (None: the shipped ones), limits and fetching."""

    ranker: str | None = None
    detector: str | None = None
    max_bytes: int = DEFAULT_MAX_BYTES  # a request body (and a fetched page)
    timeout: float = 30.0  # seconds a page may take
    allow_private: bool = False
    workers: int = 1
    languages: tuple[str, ...] = WARM_LANGUAGES  # tokenizers loaded before answering


class _Refusal(Exception):
    """A request answered with an error: its status, code and message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class _Service:
    """One worker's models, and its answer to one checked request."""

    def __init__(self, settings: ServeSettings) -> None:
        from denoise.fetch import Fetcher
        from denoise.language import load_identifier
        from kwx.extractor import KeywordExtractor
        from kwx.text import language_tokenizer

        self.extractor = KeywordExtractor.load(ranker=settings.ranker,
                                               detector=settings.detector)
        self.fetcher = Fetcher(max_bytes=settings.max_bytes, delay=0.0,
                               timeout=min(settings.timeout, 10.0),
                               allow_private=settings.allow_private)
        warm = Page(id="warm-up", html="<html><body><p>Warming the models up with one "
                    "short page about ferry timetables.</p></body></html>")
        self.extractor.extract(warm)
        load_identifier()
        for language in settings.languages:
            language_tokenizer(language)

    def answer(self, request: _Request) -> tuple[int, dict[str, Any]]:
        """The status and body of the response."""
        from denoise.cleaning import clean
        from denoise.metadata import extract_metadata

        if request.html is not None:
            page = Page(id=request.id or request.url or "request", html=request.html,
                        url=request.url, site=site_of(request.url))
        else:
            fetched = self.fetcher.page(request.url or "")
            if isinstance(fetched, Skipped):
                return _error(422, "fetch_failed", str(fetched))
            page = Page(id=request.id or fetched.id, html=fetched.html, url=fetched.url,
                        site=fetched.site)
        try:
            keywords = self.extractor.extract(page, request.top)
            out: dict[str, Any] = {
                "page": page.id, "url": page.url,
                "keywords": [{"phrase": k.phrase, "score": round(k.score, 4),
                              "count": k.count} for k in keywords]}
            # the metadata's language is told by the main text, asked for or not
            text = clean(page, "main").text if request.include else None
            if "metadata" in request.include:
                out["metadata"] = extract_metadata(page, text).as_dict()
            if "text" in request.include:
                out["text"] = text
        except PageError as error:
            return _error(422, "bad_page", str(error))
        return 200, out


@dataclass(frozen=True)
class _Request:
    """A request's fields, checked (in the front process, before any worker sees it)."""

    html: str | None
    url: str | None
    id: str | None
    top: int
    include: tuple[str, ...]


def _error(status: int, code: str, message: str) -> tuple[int, dict[str, Any]]:
    return status, {"error": {"code": code, "message": message}}


def _checked(data: object) -> _Request | tuple[int, dict[str, Any]]:
    """The request's fields, or the 400 answer saying what is wrong with them."""
    if not isinstance(data, dict):
        return _error(400, "bad_request", "the body must be a JSON object")
    html, url, page_id = data.get("html"), data.get("url"), data.get("id")
    top, include = data.get("top", 10), data.get("include", [])
    problem = None
    if html is None and url is None:
        problem = 'give "html" (the page), or "url" alone (fetched)'
    elif html is not None and not isinstance(html, str):
        problem = '"html" must be a string'
    elif url is not None and not (isinstance(url, str) and is_url(url)):
        problem = '"url" must be an http(s) URL'
    elif not isinstance(top, int) or isinstance(top, bool) or not 1 <= top <= MAX_TOP:
        problem = f'"top" must be an integer in [1, {MAX_TOP}]'
    elif not isinstance(include, list) or not set(include) <= set(INCLUDE):
        problem = f'"include" must be a list of {", ".join(INCLUDE)}'
    elif page_id is not None and not isinstance(page_id, str):
        problem = '"id" must be a string'
    if problem:
        return _error(400, "bad_request", problem)
    return _Request(html=html, url=url, id=page_id, top=top, include=tuple(include))


_SERVICE: _Service | None = None
_STARTED: Any = None  # the barrier every worker meets once its models are loaded


def _init_worker(settings: ServeSettings, parent: int, started: Any) -> None:
    global _SERVICE, _STARTED  # one service per worker process, set once
    from engine.batch import _end_with_parent, ready_for_pages

    _end_with_parent(parent)
    _SERVICE, _STARTED = _Service(settings), started
    ready_for_pages()


def _work(request: _Request) -> tuple[int, dict[str, Any]]:
    assert _SERVICE is not None  # noqa: S101 - set by the initializer
    try:
        return _SERVICE.answer(request)
    except Exception:  # a bug: logged here, said as such to the client
        log.exception("internal error on a request")
        return _error(500, "internal", "internal error (logged by the server)")


def _ready() -> int:
    """A worker's pid once every worker has its models: each of the pool's first
    ``workers`` tasks waits for the others, so the pool starts them all."""
    _STARTED.wait(_START_SECONDS)
    return os.getpid()


def create_app(settings: ServeSettings | None = None) -> Any:
    """The ASGI application; its worker processes start (and load their models) with it."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    settings = settings or ServeSettings()
    state: dict[str, Any] = {}

    def start_pool() -> ProcessPoolExecutor:
        context = multiprocessing.get_context("spawn")  # not fork: this process has threads
        started = context.Barrier(settings.workers)
        return ProcessPoolExecutor(settings.workers, mp_context=context,
                                   initializer=_init_worker,
                                   initargs=(settings, os.getpid(), started))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state["pool"] = pool = start_pool()
        loop = asyncio.get_running_loop()
        state["workers"] = sorted(set(await asyncio.gather(*(
            loop.run_in_executor(pool, _ready) for _ in range(settings.workers)))))
        try:
            yield
        finally:
            state["pool"].shutdown(wait=False, cancel_futures=True)

    def answer(status: int, body: dict[str, Any]) -> JSONResponse:
        return JSONResponse(body, status_code=status)

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "pid": os.getpid(),
                             "workers": len(state.get("workers", ())),
                             "version": toolkit_version()})

    async def extract(request: Request) -> JSONResponse:
        kind = request.headers.get("content-type", "application/json").split(";")[0].strip()
        if kind != "application/json":
            return answer(*_error(415, "not_json", f"the body must be application/json, not "
                                  f"{kind}"))
        too_large = _error(413, "too_large", f"the body is over {settings.max_bytes} bytes")
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > settings.max_bytes:
            return answer(*too_large)
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > settings.max_bytes:
                return answer(*too_large)
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError) as error:
            return answer(*_error(400, "bad_request", f"the body is not JSON ({error})"))
        checked = _checked(data)
        if not isinstance(checked, _Request):
            return answer(*checked)
        pool = state["pool"]
        try:
            future = asyncio.get_running_loop().run_in_executor(pool, _work, checked)
            return answer(*await asyncio.wait_for(future, settings.timeout))
        except TimeoutError:
            return answer(*_error(504, "timeout", f"the page took longer than "
                                  f"{settings.timeout:g} s"))
        except BrokenProcessPool:  # a worker died (killed, out of memory): start them again
            if state["pool"] is pool:
                pool.shutdown(wait=False, cancel_futures=True)
                state["pool"] = start_pool()
            return answer(*_error(500, "internal", "a worker process died on this page"))

    return Starlette(routes=[Route("/health", health), Route("/extract", extract,
                                                            methods=["POST"])],
                     lifespan=lifespan)


def run_server(settings: ServeSettings, *, host: str, port: int) -> None:
    """Serve until interrupted (one uvicorn process, ``settings.workers`` workers). A
    server's call: uvicorn takes SIGINT and SIGTERM for as long as it runs."""
    import uvicorn

    uvicorn.run(create_app(settings), host=host, port=port, log_level="warning",
                timeout_keep_alive=30)
