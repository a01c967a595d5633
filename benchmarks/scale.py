"""Cost and memory of the batch commands against input size, bare parsing as the yardstick.

Run (from the repository root; needs the shared corpora):

    python benchmarks/scale.py [--sizes 1000,3000,10000] [--commands apply,kwx,site,dedup]
                               [--work DIR] [--format jsonl|warc] [--distinct]
                               [--speedup-size N] [--no-speedup] [--no-spark]
                               [--spark-commands kwx,site,dedup]
                               [--wait-idle SECONDS] [--markdown benchmarks/out/scale.md]

The input: JSON lines of ``{url, html}`` (``--format warc``: a WARC.gz of HTTP response
records) of N pages, made by cycling the 6,672 dev-site pages in one fixed shuffled
order (so every size is the same mix of sites), each copy with its own URL
(``https://HOST/PATH?copy=K``; with ``--distinct``, copy K is on host ``cK.HOST`` and its
text is enciphered with a letter substitution of its own, so copies are neither exact
duplicates for ``mining dedup`` nor bigger sites for ``denoise site``, while markup,
lengths and word counts stay as they were). Each size is written once into ``--work``
(default: a temporary folder, removed at the end; give ``--work`` to keep the inputs for
the next run: about 57 KB a page, so 100,000 pages take 5.8 GB).

Every measurement is one command run as a subprocess of a fresh wrapper process
(``benchmarks/scale_probe.py``), whose ``getrusage(RUSAGE_CHILDREN)`` then holds the
command's CPU seconds summed over its process tree (worker processes included) and
the peak RSS of its largest process; the wrapper also samples the summed RSS of the
tree from ``/proc``. The commands (one worker, ``--jobs 1``, unless said otherwise):

- ``apply``: ``denoise apply FILE -o OUT --jobs 1`` (text of each page, one JSON line each)
- ``kwx``: ``kwx extract FILE -o OUT --jobs 1``
- ``classify`` (not by default): ``mining classify predict FILE --model M -o OUT --jobs 1``,
  the model trained first on 240 of the pages, labelled by collection (docs, news,
  shop, blog), with ``--classify-denoise`` (default ``page``)
- ``site``: ``denoise site FILE`` (fingerprint, per-site report only: no ``--out``)
- ``site-out`` (not by default): ``denoise site FILE -o OUT``, the same with one JSON
  line per block written (each block's text, nested blocks' again)
- ``dedup``: ``mining dedup FILE -o OUT``: its defaults, the main content of each page
  under the paper's rule (since 2026-11-28: the configuration that finds the copies)
- ``dedup-fulltext`` (not by default): ``mining dedup FILE --denoise none --rule lsh -o
  OUT``, the defaults before, whole-text LSH, which the 0.7x goal was set for
- bare parse: ``scale_probe.py parse FILE``, which reads the same file the same way and
  lxml-parses every page (``denoise.html.parse_html``), run before and after the
  commands of each size (the mean is the yardstick; both are shown). The yardstick is
  lxml as it comes.

Before every timed run the input file is read once, untimed, into the page cache, so no
run pays the disk for the others (the reads' system time is part of every run's CPU).

Also each command on ``--startup-pages`` (20) pages: its fixed cost (interpreter,
imports, models), subtracted for the "marginal" figures, which are what linearity is
judged on: CPU per page at the largest size over CPU per page at the smallest. Memory
growth: peak RSS at the largest size over the smallest. Then ``kwx extract --jobs 1``
vs ``--jobs 2`` wall time at ``--speedup-size`` (default: the largest size, at most
10,000), and, for each of ``--spark-commands`` (default kwx, site, dedup) whose
``--help`` offers ``--engine``, ``--engine spark`` against the embedded engine
(``--jobs 1`` and ``--jobs 2``) at the smallest size (``--spark-args``, default
``--spark-master local[2]``), with whether the two outputs are the same bytes. Every
run also records the load of other processes on the machine while it ran (from
``/proc/stat``): the noise.

The machine is shared: every run records how many cores other processes kept busy
while it ran (``/proc/stat``), figures from runs with more than 0.3 are marked ``*``,
and ``--wait-idle 300`` makes each run wait (up to 300 s) for an idle machine first.
The ``--jobs 2`` and Spark figures mean nothing unless both cores were free.

Time on the 2-core development machine, idle (at ``97f7106``): about 9 CPU-seconds per
1,000 pages for the default commands and the two bare parses (``kwx extract`` 36% of
it), so 10000 pages take about 2 minutes and 100000 about 17, plus a few minutes for
the ``--jobs 2`` and Spark runs and for writing the inputs the first time.
``denoise site`` holds waiting pages in memory up to a budget
(``denoise.site.batch.HOLD_BYTES``: about 33,500 of these pages for the per-site report
alone, which keeps a page's blocks and text shares but not its text, or 9,100 whole
pages with ``--out``: ``benchmarks/site_hold.py``) and spills the rest to a temporary
file (in the layout of ``denoise.site.spill``), and ``mining dedup`` keeps its
sketches, ids and keys in a temporary folder: 680 bytes a page besides the ids, by the
files' layout (``mining.sketchfiles``: a 512-byte sketch, the id's 8-byte end offset and
ten 16-byte join keys, the default 9 bands and the whole key).
On exact copies (the default beyond 6,672 pages) ``mining dedup`` finds every copy a
near-duplicate of the others, so its pair work grows with the square of the number of
copies: use ``--distinct`` to measure it on new pages.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import platform
import random
import re
import shlex
import shutil
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:  # run as `python benchmarks/scale.py` without installing
    sys.path.insert(0, str(ROOT))

from benchmarks_common import emit, load_pages  # noqa: E402
from scale_probe import busy_seconds  # noqa: E402

from denoise.page import Page  # noqa: E402

PROBE = HERE / "scale_probe.py"
SEED = 20240601
NOISY = 0.3  # cores kept busy by other processes during a run: its figures are marked
CLASSIFY_TRAIN_PAGES = 240


@dataclass(frozen=True)
class Command:
    key: str
    title: str
    module: str
    args: tuple[str, ...]  # {input}, {out}, {jobs}, {model} are filled in
    goal: float | None  # pages per CPU-second, as a share of bare parsing's
    streaming: bool  # one output line per page

    def argv(self, **values: str) -> list[str]:
        return [sys.executable, "-c", _program(self.module),
                *(a.format(**values) for a in self.args)]


def _program(module: str) -> str:
    """Python that runs ``module``'s program as its console script does (``main``). An
    older revision, which ab.py may run, had the program in ``<package>.cli`` (before
    2026-11-28, found by the ``commands`` folder missing beside the imported
    ``denoise``), and before that only ``app``."""
    old = f"{module.split('.')[-1]}.cli"
    return ("import importlib, pathlib, denoise\n"
            "tree = pathlib.Path(denoise.__file__).resolve().parents[1]\n"
            f"name = {module!r} if (tree / 'commands').is_dir() else {old!r}\n"
            "m = importlib.import_module(name)\n"
            "(getattr(m, 'main', None) or m.app)()")


COMMANDS = {c.key: c for c in (
    Command("apply", "denoise apply", "commands.denoise",
            ("apply", "{input}", "-o", "{out}", "--jobs", "{jobs}"), 0.5, True),
    Command("kwx", "kwx extract", "commands.kwx",
            ("extract", "{input}", "-o", "{out}", "--jobs", "{jobs}"), 0.33, True),
    Command("classify", "mining classify predict", "commands.mining",
            ("classify", "predict", "{input}", "--model", "{model}", "-o", "{out}",
             "--jobs", "{jobs}"), None, True),
    Command("site", "denoise site", "commands.denoise", ("site", "{input}", "--jobs", "{jobs}"),
            0.7, False),
    Command("site-out", "denoise site --out", "commands.denoise",
            ("site", "{input}", "-o", "{out}", "--jobs", "{jobs}"), None, False),
    Command("dedup", "mining dedup", "commands.mining",
            ("dedup", "{input}", "-o", "{out}", "--jobs", "{jobs}"), None, False),
    # the defaults before 2026-11-28 (LSH over the whole text), the 0.7x goal's command
    Command("dedup-fulltext", "mining dedup --denoise none --rule lsh", "commands.mining",
            ("dedup", "{input}", "--denoise", "none", "--rule", "lsh", "-o", "{out}",
             "--jobs", "{jobs}"), 0.7, False),
)}
BARE = "bare parse"


# --- input --------------------------------------------------------------------------

_TEXT = re.compile(r">([^<]+)<")
_ENTITY = re.compile(r"(&#?\w+;)")


def _host(site: str) -> str:
    """A host for a dev site folder: ``debian/python3.11-doc`` -> ``python3.11-doc.debian``."""
    parts = [re.sub(r"[^a-z0-9-]+", "-", part.lower()).strip("-") or "x"
             for part in reversed(site.split("/"))]
    return ".".join(parts)


def _path(page: Page) -> str:
    prefix = f"{page.site}/"
    return page.id[len(prefix):] if page.id.startswith(prefix) else page.id


def _cipher(copy: int) -> dict[int, int]:
    lower = string.ascii_lowercase
    rng = random.Random(SEED + copy)  # noqa: S311 - a fixed scramble, not a secret
    shuffled = "".join(rng.sample(lower, len(lower)))
    return str.maketrans(lower + lower.upper(), shuffled + shuffled.upper())


def _disguise(html: str, table: dict[int, int]) -> str:
    """``html`` with the letters of its text (not tags, not entities) substituted."""
    def text(match: re.Match[str]) -> str:
        parts = _ENTITY.split(match[1])
        return ">" + "".join(p if i % 2 else p.translate(table)
                             for i, p in enumerate(parts)) + "<"
    return _TEXT.sub(text, html)


def _items(pages: list[Page], order: list[int], count: int,
           distinct: bool) -> Iterator[tuple[str, str]]:
    """The first ``count`` (url, html) pairs of the cycled input, lazily."""
    ciphers: dict[int, dict[int, int]] = {}
    for i in range(count):
        copy, page = divmod(i, len(order))
        source = pages[order[page]]
        host, html = _host(source.site), source.html
        if copy and distinct:
            host = f"c{copy}.{host}"
            html = _disguise(html, ciphers.setdefault(copy, _cipher(copy)))
        query = f"?copy={copy}" if copy else ""
        yield f"https://{host}/{_path(source)}{query}", html


def make_input(work: Path, pages: list[Page], order: list[int], count: int, fmt: str,
               distinct: bool) -> Path:
    """The input file of ``count`` pages, written once into ``work``."""
    suffix = "warc.gz" if fmt == "warc" else "jsonl"
    path = work / f"pages-{count}{'-distinct' if distinct else ''}.{suffix}"
    if path.exists():
        return path
    started = time.perf_counter()
    temporary = path.with_name(path.name + ".tmp")
    if fmt == "warc":
        from warcio.statusandheaders import StatusAndHeaders
        from warcio.warcwriter import WARCWriter
        with temporary.open("wb") as stream:
            writer = WARCWriter(stream, gzip=True)
            for url, html in _items(pages, order, count, distinct):
                body = html.encode("utf-8", errors="replace")
                headers = StatusAndHeaders("200 OK", [
                    ("Content-Type", "text/html; charset=utf-8"),
                    ("Content-Length", str(len(body)))], protocol="HTTP/1.1")
                writer.write_record(writer.create_warc_record(
                    url, "response", payload=io.BytesIO(body), http_headers=headers))
    else:
        with temporary.open("w", encoding="utf-8", errors="replace") as stream:
            for url, html in _items(pages, order, count, distinct):
                stream.write(json.dumps({"url": url, "html": html}, ensure_ascii=False))
                stream.write("\n")
    temporary.replace(path)
    print(f"wrote {path} ({path.stat().st_size / 2**20:,.0f} MB) in "
          f"{time.perf_counter() - started:.0f} s", flush=True)
    return path


def _collection(site: str) -> str:
    top = site.split("/")[0]
    if top in ("debian", "github-apache-sites"):
        return "docs"
    return {"github-shop-swde": "shop", "github-blogs": "blog"}.get(top, "news")


def train_classifier(work: Path, pages: list[Page], order: list[int], denoise: str,
                     env: dict[str, str]) -> Path:
    """A Naive Bayes model from 240 of the pages, labelled by collection (cached)."""
    model = work / f"classify-{denoise}.npz"
    if model.exists():
        return model
    folder = work / "classify-train"
    folder.mkdir(parents=True, exist_ok=True)
    step = max(1, len(order) // CLASSIFY_TRAIN_PAGES)
    lines = []
    for n, index in enumerate(order[::step][:CLASSIFY_TRAIN_PAGES]):
        page = pages[index]
        (folder / f"{n}.html").write_text(page.html, encoding="utf-8", errors="replace")
        lines.append(f"{n}.html\t{_collection(page.site)}\n")
    (folder / "labels.tsv").write_text("".join(lines), encoding="utf-8")
    subprocess.run([sys.executable, "-c", _program("commands.mining"), "classify",
                    "train", str(folder / "labels.tsv"), "--out", str(model),
                    "--denoise", denoise], env=env, check=True, capture_output=True)
    return model


# --- measuring -------------------------------------------------------------------------


def _count_lines(path: Path) -> int:
    lines = 0
    with path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            lines += chunk.count(b"\n")
    return lines


WAIT_IDLE = 0.0  # seconds a run may wait for the machine to be idle (--wait-idle)


def wait_idle(limit: float) -> None:
    """Wait up to ``limit`` seconds until the machine is idle (< 0.2 cores busy for 2 s)."""
    deadline = time.monotonic() + limit
    waited = False
    while time.monotonic() < deadline:
        before = busy_seconds()
        time.sleep(2)
        if (busy_seconds() - before) / 2 < 0.2:
            return
        if not waited:
            print("  (waiting for other work to finish)", flush=True)
            waited = True


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def measure(work: Path, name: str, argv: list[str], env: dict[str, str],
            out: Path | None = None) -> dict:
    """Run ``argv`` under the probe; its resources, plus the output's line count."""
    if WAIT_IDLE > 0:
        wait_idle(WAIT_IDLE)
    runs = work / "runs"
    runs.mkdir(exist_ok=True)
    result, stdout, stderr = (runs / f"{name}.{ext}" for ext in ("json", "out", "err"))
    subprocess.run([sys.executable, str(PROBE), "measure", str(result), str(stdout),
                    str(stderr), "--", *argv], env=env, check=True)
    data = json.loads(result.read_text(encoding="utf-8"))
    data["cpu"] = data["user"] + data["system"]
    # cores kept busy by everything else (other users' work, processes not waited for)
    data["others"] = max(0.0, data["machine_busy"] - data["cpu"]) / max(data["wall"], 1e-9)
    errors = stderr.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    data["last_line"] = (errors or stdout.read_text(
        encoding="utf-8", errors="replace").strip().splitlines() or [""])[-1]
    if out is not None and out.exists():
        data["lines"] = _count_lines(out)
        data["digest"] = _digest(out)
        out.unlink()
    else:  # the command's output is what it printed
        data["digest"] = _digest(stdout)
    stdout.unlink(missing_ok=True)
    status = "" if data["code"] == 0 else f"  FAILED (exit {data['code']}): {data['last_line']}"
    print(f"  {name}: {data['wall']:.1f} s wall, {data['cpu']:.1f} CPU s, "
          f"{data['maxrss_mb']:.0f} MB peak (tree {data['tree_rss_mb']:.0f} MB), "
          f"other load {data['others']:.2f} cores{status}",
          flush=True)
    return data


