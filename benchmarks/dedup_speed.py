"""Speed of ``mining dedup``'s sketches and index against plain datasketch.

Run: python benchmarks/dedup_speed.py [--limit 150] [--rounds 6] [--index-size 100000]
                                      [--queries 10000] [--markdown out.md]

1. **Signatures per CPU-second**, from a page's text to its 128-value MinHash, on real
   pages (the content-dev sets, ``--limit`` pages a set, their visible text as
   ``mining.content.page_texts`` gives it). The baseline is the plain datasketch
   loop: words by a regular expression, then ``MinHash().update(shingle.encode())``
   for every 6-word shingle (SHA-1 per shingle, a numpy update per shingle).
   datasketch's own ``update_batch`` is shown too. Ours: numpy shingle hashes, then
   the signature of one page per call, or of 256 pages per call (the CLI's way).
   The pages are cut into ``--rounds`` slices and every contender runs on a slice
   before the next slice starts, so all see the same machine state (the machine is
   shared and noisy); the ratio is given per round too.
2. **Equality**: our signatures equal datasketch's ``MinHash`` fed the same shingles
   one by one with our shingle hash as its ``hashfunc``.
3. **LSH at scale**: ``--index-size`` signatures (the real pages plus synthetic pages
   of 100 random shingles), ``--queries`` query pages (half near-copies of indexed
   pages at Jaccard ~0.9, half new). Ours: ``NearDuplicateIndex`` (sort-based band
   join, candidates verified on the signatures). Baseline: datasketch ``MinHashLSH``
   (same bands and rows) with ``LeanMinHash`` entries, ``query`` then ``jaccard`` on
   each candidate. Both must report the same pairs. Memory per signature: array
   bytes for ours, ``tracemalloc`` growth for ``MinHashLSH``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
import tracemalloc
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np
from benchmarks_common import emit
from datasketch import LeanMinHash, MinHash, MinHashLSH

from corpora.content import iter_content_pages
from denoise.page import Page
from mining.content import page_texts
from mining.dedup import DedupConfig, NearDuplicateIndex
from mining.minhash import MinHasher
from mining.shingles import reference_shingle_hash, shingle_hashes, words

K = 6
NUM_PERM = 128
BULK = 256
_WORDS = re.compile(r"[^\W_]+")


def plain_loop(text: str) -> MinHash:
    """The baseline: one datasketch update per shingle."""
    tokens = _WORDS.findall(text.lower())
    minhash = MinHash(num_perm=NUM_PERM)
    for i in range(max(len(tokens) - K + 1, 1 if tokens else 0)):
        minhash.update(" ".join(tokens[i:i + K]).encode())
    return minhash


def datasketch_batch(text: str) -> MinHash:
    """datasketch's batch API: still one SHA-1 per shingle, one numpy update per page."""
    tokens = _WORDS.findall(text.lower())
    minhash = MinHash(num_perm=NUM_PERM)
    minhash.update_batch([" ".join(tokens[i:i + K]).encode()
                          for i in range(max(len(tokens) - K + 1, 1 if tokens else 0))])
    return minhash


def load_texts(limit: int) -> list[str]:
    pages = [Page(id=f"{g.set_name}/{g.page_id}", html=g.html, url=g.url)
             for g in iter_content_pages(limit=limit)]
    texts = [text for _, text in page_texts(pages, "none", on_error=lambda error: None)]
    return [text for text in texts if words(text)]


