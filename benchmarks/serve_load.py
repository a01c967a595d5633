"""``kwx serve`` under load on localhost, against the same work done in-process.

Run (from the repository root; needs the shared corpora):

    python benchmarks/serve_load.py [--pages 200] [--workers 2] [--clients 1,4,16]
                                    [--requests 300] [--markdown benchmarks/out/serve.md]

The pages: the first ``--pages`` dev-site pages of at most 500 KB, in a fixed shuffled
order. First the in-process figure: one :class:`kwx.extractor.KeywordExtractor`, each
page's ``extract`` timed on its own (the latency a caller linking the library gets).
Then ``kwx serve --workers W --max-bytes 2 MB`` is started as a subprocess and, for each
client count, that many threads (one keep-alive connection each, ``http.client``) send
``--requests`` requests in all: the pages as ``{"html": ...}``, with one request in 20
malformed (not JSON) and one in 20 oversized (a 3 MB body), mixed in at fixed places.
Measured per well-formed request: latency (from sending to the whole answer), and
whether its answer is the one the in-process extractor gives (200 with the same
keywords; 422 for a page the extractor refuses); malformed ones must get 400, oversized
ones 413, and a connection the server closes after a 413 is opened again. The bounds:
``--requests`` a client count, and 60 s a request.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmarks_common import emit, load_pages

from denoise.errors import PageError
from denoise.page import Page
from kwx.extractor import KeywordExtractor

MAX_PAGE_BYTES = 500_000
SERVER_CAP = 2_000_000


def pick_pages(count: int) -> list[Page]:
    pages = [p for p in load_pages() if len(p.html.encode()) <= MAX_PAGE_BYTES]
    random.Random(0).shuffle(pages)  # noqa: S311 - a fixed order, not a secret
    return pages[:count]


def in_process(pages: list[Page]) -> tuple[list[float], dict[str, object]]:
    """Each page's extract latency, and what it answered (keywords, or "refused")."""
    extractor = KeywordExtractor.load()
    extractor.extract(pages[0])  # warm, as a server's worker is
    latencies, answers = [], {}
    for page in pages:
        start = time.perf_counter()
        try:
            keywords = extractor.extract(page)
            answers[page.id] = [k.phrase for k in keywords]
        except PageError:
            answers[page.id] = "refused"
        latencies.append(time.perf_counter() - start)
    return latencies, answers


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(port: int, workers: int) -> subprocess.Popen:
    server = subprocess.Popen(
        [sys.executable, "-c", "from commands.kwx import main; main()", "serve", "--port",
         str(port), "--workers", str(workers), "--max-bytes", str(SERVER_CAP)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/health")
            if connection.getresponse().status == 200:
                return server
        except OSError:
            time.sleep(0.5)
    server.kill()
    raise RuntimeError("kwx serve did not start: " + server.stderr.read().decode()[-2000:])


def requests_for(pages: list[Page], total: int) -> list[tuple[str, bytes, str | None]]:
    """(kind, body, page id) in a fixed order: one in 20 malformed, one in 20 oversized."""
    out = []
    for number in range(total):
        if number % 20 == 7:
            out.append(("malformed", b'{"html": "<p>unterminated', None))
        elif number % 20 == 13:
            out.append(("oversized", json.dumps({"html": "x" * 3_000_000}).encode(), None))
        else:
            page = pages[number % len(pages)]
            out.append(("page", json.dumps({"html": page.html, "id": page.id}).encode(),
                        page.id))
    return out


def load(port: int, clients: int, work: list[tuple[str, bytes, str | None]],
         answers: dict[str, object]) -> dict[str, object]:
    """Send ``work`` from ``clients`` threads; latencies and failures."""
    lock = threading.Lock()
    queue = list(reversed(work))
    latencies: list[float] = []
    failures: list[str] = []
    wrong_codes: list[str] = []

    def client() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while True:
            with lock:
                if not queue:
                    break
                kind, body, page_id = queue.pop()
            start = time.perf_counter()
            try:
                connection.request("POST", "/extract", body=body,
                                   headers={"Content-Type": "application/json"})
                response = connection.getresponse()
                data = response.read()
                status = response.status
            except (OSError, http.client.HTTPException) as error:
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                if kind == "page":
                    with lock:
                        failures.append(f"{page_id}: {error}")
                continue
            elapsed = time.perf_counter() - start
            if response.getheader("connection", "").lower() == "close":
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            with lock:
                if kind == "malformed" and status != 400:
                    wrong_codes.append(f"malformed: {status}")
                elif kind == "oversized" and status != 413:
                    wrong_codes.append(f"oversized: {status}")
                elif kind == "page":
                    latencies.append(elapsed)
                    expected = answers[page_id]
                    got = ("refused" if status == 422 else
                           [k["phrase"] for k in json.loads(data)["keywords"]]
                           if status == 200 else f"HTTP {status}")
                    if got != expected:
                        failures.append(f"{page_id}: {got} != {expected}")
        connection.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    return {"clients": clients, "latencies": latencies, "failures": failures,
            "wrong_codes": wrong_codes, "wall": wall,
            "pages_per_s": len(latencies) / wall, "other": len(work) - len(latencies)}


def quantile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q * 100) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", default="1,4,16")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    pages = pick_pages(args.pages)
    base, answers = in_process(pages)
    port = free_port()
    server = start_server(port, args.workers)
    try:
        work = requests_for(pages, args.requests)
        runs = [load(port, int(c), work, answers) for c in args.clients.split(",")]
    finally:
        server.terminate()
        server.wait(timeout=30)
    p50, p99 = statistics.median(base), quantile(base, 0.99)
    lines = [f"`kwx serve --workers {args.workers}` on localhost: {args.requests} requests a "
             f"client count ({len(pages)} dev pages, 1 in 20 malformed, 1 in 20 oversized); "
             f"in-process extract: p50 {1000 * p50:.1f} ms, p99 {1000 * p99:.1f} ms, "
             f"{len(base) / sum(base):.1f} pages/s on one core", "",
             "| clients | p50 ms | p50 / in-process | p99 ms | p99 / in-process p50 | "
             "pages/s | vs 1 client | failed well-formed | wrong codes |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    one = runs[0]["pages_per_s"]
    for run in runs:
        lat = run["latencies"]
        lines.append(
            f"| {run['clients']} | {1000 * statistics.median(lat):.1f} | "
            f"{statistics.median(lat) / p50:.2f}x | {1000 * quantile(lat, 0.99):.1f} | "
            f"{quantile(lat, 0.99) / p50:.1f}x | {run['pages_per_s']:.1f} | "
            f"{run['pages_per_s'] / one:.2f}x | {len(run['failures'])} | "
            f"{len(run['wrong_codes'])} |")
    for run in runs:
        for failure in (run["failures"] + run["wrong_codes"])[:5]:
            lines.append(f"- {run['clients']} clients: {failure[:200]}")
    emit("\n".join(lines), args.markdown)


if __name__ == "__main__":
    main()