def _into_page_cache(path: Path) -> None:
    """Read ``path`` once, untimed, so the timed run finds it in the page cache. A 100k-page
    input read from the disk cost up to ~18 CPU-seconds of system time where a cached
    one cost ~4-6 (``cat`` here): the runs that found it cold (the first bare parse of a
    size, mostly) paid for the others, by up to a tenth of a bare parse."""
    with path.open("rb") as stream:
        while stream.read(1 << 23):
            pass


def run_command(work: Path, command: Command, size: int, source: Path, env: dict[str, str],
                jobs: int | None = 1, model: Path | None = None, extra: list[str] | None = None,
                tag: str = "") -> dict:
    out = work / "out" / f"{command.key}-{size}{tag}.jsonl"
    out.parent.mkdir(exist_ok=True)
    argv = command.argv(input=str(source), out=str(out), jobs=str(jobs or 0),
                        model=str(model or ""))
    if jobs is None:  # an engine that takes no --jobs
        at = argv.index("--jobs")
        del argv[at:at + 2]
    if source.is_file():
        _into_page_cache(source)
    data = measure(work, f"{command.key}-{size}{tag}", argv + (extra or []), env, out)
    if command.streaming and data["code"] == 0 and data.get("lines") != size:
        print(f"  note: {command.title} wrote {data.get('lines')} lines for {size} pages")
    return data


