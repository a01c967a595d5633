"""Helpers of ``benchmarks/scale.py``, each run as its own fresh process.

``python benchmarks/scale_probe.py measure RESULT.json STDOUT STDERR -- CMD...``
    Runs CMD, waits for it, and writes its resources to RESULT.json: wall seconds, user
    and system CPU seconds and ``ru_maxrss`` of ``getrusage(RUSAGE_CHILDREN)``, the exit
    code, and the peak of the summed RSS of the whole process tree, sampled from
    ``/proc`` every ``--interval`` seconds. This process runs nothing else, so
    RUSAGE_CHILDREN covers exactly CMD and every descendant it waited for (worker
    processes included): CPU is summed over the tree, ``ru_maxrss`` is the largest
    single process. The sampled sum counts pages shared between forked workers once
    per process (an over-estimate); processes a command does not wait for (Spark's
    JVM and its Python workers) are in the sampled sum but not in the CPU figures.
    Also the machine's busy CPU seconds over the run (``/proc/stat``), so that the
    load of other processes during the run can be told.

``python benchmarks/scale_probe.py parse INPUT...``
    The bare-parse baseline: reads the pages as the commands do
    (``denoise.reader.read_pages``) and lxml-parses each (``denoise.html.parse_html``);
    prints how many pages it parsed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

_PAGE = os.sysconf("SC_PAGE_SIZE")
_TICK = os.sysconf("SC_CLK_TCK")


def busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy since boot (all cores)."""
    with open("/proc/stat", "rb") as stream:  # noqa: PTH123
        fields = [int(v) for v in stream.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / _TICK


def _tree_rss(root: int) -> int:
    """Summed RSS in bytes of ``root`` and its descendants (from ``/proc``)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stream:  # noqa: PTH123
                fields = stream.read().rsplit(b")", 1)[1].split()
        except OSError:  # the process has gone
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        rss[pid] = int(fields[21]) * _PAGE
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, ()))
    return total


def measure(result: Path, stdout: Path, stderr: Path, command: list[str],
            interval: float) -> None:
    peak = 0
    done = threading.Event()

    def sample(pid: int) -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss(pid))
            done.wait(interval)

    started, busy = time.perf_counter(), busy_seconds()
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err)
        sampler = threading.Thread(target=sample, args=(process.pid,), daemon=True)
        sampler.start()
        code = process.wait()
    wall, busy = time.perf_counter() - started, busy_seconds() - busy
    done.set()
    sampler.join()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    result.write_text(json.dumps({
        "code": code, "wall": wall, "user": usage.ru_utime, "system": usage.ru_stime,
        "maxrss_mb": usage.ru_maxrss / 1024,  # kilobytes on Linux
        "tree_rss_mb": peak / 2**20, "machine_busy": busy,
    }), encoding="utf-8")


def parse(inputs: list[str]) -> None:
    from denoise.errors import PageError
    from denoise.html import parse_html
    from denoise.reader import Skipped, read_pages

    parsed = 0
    for item in read_pages(inputs):
        if isinstance(item, Skipped):
            continue
        try:
            parse_html(item.html, item.id)
        except PageError:
            continue
        parsed += 1
    print(f"{parsed} pages parsed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="mode", required=True)
    run = commands.add_parser("measure")
    run.add_argument("result", type=Path)
    run.add_argument("stdout", type=Path)
    run.add_argument("stderr", type=Path)
    run.add_argument("--interval", type=float, default=0.2)
    run.add_argument("command", nargs=argparse.REMAINDER)
    bare = commands.add_parser("parse")
    bare.add_argument("inputs", nargs="+")
    args = parser.parse_args()
    if args.mode == "parse":
        parse(args.inputs)
        return
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        sys.exit("measure: no command given")
    measure(args.result, args.stdout, args.stderr, command, args.interval)


if __name__ == "__main__":
    main()
