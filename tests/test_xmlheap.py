"""libxml2's slab allocator (denoise.xmlheap): the same trees, across threads, in bounded
memory. Installing it is for the life of a process, so each check runs in a fresh one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from denoise import xmlheap

pytestmark = pytest.mark.skipif(xmlheap._xmlheap is None,
                                reason="the slab allocator is not built here")

#: Pages with every kind of block libxml2 makes: attributes, entities, long text (past
#: the slabs' 512 bytes), deep nesting, broken markup, non-ASCII.
PAGES = [
    "<html><head><title>A &amp; B</title><meta name='keywords' content='x, y'></head>"
    "<body><div id=a class='b c'><p>one <b>two</b> three</p><a href='/x?q=1&r=2'>link</a>"
    "</div></body></html>",
    "<div>" + "<span data-x='" + "v" * 700 + "'>" + "long text " * 300 + "</span>" * 3,
    "<ul>" + "".join(f"<li class=i{k}>item {k} é ü 中文</li>" for k in range(400)) + "</ul>",
    "<table><tr><td>unclosed <p>para <div>" * 50,
    "<body>" + "<div>" * 300 + "deep" + "</div>" * 300 + "</body>",
]

SCRIPT = textwrap.dedent("""
    import hashlib, json, queue, sys, threading
    from lxml import etree
    from denoise import xmlheap
    from denoise.html import parse_html
    pages = json.loads(sys.stdin.read())
    def digest(root):
        return hashlib.sha1(etree.tostring(root, encoding="unicode").encode()).hexdigest()
    before = [parse_html(p) for p in pages]  # made by the C library's malloc
    out = {"installed": xmlheap.install()}
    out["again"] = xmlheap.install()
    out["digests"] = [digest(parse_html(p)) for p in pages]
    del before  # freed after installation: back to the C library
    trees = queue.Queue()
    def parse(n):  # each thread's trees are freed by another thread
        for _ in range(n):
            for p in pages:
                trees.put((digest(parse_html(p)), parse_html(p)))
    def rounds(n):
        threads = [threading.Thread(target=parse, args=(n,)) for _ in range(3)]
        for t in threads: t.start()
        for t in threads: t.join()  # ended threads hand their slabs on
        seen = set()
        while not trees.empty():
            want, root = trees.get()
            seen.add(want == digest(root))
        return seen
    out["threads_agree"] = sorted(rounds(2))
    out["after_2"] = xmlheap.slab_counts()[0]
    for _ in range(8):
        rounds(2)
    out["after_10"] = xmlheap.slab_counts()[0]
    print(json.dumps(out))
""")


def run(env_value: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != xmlheap.ENV}
    if env_value is not None:
        env[xmlheap.ENV] = env_value
    done = subprocess.run([sys.executable, "-c", SCRIPT], input=json.dumps(PAGES),
                          capture_output=True, text=True, env=env, check=True, timeout=300)
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def slabs() -> dict:
    return run(None)


def test_it_installs_once_per_process(slabs):
    assert slabs["installed"] is True
    assert slabs["again"] is True


def test_trees_serialize_the_same_as_with_the_c_library(slabs):
    system = run("system")
    assert system["installed"] is False
    assert slabs["digests"] == system["digests"]


def test_trees_made_in_one_thread_read_and_free_in_another(slabs):
    assert slabs["threads_agree"] == [True]


def test_memory_stays_bounded_over_rounds_of_threads(slabs):
    # threads that parse, end and leave their trees to another: their slabs are taken
    # back, not carved again each round
    assert slabs["after_2"] > 0
    assert slabs["after_10"] <= slabs["after_2"] * 1.5


def test_the_batch_loop_installs_it():
    done = subprocess.run(
        [sys.executable, "-c", "from denoise.batch import ready_for_pages; "
         "from denoise import xmlheap; ready_for_pages(); print(xmlheap.installed())"],
        capture_output=True, text=True, check=True, timeout=120,
        env={k: v for k, v in os.environ.items() if k != xmlheap.ENV})
    assert done.stdout.strip() == "True"