def bare_parse(work: Path, size: int, source: Path, env: dict[str, str], tag: str) -> dict:
    _into_page_cache(source)
    return measure(work, f"bare-{size}{tag}",
                   [sys.executable, str(PROBE), "parse", str(source)], env)


def offers_engine(command: Command, env: dict[str, str]) -> bool:
    """Whether the command's ``--help`` offers ``--engine``."""
    words = [a for a in command.args if not a.startswith("{")]
    subcommand = words[:words.index("-o")] if "-o" in words else words[:1]
    help_text = subprocess.run(
        [sys.executable, "-c", _program(command.module), *subcommand,
         "--help"], env={**env, "COLUMNS": "200"}, capture_output=True, text=True,
        check=False).stdout
    return "--engine" in help_text


# --- report ---------------------------------------------------------------------------


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else float("nan")


def report(sizes: list[int], keys: list[str], results: dict, startup: dict,
           startup_pages: int, header: list[str]) -> list[str]:
    titles = {BARE: BARE, **{k: COMMANDS[k].title for k in keys}}
    rows = [BARE, *keys]

    def bare_cpu(size: int) -> float:
        return (results[BARE, size]["cpu"] + results[BARE + "2", size]["cpu"]) / 2

    def marginal(key: str, size: int) -> float:
        """CPU seconds per page net of the fixed cost (the run on the startup pages)."""
        if key == BARE:
            fixed = startup[BARE]["cpu"]
            return (bare_cpu(size) - fixed) / (size - startup_pages)
        return (results[key, size]["cpu"] - startup[key]["cpu"]) / (size - startup_pages)

    def cell(key: str, size: int, what: str) -> str:
        data = results.get((key, size))
        if data is None or data["code"] != 0:
            return "failed" if data else "-"
        runs = [data, results[BARE + "2", size]] if key == BARE else [data]
        noisy = "*" if what != "others" and any(r["others"] > NOISY for r in runs) else ""
        return figure(key, size, what, data) + noisy

    def figure(key: str, size: int, what: str, data: dict) -> str:
        cpu = bare_cpu(size) if key == BARE else data["cpu"]
        if what == "wall":
            return f"{data['wall']:.1f}"
        if what == "cpu":
            if key == BARE:
                return f"{cpu:.1f} ({data['cpu']:.1f} / {results[BARE + '2', size]['cpu']:.1f})"
            return f"{cpu:.1f}"
        if what == "rate":
            return f"{size / cpu:,.0f}"
        if what == "ratio":
            return f"{_ratio(bare_cpu(size), cpu):.2f}x"
        if what == "marginal":
            per_page = marginal(key, size)
            return (f"{1 / per_page:,.0f} ({_ratio(marginal(BARE, size), per_page):.2f}x)"
                    if per_page > 0 else "n/a")
        if what == "rss":
            return f"{data['maxrss_mb']:.0f}"
        if what == "others":
            if key == BARE:
                return f"{data['others']:.2f} / {results[BARE + '2', size]['others']:.2f}"
            return f"{data['others']:.2f}"
        return f"{data['tree_rss_mb']:.0f}"

    lines = [*header, "", f"A * marks a figure from a run during which other processes kept "
             f"more than {NOISY} cores busy (see the table of their load): treat it with care."]
    measures = [
        ("wall", "Wall seconds"),
        ("cpu", "CPU seconds (user + system, summed over the process tree; bare parse: "
                "mean of the runs before and after the commands)"),
        ("rate", "Pages per CPU-second"),
        ("ratio", "Speed relative to bare parsing (pages per CPU-second, command / bare "
                  "parse; goals: denoise site >= 0.7x, denoise apply >= 0.5x, kwx extract "
                  ">= 0.33x, mining dedup --denoise none --rule lsh >= 0.7x)"),
        ("marginal", f"Marginal pages per CPU-second, the fixed cost (a run on "
                     f"{startup_pages} pages) subtracted, and its ratio to bare parsing's"),
        ("rss", "Peak RSS, MB (largest single process: ru_maxrss of RUSAGE_CHILDREN)"),
        ("tree", "Peak RSS of the process tree, MB (summed, sampled every 0.2 s)"),
        ("others", "Load of other processes during the run (cores busy besides the "
                   "command's own process tree; the machine has "
                   f"{os.cpu_count()}): the noise"),
    ]
    for what, title in measures:
        lines += ["", f"### {title}", "",
                  "| command | " + " | ".join(f"{s:,} pages" for s in sizes) + " |",
                  "|---|" + "---:|" * len(sizes)]
        for key in rows:
            lines.append(f"| {titles[key]} | "
                         + " | ".join(cell(key, s, what) for s in sizes) + " |")
    lines += ["", "### Fixed cost (each command on "
              f"{startup_pages} pages)", "", "| command | wall s | CPU s | peak RSS MB |",
              "|---|---:|---:|---:|"]
    for key in rows:
        data = startup[key]
        lines.append(f"| {titles[key]} | {data['wall']:.1f} | {data['cpu']:.1f} | "
                     f"{data['maxrss_mb']:.0f} |")
    small, large = sizes[0], sizes[-1]
    lines += ["", f"### Summary ({small:,} -> {large:,} pages)", "",
              "| command | goal | x bare parse | marginal x bare parse | CPU per page, "
              f"{large:,} / {small:,} (marginal) | peak RSS, {large:,} / {small:,} |",
              "|---|---:|---:|---:|---:|---:|"]
    for key in rows:
        if any(results.get((key, s), {}).get("code", 1) != 0 for s in (small, large)):
            lines.append(f"| {titles[key]} | | failed | | | |")
            continue
        goal = COMMANDS[key].goal if key in COMMANDS else None
        ratio = _ratio(bare_cpu(large), bare_cpu(large) if key == BARE
                       else results[key, large]["cpu"])
        net = _ratio(marginal(BARE, large), marginal(key, large))
        verdict = "" if goal is None else (" (met)" if ratio >= goal else " (not met)")
        growth = _ratio(marginal(key, large), marginal(key, small))
        memory = _ratio(results[key, large]["maxrss_mb"], results[key, small]["maxrss_mb"])
        lines.append(f"| {titles[key]} | {f'>= {goal}x' if goal else ''} | "
                     f"{ratio:.2f}x{verdict} | {net:.2f}x | {growth:.2f} | {memory:.2f} |")
    return lines


