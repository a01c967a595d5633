"""Robustness of every page-taking command over every page of every shared corpus.

Run (from the repository root; needs the shared corpora):

    python benchmarks/robustness.py [--limit N] [--corpora content-dev,webkb]
                                    [--commands apply-text,kwx,...] [--jobs 1]
                                    [--timeout SECONDS] [--work DIR] [--json]
                                    [--markdown benchmarks/out/robustness.md]

Every command below runs as a subprocess (``python -c``, as ``benchmarks/scale.py`` runs
them) on each corpus of the shared folder (every ``*.tar.xz``, read straight from the
archive, as a user would give it):

- ``apply-text``, ``apply-main``, ``apply-html``, ``apply-blocks``: ``denoise apply INPUT
  --format F -o OUT``
- ``kwx``: ``kwx extract INPUT --json -o OUT``
- ``dedup``: ``mining dedup INPUT -o OUT``
- ``classify``: ``mining classify predict INPUT --model M -o OUT``, the model trained
  first (``--denoise page``) on 40 pages each of the dev docs and news sites, labelled by
  collection: robustness needs a model, not a good one
- ``site``: ``denoise site INPUT -o OUT`` (one JSON line per block)

Per command and corpus it counts: pages read, written and skipped by reason (from the
command's closing summary line on stderr); crashes (a non-zero exit, a traceback on
stderr, or the ``--timeout`` reached; on a corpus without HTML pages exit 1 is the
documented answer, not a crash); internal errors (pages skipped as "internal error" or
"worker died": bugs a batch hides as skips); bad lines (output lines that are not JSON
objects naming a page); and empty outputs: pages with at least ``--min-text`` (200)
characters of visible text that a command wrote empty: no text (``apply`` text and
main), no visible text (html), no block (blocks), no keywords (``kwx``), every block
template (``site``), or refused as "no words to shingle" (``dedup``). Visible text is
measured apart from the toolkit's parser, by Python's own ``html.parser`` (no depth
limit): the text outside ``script``, ``style``, ``noscript``, ``template`` and drop-downs
(``select``, ``datalist``), white space collapsed. Peak RSS is the command's largest
process, worker processes included (``ru_maxrss`` as GNU ``time -f %M`` reports it).

``webkb.tar.xz`` holds raw HTTP responses (``.http``), which the reader does not take: it
is given as JSON lines of ``{id, url, html}`` made by :mod:`corpora.webkb` (its own
header parsing and decoding). ``keyphrases-dev`` and ``querylogs`` hold no pages: the
commands run on them anyway (a clean refusal is the expected result). ``--limit N``
takes N pages a corpus, evenly spaced over the archive, into a small tar of the same
member names.

Time on the 2-core development machine: the full run reads about 28,000 pages nine
times over (eight commands and the visible-text pass); see the closing line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from itertools import islice
from pathlib import Path, PurePosixPath

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:  # run as `python benchmarks/robustness.py` without installing
    sys.path.insert(0, str(ROOT))

from benchmarks_common import emit  # noqa: E402

from corpora.locate import corpus_path  # noqa: E402
from denoise.page import Page  # noqa: E402
from denoise.reader import Skipped, read_pages  # noqa: E402

MIN_TEXT = 200
CLASSIFY_PAGES = 40  # a collection
_HTML_SUFFIXES = (".html", ".htm", ".html.gz", ".htm.gz")
_SUMMARY = re.compile(r"(\d+) pages read(?:, (\d+) done by an earlier run)?, (\d+) (\w+), "
                      r"(\d+) skipped(?: \((.*?)\))?(?:[;,]|$)", re.M)
_REASON = re.compile(r"(\d+) (.+)")
_BUG_REASONS = ("internal error", "worker died")


@dataclass(frozen=True)
class Command:
    key: str
    module: str
    args: tuple[str, ...]  # {input}, {out}, {jobs}, {model} are filled in
    output: str  # what a page's output is: text, html, blocks, keywords, label, dedup, site

    def argv(self, **values: str) -> list[str]:
        run = f"import {self.module} as m; (getattr(m, 'main', None) or m.app)()"
        return [sys.executable, "-c", run, *(a.format(**values) for a in self.args)]

    @property
    def title(self) -> str:
        words = [a for a in self.args[:self.args.index("{input}")] if not a.startswith("-")]
        fmt = self.args[self.args.index("--format") + 1] if "--format" in self.args else ""
        return " ".join([self.module.split(".")[0], *words, *([f"--format {fmt}"] if fmt else [])])


COMMANDS = {c.key: c for c in (
    *(Command(f"apply-{f}", "commands.denoise", ("apply", "{input}", "--format", f, "-o", "{out}",
                                            "--jobs", "{jobs}"), f)
      for f in ("text", "main", "html", "blocks")),
    Command("kwx", "commands.kwx", ("extract", "{input}", "--json", "-o", "{out}", "--jobs",
                               "{jobs}"), "keywords"),
    Command("dedup", "commands.mining", ("dedup", "{input}", "-o", "{out}", "--jobs", "{jobs}"),
            "dedup"),
    Command("classify", "commands.mining", ("classify", "predict", "{input}", "--model", "{model}",
                                       "-o", "{out}", "--jobs", "{jobs}"), "label"),
    Command("site", "commands.denoise", ("site", "{input}", "-o", "{out}", "--jobs", "{jobs}"),
            "site"),
)}


# --- visible text, apart from the toolkit ------------------------------------------------


class _Visible(HTMLParser):
    """The characters of text outside script, style, noscript, template and drop-downs."""

    HIDDEN = frozenset({"script", "style", "noscript", "template", "select", "datalist"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hidden = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self.HIDDEN:
            self.hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN and self.hidden:
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def visible_chars(html: str) -> int:
    """Characters of visible text in ``html``, runs of white space counted as one."""
    parser = _Visible()
    try:
        parser.feed(html)
        parser.close()
    except (AssertionError, ValueError):  # html.parser gives up on some broken markup
        pass
    return len(" ".join(" ".join(parser.parts).split()))


# --- inputs ---------------------------------------------------------------------------------


@dataclass
class Corpus:
    name: str
    input: Path
    note: str = ""
    visible: dict[str, int] = field(default_factory=dict)  # page id -> visible characters
    reader_skips: Counter[str] = field(default_factory=Counter)

    @property
    def pages(self) -> int:
        return len(self.visible)


def _wanted(name: str) -> bool:
    """The reader's rule for archive members: an HTML file outside ``_`` and ``.`` folders."""
    *folders, file_name = PurePosixPath(name).parts or ("",)
    return (file_name.lower().endswith(_HTML_SUFFIXES) and not file_name.startswith(".")
            and not any(f.startswith(("_", ".")) for f in folders))


