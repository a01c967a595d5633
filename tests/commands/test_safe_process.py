"""Safe to embed, safe to run unattended: output files that are not regular files, a
library caller's process left as it was, workers that end with their parent, SIGTERM
taken as Ctrl-C, arguments checked, ``--version`` and plain flags."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from repo import SHOP as EXAMPLES
from typer.testing import CliRunner

from denoise.output import atomic_text, output_target
from engine.batch import ResumableOutput, ResumeError

PAGE = EXAMPLES / "oak-shelf.html"


# --- output files ----------------------------------------------------------------------

def _read_fifo(path: Path, into: list[bytes]) -> threading.Thread:
    def read() -> None:
        with path.open("rb") as stream:
            into.append(stream.read())

    reader = threading.Thread(target=read)
    reader.start()
    return reader


def test_a_fifo_is_written_to_not_replaced(tmp_path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _read_fifo(fifo, got)
    with atomic_text(fifo) as stream:
        stream.write("through the pipe\n")
    reader.join(10)
    assert got == [b"through the pipe\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_batch_writes_to_a_fifo_and_cannot_resume_one(tmp_path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _read_fifo(fifo, got)
    output = ResumableOutput(fifo, {}, resume=False)
    output.stream.write("line\n")
    output.checkpoint(1)
    output.finish()
    reader.join(10)
    assert got == [b"line\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert not (tmp_path / "out.fifo.partial").exists()
    assert not (tmp_path / "out.fifo.progress").exists()
    with pytest.raises(ResumeError, match="not a regular file"):
        ResumableOutput(fifo, {}, resume=True)


def test_a_device_stays_a_device():
    with atomic_text("/dev/null") as stream:
        stream.write("gone\n")
    assert stat.S_ISCHR(Path("/dev/null").stat().st_mode)
    assert output_target("/dev/null").stream


def test_a_symlink_is_followed_and_kept(tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    with atomic_text(link) as stream:
        stream.write("new\n")
    assert link.is_symlink()
    assert target.read_text() == "new\n"


def test_a_batch_output_through_a_symlink_keeps_it(tmp_path):
    target = tmp_path / "real.jsonl"
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    output = ResumableOutput(link, {}, resume=False)
    output.stream.write("line\n")
    output.finish()
    assert link.is_symlink()
    assert target.read_text() == "line\n"


def test_a_missing_folder_is_an_error_not_made(tmp_path):
    missing = tmp_path / "no" / "such" / "out.txt"
    with pytest.raises(FileNotFoundError, match="no folder"), atomic_text(missing):
        pass
    assert not (tmp_path / "no").exists()


def test_a_command_names_a_missing_output_folder(tmp_path):
    from commands.kwx import app

    missing = tmp_path / "nowhere" / "out.jsonl"
    result = CliRunner().invoke(app, ["extract", str(PAGE), "-o", str(missing)])
    assert result.exit_code == 2
    assert f"{missing}: cannot write (no folder {missing.parent})" in result.output
    assert "Traceback" not in result.output
    assert not missing.parent.exists()


@pytest.mark.parametrize("program, arguments", [
    ("denoise", ["show", str(PAGE), "-o"]),
    ("mining", ["dedup", str(EXAMPLES), "-o"]),  # its checkpoint folder made no parent
    ("mining", ["dedup", str(EXAMPLES), "--save-index"]),
    ("mining", ["classify", "train", str(PAGE), "--out"]),
    ("kwx", ["train", str(EXAMPLES), "--out"]),
    ("denoise", ["train", str(EXAMPLES), "--out", "MODEL", "--report"]),
])
def test_every_output_is_checked_before_any_work(tmp_path, program, arguments):
    from importlib import import_module

    missing = tmp_path / "nowhere" / "out"
    arguments = [str(tmp_path / "m.npz") if a == "MODEL" else a for a in arguments]
    result = CliRunner().invoke(import_module(f"commands.{program}").app,
                                [*arguments, str(missing)])
    assert result.exit_code == 2, result.output
    assert f"error: {missing}: cannot write (no folder {missing.parent})" in result.output
    assert not missing.parent.exists()


def test_a_read_only_output_is_refused_before_any_work(tmp_path, monkeypatch):
    import commands.common
    from commands.denoise import app

    out = tmp_path / "out.txt"
    monkeypatch.setattr(commands.common.os, "access", lambda path, mode: False)  # as root too
    result = CliRunner().invoke(app, ["apply", str(PAGE), "-o", str(out)])
    assert result.exit_code == 2
    assert f"error: {out}: cannot write (permission denied)" in result.output


def test_dev_stdout_on_a_pipe_is_written_to():
    # /dev/stdout's link leads to "pipe:[N]", no path: opened by its name, as > does
    command = subprocess.run(
        [sys.executable, "-c", "from commands.denoise import main; main()", "apply", str(PAGE),
         "--format", "main", "-o", "/dev/stdout"], capture_output=True, text=True, timeout=120)
    assert command.returncode == 0, command.stderr
    assert command.stdout.startswith("Oak wall shelf\n")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("program, arguments", [
    ("denoise", ["apply", str(PAGE)]),
    ("kwx", ["extract", str(EXAMPLES)]),
])
def test_a_full_device_is_one_line_not_a_traceback(program, arguments):
    # the write fails, then the flush on closing fails again: one error, reported once
    from importlib import import_module

    app = import_module(f"commands.{program}").app
    result = CliRunner().invoke(app, [*arguments, "-o", "/dev/full"])
    assert result.exit_code == 1, result.output
    assert "error: /dev/full: cannot write (No space left on device)" in result.output
    assert not isinstance(result.exception, OSError)


@pytest.mark.parametrize("arguments", [
    ["denoise", "apply", str(PAGE)], ["kwx", "extract", str(PAGE)], ["denoise", "--help"]])
def test_a_closed_standard_output_is_one_line(arguments):
    program, *rest = arguments
    command = subprocess.run(
        [sys.executable, "-c", f"from commands.{program} import main; main()", *rest],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120,
        preexec_fn=lambda: os.close(1))
    assert command.returncode == 1, command.stderr
    assert "standard output is closed" in command.stderr
    assert "Traceback" not in command.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses RLIMIT_FSIZE")
def test_dedup_on_a_full_disk_is_one_line_and_leaves_no_temporary_files(tmp_path):
    import resource

    folder = tmp_path / "pages"
    folder.mkdir()
    html = PAGE.read_text(encoding="utf-8")
    for k in range(40):  # sketches over the limit below, in the files' buffers until matching
        (folder / f"p{k}.html").write_text(html.replace("Oak", f"Oak {k}"), encoding="utf-8")
    scratch = tmp_path / "tmp"
    scratch.mkdir()

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write over the limit fails instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    command = subprocess.run(
        [sys.executable, "-c", "from commands.mining import main; main()", "dedup",
         str(folder), "--pairs", "-j", "1", "--denoise", "none"],
        capture_output=True, text=True, timeout=300, preexec_fn=limited,
        env={**os.environ, "TMPDIR": str(scratch)})
    assert command.returncode == 1, command.stderr
    assert "the sketches spilled to disk failed (File too large)" in command.stderr
    assert "Traceback" not in command.stderr
    assert not list(scratch.iterdir())  # the sketches' folder is removed all the same


def test_a_regular_file_is_still_replaced_whole(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_text(path) as stream:
        stream.write("half")
        raise RuntimeError("stopped")
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]  # no temporary left


# --- a library caller's process is left as it was ----------------------------------------

_UNTOUCHED = textwrap.dedent("""
    import gc, json, sys
    from pathlib import Path
    from threadpoolctl import threadpool_info
    from engine.batch import map_pages, run_batch
    from denoise.reader import read_pages
    from denoise.site import FingerprintMethod
    from engine.sites import label_sites
    import io

    class Job:
        def setup(self): pass
        def __call__(self, page): return [page.id + "\\n"]

    def blas():
        return sorted(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")

    before = blas()
    pages = lambda: read_pages([sys.argv[1]])
    list(map_pages(pages(), Job(), 1))
    run_batch(pages(), Job(), io.StringIO(), jobs=1)
    list(label_sites((p for p in pages() if not hasattr(p, "reason")),
                     lambda _: FingerprintMethod(), jobs=1))
    print(json.dumps({"frozen": gc.get_freeze_count(), "blas": blas() == before}))
""")


@pytest.mark.slow
def test_library_calls_leave_the_process_as_it_was():
    done = subprocess.run([sys.executable, "-c", _UNTOUCHED, str(EXAMPLES)],
                          capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(done.stdout.splitlines()[-1]) == {"frozen": 0, "blas": True}


# --- workers end with their parent ------------------------------------------------------

_PARENT = textwrap.dedent("""
    import os, sys, time
    from engine.batch import map_pages
    from denoise.reader import read_pages

    class Slow:
        def setup(self):
            with open(sys.argv[2], "a") as pids:
                print(os.getpid(), file=pids, flush=True)
        def __call__(self, page):
            time.sleep(60)
            return []

    for _ in map_pages(read_pages([sys.argv[1]]), Slow(), 2):
        pass
""")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_workers_end_when_their_parent_is_killed(tmp_path, how):
    pids = tmp_path / "pids"
    parent = subprocess.Popen([sys.executable, "-c", _PARENT, str(EXAMPLES), str(pids)])
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (
                not pids.exists() or len(pids.read_text().split()) < 2):
            time.sleep(0.1)
        workers = [int(pid) for pid in pids.read_text().split()]
        assert len(workers) == 2 and all(_alive(pid) for pid in workers)
        parent.send_signal(how)
        parent.wait(30)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in workers)
    finally:
        parent.kill()
        parent.wait()


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigterm_stops_a_command_as_ctrl_c_does(tmp_path):
    pages = tmp_path / "pages.jsonl"
    html = PAGE.read_text(encoding="utf-8")
    with pages.open("w", encoding="utf-8") as stream:
        for k in range(20_000):
            stream.write(json.dumps({"url": f"http://shop.example/{k}", "html": html}) + "\n")
    out = tmp_path / "out.jsonl"
    command = subprocess.Popen(
        [sys.executable, "-c", "from commands.kwx import main; main()", "extract", str(pages),
         "-o", str(out), "--jobs", "2"], stderr=subprocess.PIPE, text=True)
    partial = tmp_path / "out.jsonl.partial"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (
            not partial.exists() or partial.stat().st_size < 10_000):
        time.sleep(0.2)
    command.send_signal(signal.SIGTERM)
    _, err = command.communicate(timeout=120)
    assert command.returncode == 130, err
    assert "run again with --resume" in err
    assert partial.exists() and not out.exists()


# --- arguments, flags, versions ---------------------------------------------------------

def test_public_functions_say_what_to_pass():
    import denoise
    from denoise import Page, TemplateDetector
    from mining import page_texts

    with pytest.raises(TypeError, match=r"main_text: html must be str, not bytes"):
        denoise.main_text(b"<p>text</p>")
    with pytest.raises(TypeError, match=r"takes a denoise\.Page"):
        TemplateDetector.load().score("<p>text</p>")
    with pytest.raises(TypeError, match=r"takes a denoise\.Page"):
        denoise.segment("<p>text</p>")
    with pytest.raises(TypeError, match="Page: html must be str"):
        Page(id="a", html=b"<p>text</p>")
    with pytest.raises(TypeError, match="page_texts takes pages"):
        next(page_texts("<p>text</p>", "none"))


def test_the_keyword_extractor_says_what_to_pass():
    from kwx import KeywordExtractor

    extractor = KeywordExtractor.load()
    with pytest.raises(TypeError, match=r"KeywordExtractor takes a denoise\.Page"):
        extractor.extract("<html><p>a page</p></html>")
    with pytest.raises(TypeError, match=r"extract_many takes a denoise\.Page"):
        extractor.extract_many(["<html><p>a page</p></html>"])


@pytest.mark.parametrize("module", ["commands.denoise", "commands.kwx", "commands.mining"])
def test_every_program_has_a_version_and_plain_flags(module):
    from importlib import import_module

    app = import_module(module).app
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.startswith("webdenoise ")
    for command in ([], ["extract"], ["apply"], ["site"], ["dedup"]):
        shown = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
        if shown.exit_code == 0:
            assert "<bool>" not in shown.output


@pytest.mark.slow
def test_a_flag_takes_no_value():
    from commands.kwx import app

    result = CliRunner().invoke(app, ["extract", str(PAGE), "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout.splitlines()[0])["keywords"]


# --- libxml2 as it comes: other libxml2 users and other threads are safe ------------------

_OBJECTIFY = textwrap.dedent("""
    import sys
    from lxml import etree, objectify
    from denoise.reader import read_pages
    from denoise.site import FingerprintMethod
    from engine.sites import label_sites

    pages = [p for p in read_pages([sys.argv[1]]) if not hasattr(p, "reason")]
    list(label_sites(pages, lambda _: FingerprintMethod(), jobs=1, own_process=True))
    root = objectify.fromstring("<a><b>1</b><c>two</c></a>")
    objectify.annotate(root)
    print(etree.tostring(root)[:2].decode())
""")


@pytest.mark.slow
def test_lxml_objectify_after_a_batch_in_the_same_process():
    # a process-wide libxml2 allocator, given to etree's copy of libxml2 only, made
    # objectify's copy free a block it had not allocated: the interpreter aborted
    done = subprocess.run([sys.executable, "-c", _OBJECTIFY, str(EXAMPLES)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "<a"


_THREADS = textwrap.dedent("""
    import queue, resource, sys, threading
    from denoise.html import parse_html
    from engine.batch import ready_for_pages

    ready_for_pages()  # what a worker process does, in a process that also has threads
    html = open(sys.argv[1], encoding="utf-8").read() * 20
    trees = queue.Queue(maxsize=8)

    def free():
        while trees.get() is not None:
            pass

    def peak():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    freer = threading.Thread(target=free)
    freer.start()
    for rounds in range(2):
        for _ in range(1500):
            trees.put(parse_html(html))
        if rounds == 0:
            first = peak()
    trees.put(None)
    freer.join()
    print(peak() - first)
""")


@pytest.mark.slow
def test_trees_freed_in_another_thread_give_their_memory_back():
    done = subprocess.run([sys.executable, "-c", _THREADS, str(PAGE)],
                          capture_output=True, text=True, timeout=300, check=True)
    grown_kb = int(done.stdout.split()[-1])
    assert grown_kb < 20_000  # the second 1,500 trees reuse the first ones' memory


def test_a_huge_chunk_is_tokenized_up_to_its_cap():
    # spaCy splits affixes off a chunk one new string at a time: a page with 200,000 '<'
    # in a row took 40 s in one call
    from kwx.text import _IDX, MAX_SPACY_CHUNK_CHARS, _spacy_chunk_rows

    rows, counts = _spacy_chunk_rows(["garden", "<" * 200_000, "fork"])
    owner = np.repeat(np.arange(3), counts)
    assert counts[0] == counts[2] == 1
    assert 0 < counts[1] <= MAX_SPACY_CHUNK_CHARS
    assert rows[owner == 1, _IDX].max() < MAX_SPACY_CHUNK_CHARS


def test_removing_a_block_keeps_a_tail_with_characters_xml_refuses():
    # lxml's HTML parser keeps '&#x0b;' as U+000B, which its setters refuse: 'denoise
    # apply --format html' skipped such pages as an internal error
    from denoise.html import parse_html, remove_keeping_tail

    root = parse_html("<html><body><p>a</p><nav>menu</nav>after&#x0b;nav</body></html>")
    nav = root.find(".//nav")
    assert "\x0b" in nav.tail
    remove_keeping_tail(nav)
    assert root.find(".//p").tail == "afternav"


def test_the_closing_summary_counts_model_loading(tmp_path):
    import re
    from io import StringIO

    from rich.console import Console

    from commands.common import run_pages

    class SlowToLoad:
        loaded = False

        def setup(self):  # once, as a job's models load once
            if not self.loaded:
                time.sleep(0.5)  # what loading them costs
                self.loaded = True

        def __call__(self, page):
            return [page.id + "\n"]

    err = StringIO()
    run_pages(Console(file=err, width=200), [str(EXAMPLES)], SlowToLoad(),
              out=tmp_path / "out.txt", jobs=1, resume=False, settings={},
              max_bytes=1 << 20)
    seconds = float(re.search(r"; ([\d.]+) s, ", err.getvalue())[1])
    assert seconds >= 0.5
