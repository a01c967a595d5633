"""``kwx serve`` (``engine.serve``): the real server, started here on a free port."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

PAGE = ("<html><head><title>Polar bears and sea ice - Arctic News</title></head><body>"
        "<article><h1>Polar bears and sea ice</h1><p>Polar bears hunt seals from the Arctic "
        "sea ice, which melts earlier every spring. Polar bears then fast on land until the "
        "sea ice returns.</p>"
        "</article></body></html>")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Answer:
    """A response: its status and JSON body."""

    def __init__(self, status: int, body: bytes) -> None:
        self.status_code, self.text = status, body.decode()

    def json(self) -> dict:
        return json.loads(self.text)


class Client:
    """Requests to a server on localhost, one keep-alive connection."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def send(self, method: str, path: str, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> Answer:
        try:
            self.connection.request(method, path, body=body, headers=headers or {})
            response = self.connection.getresponse()
            return Answer(response.status, response.read())
        finally:  # a server that answered before reading a body may close the connection
            self.connection.close()
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def get(self, path: str) -> Answer:
        return self.send("GET", path)

    def post(self, path: str, *, payload: object = None, content: bytes | None = None,
             headers: dict[str, str] | None = None) -> Answer:
        body = content if content is not None else json.dumps(payload).encode()
        return self.send("POST", path, body, headers or {"Content-Type": "application/json"})


def start(*options: str) -> tuple[subprocess.Popen, int]:
    """``kwx serve`` with ``options`` on a free port, once its health says ok."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", "from commands.kwx import main; main()", "serve", "--port",
         str(port), *options], stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 90
    while True:
        try:
            if Client(port).get("/health").status_code == 200:
                return server, port
        except OSError:
            assert time.monotonic() < deadline, server.stderr.read().decode()
            assert server.poll() is None, server.stderr.read().decode()
            time.sleep(0.5)


def stop(server: subprocess.Popen) -> None:
    """SIGTERM, then wait for the whole process group (the workers) to be gone."""
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=30)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.killpg(server.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    pytest.fail("worker processes outlived the server")


@pytest.fixture(scope="module")
def client():
    server, port = start("--workers", "1", "--max-bytes", "10000", "--timeout", "20")
    try:
        yield Client(port)
    finally:
        stop(server)


def test_health_says_ok_once_the_models_are_loaded(client):
    answer = client.get("/health")
    assert answer.status_code == 200
    assert answer.json()["status"] == "ok"
    assert answer.json()["workers"] == 1


def test_keywords_and_what_was_included(client):
    answer = client.post("/extract", payload={"html": PAGE, "id": "bears", "top": 3,
                                           "include": ["text", "metadata"]})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["page"] == "bears"
    assert len(body["keywords"]) == 3
    assert {"phrase", "score", "count"} == set(body["keywords"][0])
    assert any("bear" in k["phrase"].lower() for k in body["keywords"])
    assert body["metadata"]["title"] == "Polar bears and sea ice"
    assert "melts earlier every spring" in body["text"]
    assert set(client.post("/extract", payload={"html": PAGE}).json()) == {
        "page", "url", "keywords"}
    with_url = client.post("/extract", payload={"html": PAGE, "url": "https://example.com/a"})
    assert with_url.json()["url"] == "https://example.com/a"  # given, not fetched


@pytest.mark.parametrize(("request_body", "status", "code"), [
    (b"{not json", 400, "bad_request"),
    (b"[1, 2]", 400, "bad_request"),
    (json.dumps({"id": "no page"}).encode(), 400, "bad_request"),
    (json.dumps({"html": PAGE, "top": 0}).encode(), 400, "bad_request"),
    (json.dumps({"html": PAGE, "include": ["everything"]}).encode(), 400, "bad_request"),
    (json.dumps({"url": "ftp://example.com/"}).encode(), 400, "bad_request"),
    (json.dumps({"html": "x" * 20_000}).encode(), 413, "too_large"),
    (json.dumps({"html": "  "}).encode(), 422, "bad_page"),
    (json.dumps({"url": "http://127.0.0.1:9/"}).encode(), 422, "fetch_failed"),
])
def test_errors_are_structured(client, request_body, status, code):
    answer = client.post("/extract", content=request_body,
                         headers={"Content-Type": "application/json"})
    assert answer.status_code == status, answer.text
    assert answer.json()["error"]["code"] == code
    assert answer.json()["error"]["message"]


def test_a_body_that_is_not_json_is_refused(client):
    answer = client.post("/extract", content=b"<p>hi</p>", headers={"Content-Type": "text/html"})
    assert (answer.status_code, answer.json()["error"]["code"]) == (415, "not_json")


def test_a_page_in_german_gets_german_words_and_its_language(client):
    german = ("<html lang='en'><body><article><p>Die Fähre nach der Insel Amrum fährt im "
              "Winter nur zweimal am Tag, und wer den letzten Termin verpasst, muss im Hafen "
              "von Dagebüll übernachten.</p><p>Die Gemeinde plant deshalb eine dritte "
              "Verbindung am späten Abend, wenn der Kreistag die Kosten für die Fähre "
              "übernimmt.</p></article></body></html>")
    answer = client.post("/extract", payload={"html": german, "include": ["text", "metadata"]})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["metadata"]["language"] == "de"
    edges = {w.lower() for k in body["keywords"] for w in (k["phrase"].split()[0],
                                                            k["phrase"].split()[-1])}
    assert not edges & {"die", "der", "den", "im", "am", "nur", "und", "von", "muss"}


def test_warm_languages_must_be_spacys():
    from typer.testing import CliRunner

    from commands.kwx import app

    result = CliRunner().invoke(app, ["serve", "--languages", "de,klingon"])
    assert result.exit_code == 2
    assert "klingon" in result.output


def test_two_workers_answer_and_end_with_the_server():
    server, port = start("--workers", "2")
    try:
        client = Client(port)
        assert client.get("/health").json()["workers"] == 2
        answer = client.post("/extract", payload={"html": PAGE})
        assert answer.status_code == 200
        assert answer.json()["keywords"]
    finally:
        stop(server)