def sample_archive(archive: Path, limit: int, work: Path) -> tuple[Path, int]:
    """A tar of ``limit`` HTML members of ``archive``, evenly spaced, names kept."""
    with tarfile.open(archive, "r|*") as tar:
        total = sum(1 for member in tar if member.isfile() and _wanted(member.name))
    step = max(1, total // limit) if total else 1
    sample = work / f"{archive.name.removesuffix('.tar.xz')}-{limit}.tar"
    taken = seen = 0
    with tarfile.open(archive, "r|*") as tar, tarfile.open(sample, "w") as out:
        for member in tar:
            if not member.isfile() or not _wanted(member.name):
                continue
            seen += 1
            if (seen - 1) % step or taken >= limit:
                continue
            out.addfile(member, tar.extractfile(member))
            taken += 1
    return sample, total


def webkb_jsonl(archive: Path, limit: int | None, work: Path) -> tuple[Path, int]:
    """WebKB's pages as JSON lines of ``{id, url, html}`` (:mod:`corpora.webkb` decodes)."""
    from corpora.webkb import read_webkb

    skipped: list[Skipped] = []
    pages = read_webkb(archive, skipped=skipped)
    total = len(pages) + len(skipped)
    if limit:
        pages = pages[::max(1, len(pages) // limit)][:limit]
    path = work / f"webkb-{limit or 'all'}.jsonl"
    with path.open("w", encoding="utf-8") as stream:
        for item in pages:
            stream.write(json.dumps({"id": item.page.id, "url": item.page.url,
                                     "html": item.page.html}, ensure_ascii=False) + "\n")
    return path, total


def prepare(archive: Path, limit: int | None, work: Path) -> Corpus:
    """The input the commands get for ``archive``, and each page's visible text."""
    name = archive.name.removesuffix(".tar.xz")
    corpus = Corpus(name, archive)
    if archive.name == "webkb.tar.xz":
        corpus.input, total = webkb_jsonl(archive, limit, work)
        corpus.note = f"as JSON lines by corpora.webkb ({total:,} .http files)"
    elif limit:
        corpus.input, total = sample_archive(archive, limit, work)
        corpus.note = f"{min(limit, total):,} of {total:,} HTML members"
    for item in read_pages([corpus.input]):
        if isinstance(item, Page):
            corpus.visible[item.id] = visible_chars(item.html)
        else:
            corpus.reader_skips[item.reason.split(":")[0].split("(")[0].strip()] += 1
    return corpus


def train_classifier(archives: dict[str, Path], work: Path, env: dict[str, str]) -> Path | None:
    """A Naive Bayes model of two labels (docs, news) from the dev sites, or None."""
    sources = {"docs": archives.get("sites-dev-docs"), "news": archives.get("sites-dev-news")}
    if None in sources.values():
        return None
    folder = work / "classify-train"
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for label, archive in sources.items():
        pages = (p for p in read_pages([archive]) if isinstance(p, Page))
        for number, page in enumerate(islice(pages, 0, CLASSIFY_PAGES * 10, 10)):
            file_name = f"{label}-{number}.html"
            (folder / file_name).write_text(page.html, encoding="utf-8", errors="replace")
            lines.append(f"{file_name}\t{label}\n")
    (folder / "labels.tsv").write_text("".join(lines), encoding="utf-8")
    model = work / "classify.npz"
    subprocess.run([sys.executable, "-c", "from commands.mining import app; app()", "classify",
                    "train", str(folder / "labels.tsv"), "--out", str(model), "--denoise",
                    "page"], env=env, check=True, capture_output=True)
    return model


# --- running one command ----------------------------------------------------------------------


def run(argv: list[str], logs: Path, env: dict[str, str], timeout: float | None) -> dict:
    """Run ``argv`` (its output to ``logs``.out / .err); its exit code, wall seconds, peak
    RSS in MB and whether it timed out.

    The peak is measured by a small process between this one and the command (GNU
    ``time`` when there is one, else a Python wrapper): a child's ``ru_maxrss`` starts
    from its parent's size at the fork, and this process holds a corpus's page ids."""
    rss_file = logs.with_suffix(".rss")
    rss_file.unlink(missing_ok=True)
    if Path("/usr/bin/time").exists():
        wrapped = ["/usr/bin/time", "-f", "%M", "-o", str(rss_file), *argv]
    else:
        wrapped = [sys.executable, "-c", _WRAPPER, str(rss_file), *argv]
    started = time.perf_counter()
    with logs.with_suffix(".out").open("wb") as out, logs.with_suffix(".err").open("wb") as err:
        process = subprocess.Popen(wrapped, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                   env=env, start_new_session=True)
    timed_out, killed_at = False, None
    while True:
        pid, status = os.waitpid(process.pid, os.WNOHANG)
        if pid:
            break
        elapsed = time.perf_counter() - started
        if timeout and elapsed > timeout and killed_at is None:
            timed_out, killed_at = True, elapsed
            os.killpg(process.pid, signal.SIGTERM)
        elif killed_at is not None and elapsed > killed_at + 10:
            os.killpg(process.pid, signal.SIGKILL)
        time.sleep(0.1)
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    try:
        peak_kb = float(rss_file.read_text().split()[-1])
    except (OSError, ValueError, IndexError):  # killed before it could say
        peak_kb = float("nan")
    rss_file.unlink(missing_ok=True)
    return {"code": process.returncode, "wall": time.perf_counter() - started,
            "maxrss_mb": peak_kb / 1024, "timed_out": timed_out}


#: Runs a command, then writes its peak RSS (KB) to a file: for a machine without GNU time.
_WRAPPER = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[2:])\n"
    "with open(sys.argv[1], 'w') as f: "
    "f.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
    "sys.exit(code if code >= 0 else 128 - code)\n"
)


def _summary(stderr: str) -> dict | None:
    """The closing summary line's counts: read, written, skipped by reason."""
    found = list(_SUMMARY.finditer(stderr))
    if not found:
        return None
    match = found[-1]
    reasons: Counter[str] = Counter()
    for part in re.split(r", (?=\d+ )", match[6] or ""):
        if (reason := _REASON.fullmatch(part.strip())) is not None:
            reasons[reason[2]] += int(reason[1])
    return {"read": int(match[1]), "written": int(match[3]), "skipped": reasons}


def _skipped_ids(stderr: str, known: dict[str, int]) -> dict[str, str]:
    """Page id -> reason, for the pages a command named as skipped on stderr
    (``skipped ID: REASON``; an id may itself hold ": ")."""
    found = {}
    for line in stderr.splitlines():
        if not line.startswith("skipped "):
            continue
        parts = line[len("skipped "):].split(": ")
        for cut in range(1, len(parts)):
            page = ": ".join(parts[:cut])
            if page in known:
                found[page] = ": ".join(parts[cut:])
                break
    return found


def _records(out: Path) -> tuple[list[dict], int]:
    """The JSON objects of ``out`` (one a line) and how many lines were not one."""
    records, bad = [], 0
    if not out.exists():
        return records, bad
    with out.open(encoding="utf-8", errors="replace", newline="") as stream:
        for line in stream:
            try:
                record = json.loads(line)
            except ValueError:
                bad += 1
                continue
            if isinstance(record, dict):
                records.append(record)
            else:
                bad += 1
    return records, bad


def _empty_pages(command: Command, corpus: Corpus, records: list[dict],
                 skipped: dict[str, str]) -> tuple[int, int]:
    """Pages with enough visible text written empty, and lines naming no page."""
    rich = {page for page, chars in corpus.visible.items() if chars >= MIN_TEXT}
    if command.output == "dedup":
        return sum(1 for page, reason in skipped.items()
                   if page in rich and reason.startswith("no words")), 0
    if command.output == "label":
        return 0, sum(1 for r in records if not isinstance(r.get("label"), str))
    unnamed = sum(1 for r in records if r.get("page") not in corpus.visible)
    if command.output in ("blocks", "site"):
        kept: dict[str, bool] = {}
        for record in records:
            page = record.get("page")
            content = (record.get("label") != "template" if command.output == "site"
                       else not record.get("template")) and bool(str(record.get("text")).strip())
            kept[page] = kept.get(page, False) or content
        written = rich - set(skipped)
        return sum(1 for page in written if not kept.get(page, False)), unnamed
    empty = 0
    for record in records:
        if record.get("page") not in rich:
            continue
        if command.output == "keywords":
            empty += not record.get("keywords")
        elif command.output == "html":
            empty += visible_chars(str(record.get("html") or "")) == 0
        else:
            empty += not str(record.get("text") or "").strip()
    return empty, unnamed


def measure(command: Command, corpus: Corpus, work: Path, env: dict[str, str], jobs: int,
            model: Path | None, timeout: float | None) -> dict:
    """One command on one corpus: its counts (see the module docstring)."""
    out = work / "out" / f"{command.key}-{corpus.name}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    logs = work / "logs" / f"{command.key}-{corpus.name}"
    logs.parent.mkdir(exist_ok=True)
    stdout, stderr_path = logs.with_suffix(".out"), logs.with_suffix(".err")
    argv = command.argv(input=str(corpus.input), out=str(out), jobs=str(jobs),
                        model=str(model or ""))
    result = run(argv, logs, env, timeout)
    stderr = stderr_path.read_text(encoding="utf-8", errors="replace")
    summary = _summary(stderr)
    skipped = _skipped_ids(stderr, corpus.visible)
    records, bad = _records(out)
    empty, unnamed = _empty_pages(command, corpus, records, skipped)
    traceback = "Traceback (most recent call last)" in stderr
    expected_codes = (0,) if corpus.pages else (0, 1)
    crash = ("timeout" if result["timed_out"] else "traceback" if traceback
             else f"exit {result['code']}" if result["code"] not in expected_codes else "")
    reasons = summary["skipped"] if summary else Counter()
    internal = sum(n for reason, n in reasons.items() if reason.startswith(_BUG_REASONS))
    lines = len(records) + bad
    row = {
        "command": command.title, "key": command.key, "corpus": corpus.name,
        "pages": corpus.pages, "read": summary["read"] if summary else None,
        "written": summary["written"] if summary else None, "skipped": dict(reasons),
        "crash": crash, "exit": result["code"], "internal_errors": internal,
        "empty": empty, "bad_lines": bad + unnamed, "lines": lines,
        "peak_rss_mb": round(result["maxrss_mb"], 1), "wall_s": round(result["wall"], 1),
        "last_stderr": (stderr.strip().splitlines() or [""])[-1][:300],
    }
    streaming = command.output in ("text", "main", "html", "keywords", "label")
    if streaming and summary and lines != summary["written"]:
        row["note"] = f"{lines} lines for {summary['written']} pages written"
    out.unlink(missing_ok=True)
    stdout.unlink(missing_ok=True)
    if not crash and not internal:
        stderr_path.unlink(missing_ok=True)  # kept only where something went wrong
    return row


# --- report ---------------------------------------------------------------------------------


def _reasons(skipped: dict[str, int]) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in
                     sorted(skipped.items(), key=lambda kv: -kv[1])) or "-"


