"""Fetching pages (``denoise.fetch``) from a local HTTP server started here (no network)."""

from __future__ import annotations

import gzip
import http.server
import ipaddress
import socket
import threading

import pytest

from denoise import fetch
from denoise.fetch import Fetcher
from denoise.page import Page
from denoise.reader import Skipped, read_pages

PAGE = b"<html><head><title>Ferry</title></head><body><p>The ferry leaves at six.</p></body></html>"


class Handler(http.server.BaseHTTPRequestHandler):
    flaky: dict[str, int] = {}  # noqa: RUF012 - shared by the server's requests on purpose

    def do_GET(self) -> None:
        routes = {
            "/page": (200, {"Content-Type": "text/html; charset=utf-8"}, PAGE),
            "/gzip": (200, {"Content-Type": "text/html", "Content-Encoding": "gzip"},
                      gzip.compress(PAGE)),
            "/redirect": (302, {"Location": "/page"}, b""),
            "/loop": (302, {"Location": "/loop"}, b""),
            "/inside": (302, {"Location": "http://inside.example/"}, b""),
            "/image": (200, {"Content-Type": "image/png"}, b"\x89PNG\r\n\x1a\n"),
            "/big": (200, {"Content-Type": "text/html"}, b"<p>" + b"x" * 5000 + b"</p>"),
            "/missing": (404, {"Content-Type": "text/html"}, b"<p>no</p>"),
        }
        if self.path == "/flaky":
            count = self.flaky[self.path] = self.flaky.get(self.path, 0) + 1
            route = (503, {"Retry-After": "0"}, b"") if count == 1 else routes["/page"]
        else:
            route = routes.get(self.path, (404, {}, b""))
        status, headers, body = route
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.server.agents.append(self.headers.get("User-Agent"))  # type: ignore[attr-defined]

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.agents = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", httpd
    httpd.shutdown()


def local(**kwargs: object) -> Fetcher:
    return Fetcher(allow_private=True, delay=0, timeout=5, **kwargs)  # type: ignore[arg-type]


def test_a_page_is_fetched_decoded_and_named_by_its_url(server):
    base, httpd = server
    page = local().page(f"{base}/redirect")
    assert isinstance(page, Page)
    assert page.id == f"{base}/redirect"
    assert page.url == f"{base}/page"  # where the redirect led
    assert page.site == "127.0.0.1"
    assert "ferry leaves at six" in page.html
    assert local().page(f"{base}/gzip").html == page.html
    assert httpd.agents[-1].startswith("webdenoise/")


@pytest.mark.parametrize(("path", "reason"), [
    ("/missing", "HTTP 404"), ("/image", "not HTML (image/png)"),
    ("/big", "larger than 1000 bytes"), ("/loop", "more than 5 redirects")])
def test_what_cannot_be_used_is_skipped_with_its_reason(server, path, reason):
    base, _ = server
    skipped = local(max_bytes=1000).page(base + path)
    assert isinstance(skipped, Skipped)
    assert skipped.source == base + path
    assert reason in skipped.reason


def test_a_server_error_is_tried_again(server):
    base, _ = server
    assert isinstance(local(retries=1).page(f"{base}/flaky"), Page)


def test_loopback_and_private_addresses_are_refused_unless_allowed(server, monkeypatch):
    base, _ = server
    skipped = Fetcher(delay=0).page(f"{base}/page")
    assert isinstance(skipped, Skipped)
    assert "127.0.0.1 is a loopback address" in skipped.reason
    assert "--allow-private" in skipped.reason
    # a public page that redirects inside is refused at the redirect: 127.0.0.1 passes for
    # public here, and inside.example resolves to a private address
    real = socket.getaddrinfo

    def resolve(host, *args, **kwargs):
        if host == "inside.example":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.7", 80))]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(fetch.socket, "getaddrinfo", resolve)
    monkeypatch.setattr(fetch, "_public", lambda ip: ip == ipaddress.ip_address("127.0.0.1"))
    skipped = Fetcher(delay=0).page(f"{base}/inside")
    assert isinstance(skipped, Skipped)
    assert "inside.example is a private address (10.0.0.7)" in skipped.reason


def test_read_pages_fetches_urls_among_its_inputs(server, tmp_path):
    base, _ = server
    (tmp_path / "a.html").write_bytes(PAGE)
    items = list(read_pages([str(tmp_path / "a.html"), f"{base}/page", f"{base}/missing"],
                            fetcher=local()))
    assert [type(item).__name__ for item in items] == ["Page", "Page", "Skipped"]
    assert items[1].id == f"{base}/page"
    refused = list(read_pages([f"{base}/page"]))  # the default fetcher: public addresses only
    assert isinstance(refused[0], Skipped)


def test_one_host_is_asked_at_most_once_a_delay(server, monkeypatch):
    base, _ = server
    waits = []
    monkeypatch.setattr(fetch.time, "sleep", waits.append)
    fetcher = Fetcher(allow_private=True, delay=30)
    fetcher.page(f"{base}/page")
    fetcher.page(f"{base}/page")
    assert len(waits) == 1 and 29 < waits[0] <= 30


# --- the commands ----------------------------------------------------------------------


def test_denoise_apply_and_kwx_extract_take_urls(server, tmp_path):
    from typer.testing import CliRunner

    from commands.denoise import app as denoise_app
    from commands.kwx import app as kwx_app

    base, _ = server
    runner = CliRunner()
    refused = runner.invoke(denoise_app, ["apply", f"{base}/page"])
    assert refused.exit_code == 1
    assert "loopback address" in refused.stderr
    result = runner.invoke(denoise_app, ["apply", f"{base}/page", "--allow-private",
                                         "--format", "json"])
    assert result.exit_code == 0, result.output
    assert "ferry leaves at six" in result.stdout
    urls = tmp_path / "urls.txt"
    urls.write_text(f"# two pages\n{base}/page\n\n{base}/missing\n")
    result = runner.invoke(denoise_app, ["apply", "--urls", str(urls), "--allow-private"])
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 1
    assert f"skipped {base}/missing: HTTP 404" in result.stderr
    result = runner.invoke(kwx_app, ["extract", f"{base}/page", "--allow-private"])
    assert result.exit_code == 0, result.output
    assert "ferry" in result.stdout.lower()
    assert runner.invoke(denoise_app, ["apply"]).exit_code == 2  # nothing to read