def signature_speed(texts: list[str], rounds: int) -> list[str]:
    hasher = MinHasher(NUM_PERM)
    contenders: dict[str, Callable[[list[str]], object]] = {
        "plain datasketch loop (update per shingle)": lambda chunk: [plain_loop(t)
                                                                      for t in chunk],
        "datasketch update_batch per page": lambda chunk: [datasketch_batch(t) for t in chunk],
        "ours, one page per call": lambda chunk: [hasher.signature(shingle_hashes(t, K))
                                                  for t in chunk],
        "ours, 256 pages per call": lambda chunk: [
            hasher.signatures([shingle_hashes(t, K) for t in chunk[i:i + BULK]])
            for i in range(0, len(chunk), BULK)],
    }
    seconds: dict[str, float] = defaultdict(float)
    per_round: dict[str, list[float]] = defaultdict(list)
    slices = np.array_split(np.arange(len(texts)), rounds)
    for indices in slices:
        chunk = [texts[i] for i in indices]
        for name, run in contenders.items():
            start = time.process_time()
            run(chunk)
            spent = time.process_time() - start
            seconds[name] += spent
            per_round[name].append(spent)
    # stages of the bulk path, measured apart
    start = time.process_time()
    shingles = [shingle_hashes(t, K) for t in texts]
    middle = time.process_time()
    for i in range(0, len(shingles), BULK):
        hasher.signatures(shingles[i:i + BULK])
    end = time.process_time()
    baseline = "plain datasketch loop (update per shingle)"
    shingle_count = sum(len(s) for s in shingles)
    lines = [f"{len(texts)} real pages (content-dev), {shingle_count:,} shingles "
             f"({shingle_count / len(texts):.0f} a page), {NUM_PERM} permutations, "
             f"{rounds} interleaved rounds", "",
             "| contender | signatures per CPU-second | x plain loop (total) | "
             "x plain loop per round (min / median / max) |", "|---|---:|---:|---|"]
    for name in contenders:
        ratios = [b / s for b, s in zip(per_round[baseline], per_round[name], strict=True)]
        lines.append(f"| {name} | {len(texts) / seconds[name]:,.0f} | "
                     f"{seconds[baseline] / seconds[name]:.1f}x | {min(ratios):.1f} / "
                     f"{statistics.median(ratios):.1f} / {max(ratios):.1f} |")
    lines += ["", f"Our bulk path by stage: shingling {1e3 * (middle - start) / len(texts):.3f} "
              f"ms a page, signatures {1e3 * (end - middle) / len(texts):.3f} ms a page."]
    return lines


def equality(texts: list[str], pages: int) -> str:
    hasher = MinHasher(NUM_PERM)
    equal = 0
    for text in texts[:pages]:
        tokens = words(text)
        reference = MinHash(num_perm=NUM_PERM,
                            hashfunc=lambda b: reference_shingle_hash(b) & 0xFFFFFFFF)
        for i in range(max(len(tokens) - K + 1, 1)):
            reference.update(" ".join(tokens[i:i + K]).encode())
        equal += LeanMinHash(reference) == hasher.minhash(hasher.signature(
            shingle_hashes(text, K)))
    return (f"Equality: {equal} of {min(pages, len(texts))} pages have identical signatures "
            "to datasketch's MinHash fed the same shingles one by one (our hash as hashfunc).")