def table(rows: list[dict], corpora: list[Corpus], header: list[str]) -> str:
    lines = [*header, "", "| command | corpus | pages | read | written | skipped (by reason) "
             "| crash | internal errors | empty | bad lines | peak RSS MB | wall s |",
             "|---|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        def number(key: str, row: dict = row) -> str:
            return "?" if row[key] is None else f"{row[key]:,}"
        crash = row["crash"] or "0"
        if row["crash"]:
            crash += f": {row['last_stderr'][:80]}"
        lines.append(f"| {row['command']} | {row['corpus']} | {row['pages']:,} | "
                     f"{number('read')} | {number('written')} | {_reasons(row['skipped'])} | "
                     f"{crash} | {row['internal_errors']} | {row['empty']} | "
                     f"{row['bad_lines']} | {row['peak_rss_mb']:.0f} | {row['wall_s']:.1f} |")
    notes = [f"- {row['command']} on {row['corpus']}: {row['note']}" for row in rows
             if row.get("note")]
    lines += ["", "Inputs (pages: what the reader yields; skipped by the reader: counted "
              "in every command's skips):", ""]
    for corpus in corpora:
        rich = sum(1 for chars in corpus.visible.values() if chars >= MIN_TEXT)
        lines.append(f"- {corpus.name}: {corpus.pages:,} pages, {rich:,} with >= {MIN_TEXT} "
                     f"visible characters; reader skips: {_reasons(dict(corpus.reader_skips))}"
                     + (f"; {corpus.note}" if corpus.note else ""))
    if notes:
        lines += ["", "Notes:", "", *notes]
    return "\n".join(lines)


def main() -> None:
    global MIN_TEXT  # one setting for every count
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None,
                        help="pages per corpus, evenly spaced (default: every page)")
    parser.add_argument("--corpora", default=None,
                        help="corpus names, comma-separated (default: every *.tar.xz)")
    parser.add_argument("--commands", default=",".join(COMMANDS),
                        help=f"of {','.join(COMMANDS)}")
    parser.add_argument("--jobs", type=int, default=1, help="--jobs of every command")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="end a command that runs longer (counted as a crash)")
    parser.add_argument("--min-text", type=int, default=MIN_TEXT,
                        help="visible characters from which an empty output counts")
    parser.add_argument("--work", type=Path, default=None,
                        help="folder for inputs, outputs and the logs of failed runs "
                        "(default: a temporary folder, removed)")
    parser.add_argument("--json", action="store_true", help="one JSON line per row instead")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args()
    MIN_TEXT = args.min_text
    keys = [k.strip() for k in args.commands.split(",") if k.strip()]
    unknown = [k for k in keys if k not in COMMANDS]
    if unknown or (args.limit is not None and args.limit < 1) or args.jobs < 1:
        parser.error(f"unknown command(s) {unknown}" if unknown
                     else "--limit and --jobs must be positive")
    root = corpus_path("README.md").parent
    archives = {p.name.removesuffix(".tar.xz"): p for p in sorted(root.glob("*.tar.xz"))}
    if args.corpora:
        wanted = [c.strip().removesuffix(".tar.xz") for c in args.corpora.split(",")]
        missing = [c for c in wanted if c not in archives]
        if missing:
            parser.error(f"no such corpus in {root}: {', '.join(missing)}")
        chosen = {c: archives[c] for c in wanted}
    else:
        chosen = archives
    started = time.perf_counter()
    temporary = args.work is None
    work = Path(tempfile.mkdtemp(prefix="robustness-")) if temporary else args.work
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    rows: list[dict] = []
    corpora: list[Corpus] = []
    try:
        model = train_classifier(archives, work, env) if "classify" in keys else None
        if "classify" in keys and model is None:
            print("classify left out: its training pages come from sites-dev-docs and "
                  "sites-dev-news", file=sys.stderr)
            keys.remove("classify")
        for archive in chosen.values():
            corpus = prepare(archive, args.limit, work)
            corpora.append(corpus)
            print(f"{corpus.name}: {corpus.pages:,} pages", file=sys.stderr, flush=True)
            for key in keys:
                row = measure(COMMANDS[key], corpus, work, env, args.jobs, model, args.timeout)
                rows.append(row)
                print(f"  {row['command']}: read {row['read']}, written {row['written']}, "
                      f"skipped {_reasons(row['skipped'])}, crash {row['crash'] or 0}, "
                      f"internal {row['internal_errors']}, empty {row['empty']}, "
                      f"{row['peak_rss_mb']:.0f} MB, {row['wall_s']:.1f} s",
                      file=sys.stderr, flush=True)
        if args.json:
            for row in rows:
                print(json.dumps(row, ensure_ascii=False))
        else:
            header = [f"## Robustness: {len(keys)} commands x {len(corpora)} corpora",
                      "", f"Command: `python benchmarks/robustness.py "
                      f"{shlex.join(sys.argv[1:])}` ({time.perf_counter() - started:.0f} s; "
                      f"--jobs {args.jobs}; empty = a page with >= {MIN_TEXT} visible "
                      "characters written empty)"]
            emit(table(rows, corpora, header), args.markdown)
    finally:
        if temporary:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work folder kept: {work}", file=sys.stderr)


if __name__ == "__main__":
    main()