def _commit() -> str:
    git = shutil.which("git")
    if git is None:
        return "unknown"
    try:
        head = subprocess.run([git, "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                              capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run([git, "status", "--porcelain", "--untracked-files=no"],
                               cwd=ROOT, text=True, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (with uncommitted changes)" if dirty.strip() else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,3000,10000",
                        help="page counts, comma-separated (30000 and 100000 work too)")
    parser.add_argument("--commands", default="apply,kwx,site,dedup",
                        help=f"of {','.join(COMMANDS)}")
    parser.add_argument("--work", type=Path, default=None,
                        help="folder for the inputs (kept) and outputs")
    parser.add_argument("--format", choices=("jsonl", "warc"), default="jsonl")
    parser.add_argument("--distinct", action="store_true",
                        help="copies on their own hosts with enciphered text")
    parser.add_argument("--startup-pages", type=int, default=20)
    parser.add_argument("--speedup-size", type=int, default=None)
    parser.add_argument("--no-speedup", action="store_true")
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--spark-args", default="--spark-master local[2]",
                        help="options for the commands' `--engine spark`")
    parser.add_argument("--spark-commands", default="kwx,site,dedup",
                        help="commands run on both engines at the smallest size")
    parser.add_argument("--classify-denoise", choices=("none", "site", "page", "main"),
                        default="page")
    parser.add_argument("--wait-idle", type=float, default=0.0, metavar="SECONDS",
                        help="before each run, wait up to this long for the machine to be "
                        "idle (it is shared)")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args()
    global WAIT_IDLE  # one setting for every run
    WAIT_IDLE = args.wait_idle
    sizes = sorted({int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()})
    keys = [k.strip() for k in args.commands.split(",") if k.strip()]
    unknown = [k for k in keys if k not in COMMANDS]
    if unknown or not sizes or sizes[0] <= args.startup_pages:
        parser.error(f"unknown command(s) {unknown}" if unknown
                     else f"sizes must be above --startup-pages ({args.startup_pages})")

    started = time.perf_counter()
    load_before = os.getloadavg()
    if load_before[0] > 0.5:
        print(f"warning: load average {load_before[0]:.2f}: other work is running, "
              "figures will be noisier", flush=True)
    temporary = args.work is None
    work = Path(tempfile.mkdtemp(prefix="scale-")) if temporary else args.work
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    try:
        pages = load_pages()
        order = list(range(len(pages)))
        random.Random(SEED).shuffle(order)  # noqa: S311 - a fixed order, not a secret
        print(f"{len(pages)} dev-site pages; inputs in {work}", flush=True)
        model = (train_classifier(work, pages, order, args.classify_denoise, env)
                 if "classify" in keys else None)

        def source(count: int) -> Path:
            return make_input(work, pages, order, count, args.format, args.distinct)

        startup: dict[str, dict] = {}
        results: dict[tuple[str, int], dict] = {}
        print(f"fixed cost ({args.startup_pages} pages):", flush=True)
        tiny = source(args.startup_pages)
        startup[BARE] = bare_parse(work, args.startup_pages, tiny, env, "")
        for key in keys:
            startup[key] = run_command(work, COMMANDS[key], args.startup_pages, tiny, env,
                                       model=model)
        for size in sizes:
            path = source(size)
            print(f"{size:,} pages:", flush=True)
            results[BARE, size] = bare_parse(work, size, path, env, "")
            for key in keys:
                results[key, size] = run_command(work, COMMANDS[key], size, path, env,
                                                 model=model)
            results[BARE + "2", size] = bare_parse(work, size, path, env, "-again")
        header = [
            f"## Scale: {', '.join(f'{s:,}' for s in sizes)} pages",
            "",
            f"Command: `python benchmarks/scale.py {shlex.join(sys.argv[1:])}`",
            "",
            f"Ran {datetime.now(UTC):%Y-%m-%d %H:%M} UTC at commit `{_commit()}` on "
            f"{os.cpu_count()} cores, Python {platform.python_version()}; input "
            f"{args.format}, {'distinct' if args.distinct else 'repeated'} copies of "
            f"{len(pages):,} dev-site pages; streaming commands with `--jobs 1`.",
        ]
        lines = report(sizes, keys, results, startup, args.startup_pages, header)

        if not args.no_speedup:
            size = args.speedup_size or min(sizes[-1], 10000)
            path = source(size)
            print(f"kwx extract --jobs 1 vs --jobs 2 at {size:,} pages:", flush=True)
            one = results.get(("kwx", size)) or run_command(
                work, COMMANDS["kwx"], size, path, env, jobs=1)
            two = run_command(work, COMMANDS["kwx"], size, path, env, jobs=2, tag="-jobs2")
            lines += ["", f"### kwx extract, --jobs 1 vs --jobs 2 ({size:,} pages)", "",
                      "| jobs | wall s | CPU s | peak RSS MB (largest / tree) | other load, "
                      "cores |", "|---:|---:|---:|---:|---:|"]
            for jobs, data in ((1, one), (2, two)):
                lines.append(f"| {jobs} | {data['wall']:.1f} | {data['cpu']:.1f} | "
                             f"{data['maxrss_mb']:.0f} / {data['tree_rss_mb']:.0f} | "
                             f"{data['others']:.2f} |")
            lines += ["", f"Speedup of `--jobs 2`: **{_ratio(one['wall'], two['wall']):.2f}x** "
                      f"wall time ({os.cpu_count()} cores; CPU overhead "
                      f"{_ratio(two['cpu'], one['cpu']):.2f}x)."]

        if not args.no_spark:
            size = sizes[0]
            path = source(size)
            spark_args = shlex.split(args.spark_args)
            lines += ["", f"### Embedded engine vs Spark ({shlex.join(spark_args)}, "
                      f"{size:,} pages)", "",
                      "| command | engine | wall s | CPU s (waited-for tree) | machine busy CPU s "
                      "| pages per wall second | peak tree RSS MB |",
                      "|---|---|---:|---:|---:|---:|---:|"]
            for key in args.spark_commands.split(","):
                command = COMMANDS[key]
                if not offers_engine(command, env):
                    print(f"{command.title} has no --engine option: left out")
                    lines.append(f"| {command.title} | no `--engine` option | | | | | |")
                    continue
                print(f"{command.title}, embedded vs --engine spark at {size:,} pages:",
                      flush=True)
                one = results.get((key, size)) or run_command(work, command, size, path, env,
                                                              jobs=1, model=model)
                two = run_command(work, command, size, path, env, jobs=2, model=model,
                                  tag="-embedded2")
                spark = run_command(work, command, size, path, env, jobs=None, model=model,
                                    tag="-spark", extra=["--engine", "spark", *spark_args])
                for name, data in (("embedded, --jobs 1", one), ("embedded, --jobs 2", two),
                                   ("spark", spark)):
                    if data["code"] != 0:
                        lines.append(f"| {command.title} | {name} | failed: "
                                     f"{data['last_line']} | | | | |")
                        continue
                    lines.append(f"| {command.title} | {name} | {data['wall']:.1f} | "
                                 f"{data['cpu']:.1f} | {data['machine_busy']:.1f} | "
                                 f"{size / data['wall']:,.0f} | {data['tree_rss_mb']:.0f} |")
                if one["code"] == 0 and spark["code"] == 0:
                    same = "yes" if one["digest"] == spark["digest"] else "**no**"
                    lines.append(f"| {command.title} | Spark's output byte for byte the "
                                 f"embedded one's: {same} | | | | | |")
            lines += ["", "Spark's JVM and Python workers are not waited for by the command, "
                      "so their CPU shows only in the machine's busy seconds (which include "
                      "other users' work)."]
        load_after = os.getloadavg()
        lines += ["", f"Load average (1 min) before / after: {load_before[0]:.2f} / "
                  f"{load_after[0]:.2f}; {time.perf_counter() - started:.0f} s in all."]
        emit("\n".join(lines), args.markdown)
    finally:
        if temporary:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