def synthetic(texts: list[str], size: int, queries: int, seed: int = 7
              ) -> tuple[list[np.ndarray], list[np.ndarray], int]:
    """Shingle sets to index (real pages first), query sets, and how many queries are
    near-copies of indexed pages."""
    rng = np.random.default_rng(seed)
    real = [shingle_hashes(t, K) for t in texts][:size]
    fake = rng.integers(0, 2**63, size=(size - len(real), 100), dtype=np.uint64)
    indexed = real + list(fake)
    copies = queries // 2
    picks = rng.choice(len(indexed), size=copies, replace=False)
    near = []
    for pick in picks:
        changed = indexed[pick].copy()
        swap = rng.choice(changed.size, size=max(1, changed.size // 20), replace=False)
        changed[swap] = rng.integers(0, 2**63, size=swap.size, dtype=np.uint64)
        near.append(changed)
    fresh = list(rng.integers(0, 2**63, size=(queries - copies, 100), dtype=np.uint64))
    return indexed, near + fresh, copies


def lsh_speed(texts: list[str], size: int, queries: int) -> list[str]:
    config = DedupConfig(num_perm=NUM_PERM)
    index = NearDuplicateIndex(config)
    indexed_sets, query_sets, copies = synthetic(texts, size, queries)
    start = time.process_time()
    indexed = np.concatenate([index.sketch(indexed_sets[i:i + 4096])
                              for i in range(0, len(indexed_sets), 4096)])
    sketch_seconds = time.process_time() - start
    asked = index.sketch(query_sets)
    index.add([str(i) for i in range(len(indexed))], indexed)
    ids = [str(i) for i in range(len(indexed))]
    hasher = MinHasher(NUM_PERM)
    leans = [hasher.minhash(row) for row in indexed]
    lean_queries = [hasher.minhash(row) for row in asked]

    # interleaved: ours build, theirs build, ours query, theirs query
    start = time.process_time()
    index.match(asked[:1])  # builds the sorted key table
    ours_build = time.process_time() - start
    start = time.process_time()
    lsh = MinHashLSH(threshold=config.threshold, num_perm=NUM_PERM)
    with lsh.insertion_session() as session:
        for key, lean in zip(ids, leans, strict=True):
            session.insert(key, lean, check_duplication=False)
    theirs_build = time.process_time() - start
    start = time.process_time()
    matches = index.match(asked)
    ours_query = time.process_time() - start
    start = time.process_time()
    found = set()
    for q, lean in enumerate(lean_queries):
        for key in lsh.query(lean):
            if lean.jaccard(leans[int(key)]) >= config.threshold:
                found.add((q, int(key)))
    theirs_query = time.process_time() - start
    ours_pairs = set(zip(matches.index.a.tolist(), matches.index.b.tolist(), strict=True))
    found_copies = sum(1 for q, _ in ours_pairs if q < copies)
    ours_bytes = index.nbytes / len(index)
    del lsh
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    lsh = MinHashLSH(threshold=config.threshold, num_perm=NUM_PERM)
    with lsh.insertion_session() as session:
        for key, lean in zip(ids, leans, strict=True):
            session.insert(key, lean, check_duplication=False)
    theirs_bytes = (tracemalloc.get_traced_memory()[0] - before) / len(index)
    before = tracemalloc.get_traced_memory()[0]
    kept = [hasher.minhash(row) for row in indexed[:10_000]]
    lean_bytes = (tracemalloc.get_traced_memory()[0] - before) / len(kept)
    tracemalloc.stop()
    return [
        f"{len(index):,} indexed signatures ({len(texts)} real pages, the rest synthetic pages "
        f"of 100 shingles; sketched at {len(index) / sketch_seconds:,.0f} a CPU-second in "
        f"bulk); {len(asked):,} queries, {copies:,} of them near-copies (Jaccard ~0.9) of "
        f"indexed pages; threshold {config.threshold}: {config.bands} bands x {config.rows} "
        "rows", "",
        "| | build (CPU s) | queries per CPU-second | bytes per signature |",
        "|---|---:|---:|---:|",
        f"| ours (sorted band keys, numpy join, verified) | {ours_build:.2f} | "
        f"{len(asked) / ours_query:,.0f} | {ours_bytes:,.0f} |",
        f"| datasketch MinHashLSH + LeanMinHash.jaccard | {theirs_build:.2f} | "
        f"{len(asked) / theirs_query:,.0f} | {theirs_bytes:,.0f} (+ {lean_bytes:,.0f} per kept "
        "LeanMinHash) |",
        "",
        f"Queries: ours {theirs_query / ours_query:.1f}x datasketch's throughput; "
        f"build {theirs_build / max(ours_build, 1e-9):.1f}x faster. Same pairs reported: "
        f"{ours_pairs == found} ({len(ours_pairs):,} pairs; {found_copies:,} of {copies:,} "
        "planted near-copies found).",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=150, help="pages a content set")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--index-size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args()
    texts = load_texts(args.limit)
    lines = signature_speed(texts, args.rounds)
    lines += ["", equality(texts, 100), ""]
    lines += lsh_speed(texts, args.index_size, args.queries)
    emit("\n".join(lines), args.markdown)


if __name__ == "__main__":
    main()
