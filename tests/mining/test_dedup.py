"""Near-duplicate detection: shingles, MinHash signatures, banding, the paper's rule, the
saved index and its refusals, and ``mining dedup`` on the command line."""

import io
import json
import random
from pathlib import Path

import numpy as np
import pytest
from datasketch import LeanMinHash, MinHash, MinHashLSH
from npzfiles import arrays_of, npz_bytes, replaced, with_header
from sitegen import WORDS, article_page
from typer.testing import CliRunner

from commands.mining import app
from denoise.arrayfile import ModelError
from mining.dedup import DedupConfig, NearDuplicateIndex, Rule
from mining.minhash import EMPTY, MinHasher, bottom_k
from mining.shingles import (
    reference_shingle_hash,
    shingle_hashes,
    shingles_of_words,
    word_hashes,
    words,
)

runner = CliRunner()


#: The configuration the index and command tests below were written for (LSH over the
#: whole text): they test the machinery; the defaults (the paper's rule over the main
#: content) have tests of their own, which pass ``defaults=True``.
MECHANICS = {"rule": "lsh", "denoise": "none"}


def run(args: list[object], *, defaults: bool = False):
    """Invoke the CLI; a crash (an exception other than an exit) is raised, not hidden.
    ``mining dedup`` runs with :data:`MECHANICS` for what its arguments leave unsaid (a
    saved ``--index`` says it), unless ``defaults``."""
    args = [str(a) for a in args]
    if args and args[0] == "dedup" and "--index" not in args and not defaults:
        args = [args[0], *(item for name, value in MECHANICS.items()
                           if f"--{name}" not in args for item in (f"--{name}", value)),
                *args[1:]]
    result = runner.invoke(app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def prose(seed: int, count: int = 120) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) + str(rng.randrange(50)) for _ in range(count))


def shingle_strings(text: str, k: int = 6) -> list[str]:
    tokens = words(text)
    return [" ".join(tokens[i:i + k]) for i in range(max(len(tokens) - k + 1, 1))]


def plain_minhash(text: str, num_perm: int = 128, seed: int = 1) -> MinHash:
    """datasketch's own loop: one update per shingle, our shingle hash as hashfunc."""
    minhash = MinHash(num_perm=num_perm, seed=seed,
                      hashfunc=lambda data: reference_shingle_hash(data) & 0xFFFFFFFF)
    for shingle in shingle_strings(text):
        minhash.update(shingle.encode())
    return minhash


# --- shingles --------------------------------------------------------------------------


def test_words_are_lower_case_alphanumeric_runs():
    assert words("Hello, WORLD! it's 2026_06 -- Café Москва 😀x") == [
        "hello", "world", "it", "s", "2026", "06", "café", "москва", "x"]
    assert words("  ...  ") == []


def test_han_characters_and_kana_are_words_by_themselves():
    assert words("北京是首都, Tokyo東京タワーab1 한국어 텍스트") == [
        "北", "京", "是", "首", "都", "tokyo", "東", "京", "タ", "ワ", "ー", "ab1", "한국어",
        "텍스트"]
    # one character changed in a sentence of 20 touches its 6 shingles, not all of them
    text = "渡轮冬天每天只开两班错过最后一班的人只能在港口过夜"
    edited = text[:10] + "末" + text[11:]
    a, b = set(shingle_hashes(text).tolist()), set(shingle_hashes(edited).tolist())
    assert len(a) == len(text) - 5
    assert len(a - b) == 6
    assert shingle_hashes(text).tolist() == [reference_shingle_hash(s)
                                             for s in shingle_strings(text)]


@pytest.mark.parametrize("text", [
    "a" * 65535 + "東京 ok", "東" * 65535 + "ab東", "x" * 65534 + "東a b",
    "\U0001f600 " + "b" * 65532 + "東c",  # past the first plane: the numpy path alone
    "\U00020000" * 3 + " " + "d" * 65531 + "\U00020001e",
])
def test_words_at_the_numpy_paths_piece_ends_are_the_plain_ones(text):
    assert shingle_hashes(text, 1).tolist() == [reference_shingle_hash(w) for w in words(text)]


def test_shingle_hashes_match_the_plain_python_definition():
    text = "The Quick, brown fox -- jumps over THE lazy dog; café au lait 😀 ok " * 3
    expected = [reference_shingle_hash(s) for s in shingle_strings(text)]
    assert shingle_hashes(text).tolist() == expected
    assert len(expected) == len(words(text)) - 5
    # case and punctuation do not matter; word order does
    assert shingle_hashes("a b c d e f").tolist() == shingle_hashes("A, b. C d E (f)").tolist()
    assert shingle_hashes("a b c d e f").tolist() != shingle_hashes("b a c d e f").tolist()


@pytest.mark.parametrize("text", [
    "", "!!! ... ---", "one", "The Quick, brown fox -- jumps over THE lazy dog",
    "İstanbul ß straße ǅemal ΣΊΣΥΦΟΣ Москва 日本語 x2026_06 ١٢٣",  # lower-casing, scripts
    # lone characters and words at the numpy path's piece ends (65,536 characters)
    "東京タワーab1東京 " * 6000, "東京ab1234 " * 7500, "ab東c" * 17000, "ab東" * 22000,
    "a東" * 33000,
    "emoji \U0001f600 past the first plane \U0001d518\U0001d52b falls back",
    "word" * 5000,  # one long word
])
def test_compiled_word_hashes_are_the_numpy_ones(text):
    from mining import shingles

    if shingles._kernels is None:
        pytest.skip("the compiled extension is not built")
    assert np.array_equal(word_hashes(text), shingles._numpy_word_hashes(text, None))
    n = len(text)
    for cut in ([0, n // 3, n // 2], [0, n // 2, n // 2]):  # apart, and touching spans
        starts = np.array(cut, dtype=np.int64)
        ends = np.array([max(cut[0], n // 4), cut[2], n][:3], dtype=np.int64)
        ends = np.maximum(ends, starts)
        if (starts[1:] < ends[:-1]).any():
            continue
        spans = (starts, ends)
        assert np.array_equal(word_hashes(text, spans),
                              shingles._numpy_word_hashes(text, spans)), cut


def test_compiled_word_hashes_of_real_page_chunks(dev_site_pages):
    from denoise.blocks import index_dom
    from denoise.html import parse_html
    from mining import shingles

    if shingles._kernels is None:
        pytest.skip("the compiled extension is not built")
    total = 0
    for page in dev_site_pages[:60]:
        dom = index_dom(parse_html(page.html, page.id))
        keep = np.arange(len(dom.chunk_first)) % 3 != 1  # leave gaps between spans
        spans = (dom.chunk_first[keep], dom.chunk_last[keep])
        fast = word_hashes(dom.text, spans)
        assert np.array_equal(fast, shingles._numpy_word_hashes(dom.text, spans)), page.id
        total += len(fast)
    assert total > 10_000


def test_long_texts_hash_the_same_way():
    text = prose(1, 15_000)  # longer than the precomputed power tables
    assert len(text) > 1 << 16
    hashes = shingle_hashes(text)
    strings = shingle_strings(text)
    assert hashes.size == len(strings)
    for i in (0, 1, hashes.size // 2, hashes.size - 1):
        assert int(hashes[i]) == reference_shingle_hash(strings[i])


def test_short_texts_are_one_shingle_and_empty_texts_none():
    assert shingle_hashes("").size == 0
    assert shingle_hashes("!!! ... ---").size == 0
    short = shingle_hashes("only three words")
    assert short.tolist() == [reference_shingle_hash("only three words")]
    assert shingle_hashes("Only three WORDS!").tolist() == short.tolist()
    assert shingle_hashes("only three words", 3).size == 1
    assert shingles_of_words(word_hashes("a b c d"), 2).size == 3
    with pytest.raises(ValueError, match="at least one word"):
        shingles_of_words(word_hashes("a b"), 0)


# --- signatures ------------------------------------------------------------------------


@pytest.mark.parametrize(("num_perm", "seed"), [(128, 1), (64, 7)])
def test_signatures_equal_the_plain_datasketch_loop(num_perm, seed):
    texts = [prose(i, 40 + 30 * i) for i in range(4)] + ["two words"]
    hasher = MinHasher(num_perm, seed)
    bulk = hasher.signatures([shingle_hashes(t) for t in texts])
    for text, row in zip(texts, bulk, strict=True):
        plain = plain_minhash(text, num_perm, seed)
        assert np.array_equal(row, plain.hashvalues)
        assert np.array_equal(hasher.signature(shingle_hashes(text)), row)
        assert hasher.minhash(row) == LeanMinHash(plain)


def test_signatures_across_chunk_boundaries(monkeypatch):
    import mining.minhash

    sets = [np.arange(n, dtype=np.uint64) * 7919 for n in (1, 50, 3, 200, 9)]
    whole = MinHasher(32).signatures(sets)
    monkeypatch.setattr(mining.minhash, "_CHUNK_CELLS", 32 * 4)  # 4 shingles a step
    assert np.array_equal(MinHasher(32).signatures(sets), whole)


def test_an_empty_set_has_no_signature():
    with pytest.raises(ValueError, match="set 1 is empty"):
        MinHasher(16).signatures([np.ones(3, dtype=np.uint64), np.empty(0, dtype=np.uint64)])


def test_jaccard_estimates_are_near_the_truth():
    base = prose(3, 400).split()
    hasher = MinHasher(256)
    for changed in (0, 10, 40, 120, 400):
        other = list(base)
        rng = random.Random(changed)
        for i in rng.sample(range(len(base)), changed):
            other[i] = f"new{i}"
        a, b = " ".join(base), " ".join(other)
        truth = len(set(shingle_strings(a)) & set(shingle_strings(b))) / len(
            set(shingle_strings(a)) | set(shingle_strings(b)))
        sa, sb = hasher.signatures([shingle_hashes(a), shingle_hashes(b)])
        estimate = float(np.mean(sa == sb))
        assert abs(estimate - truth) < 0.08, (changed, truth, estimate)


def test_bottom_k_keeps_the_smallest_distinct_hashes():
    sketches, counts = bottom_k([np.array([9, 3, 3, 7, 1], dtype=np.uint64),
                                 np.arange(20, 0, -1, dtype=np.uint64)], 4)
    assert sketches[0].tolist() == [1, 3, 7, 9]
    assert sketches[1].tolist() == [1, 2, 3, 4]
    sketches, counts = bottom_k([np.array([5, 5], dtype=np.uint64)], 3)
    assert sketches[0].tolist() == [5, EMPTY, EMPTY] and counts.tolist() == [1]


# --- matching --------------------------------------------------------------------------


def near_copy(text: str, changes: int, seed: int = 0) -> str:
    tokens = text.split()
    for i in random.Random(seed).sample(range(len(tokens)), changes):
        tokens[i] = "changed"
    return " ".join(tokens)


@pytest.fixture(scope="module")
def batch():
    """40 unrelated texts, a near-copy of text 5 (Jaccard ~0.9) and an exact copy of 9."""
    texts = [prose(100 + i, 300) for i in range(40)]
    texts += [near_copy(texts[5], 3), texts[9]]
    return texts


def test_lsh_finds_the_planted_duplicates_and_nothing_else(batch):
    index = NearDuplicateIndex(DedupConfig(**MECHANICS))
    matches = index.match(index.sketch([shingle_hashes(t) for t in batch]))
    pairs = matches.pairs()
    assert list(zip(pairs.a.tolist(), pairs.b.tolist(), strict=True)) == [(5, 40), (9, 41)]
    assert pairs.similarity[1] == 1.0 and 0.8 <= pairs.similarity[0] < 1.0
    assert [c.rows.tolist() for c in matches.clusters()] == [[5, 40], [9, 41]]


def test_banding_finds_what_datasketch_minhashlsh_finds():
    # pages at all distances from page 0, so that banding has borderline cases
    base = prose(7, 200)
    texts = [near_copy(base, changes, seed=changes) for changes in range(0, 60, 2)]
    config = DedupConfig(**MECHANICS, threshold=0.5, num_perm=64)
    index = NearDuplicateIndex(config)
    sketches = index.sketch([shingle_hashes(t) for t in texts])
    hasher = MinHasher(64)
    lsh = MinHashLSH(threshold=0.5, num_perm=64)
    for row, sketch in enumerate(sketches):
        lsh.insert(row, hasher.minhash(sketch))
    expected = set()
    for row, sketch in enumerate(sketches):
        for other in lsh.query(hasher.minhash(sketch)):
            if other > row and hasher.minhash(sketch).jaccard(
                    hasher.minhash(sketches[other])) >= 0.5:
                expected.add((row, other))
    pairs = index.match(sketches).pairs()
    assert set(zip(pairs.a.tolist(), pairs.b.tolist(), strict=True)) == expected
    assert 10 < len(expected) < len(texts) * (len(texts) - 1) // 2


def test_a_batch_matches_an_index_without_its_own_pages(batch):
    index = NearDuplicateIndex(DedupConfig(**MECHANICS))
    index.add([f"old{i}" for i in range(40)],
              index.sketch([shingle_hashes(t) for t in batch[:40]]))
    new = [prose(999, 300), near_copy(batch[12], 2), batch[30], batch[30]]
    matches = index.match(index.sketch([shingle_hashes(t) for t in new]))
    pairs = matches.pairs()
    found = list(zip(pairs.a.tolist(), pairs.b.tolist(), pairs.indexed.tolist(), strict=True))
    assert found == [(1, 12, True), (2, 3, False), (2, 30, True), (3, 30, True)]
    clusters = [(c.rows.tolist(), c.indexed.tolist()) for c in matches.clusters()]
    assert clusters == [([1], [12]), ([2, 3], [30])]


@pytest.mark.parametrize("rule", [Rule.lsh, Rule.paper])
def test_sketches_keyed_a_few_rows_at_a_time_match_the_same(batch, rule, monkeypatch):
    from mining import dedup

    def matched() -> list[tuple[int, int, bool]]:
        index = NearDuplicateIndex(DedupConfig(rule=rule))
        index.add([f"old{i}" for i in range(20)],
                  index.sketch([shingle_hashes(t) for t in batch[:20]]))
        pairs = index.match(index.sketch([shingle_hashes(t) for t in batch])).pairs()
        return list(zip(pairs.a.tolist(), pairs.b.tolist(), pairs.indexed.tolist(),
                        strict=True))

    whole = matched()
    monkeypatch.setattr(dedup, "_ROWS_AT_ONCE", 3)
    assert matched() == whole
    assert (9, 41, False) in whole and (5, 5, True) in whole


def paper_index() -> NearDuplicateIndex:
    return NearDuplicateIndex(DedupConfig(rule=Rule.paper))


def sets(*values: list[int]) -> list[np.ndarray]:
    return [np.array(v, dtype=np.uint64) for v in values]


def test_the_papers_rule_wants_4_of_the_8_smallest_hashes():
    big = list(range(1000, 1100))
    index = paper_index()
    shingles = sets(
        [1, 2, 3, 4, 5, 6, 7, 8, *big],  # 0
        [1, 2, 3, 4, 9, 10, 11, 12, *big],  # 1: 4 of 0's 8 -> duplicate of 0
        [1, 2, 3, 13, 14, 15, 16, 17, *big],  # 2: 3 of 0's 8, 3 of 1's 8 -> not
        [500, 501],  # 3: a tiny page
        [500, 501],  # 4: its copy -> duplicate
        [500, 501, 502],  # 5: a tiny page containing 3 -> not a duplicate of 3
    )
    matches = index.match(index.sketch(shingles))
    pairs = matches.pairs()
    found = list(zip(pairs.a.tolist(), pairs.b.tolist(), pairs.shared.tolist(), strict=True))
    assert found == [(0, 1, 4), (3, 4, 2)]
    # Broder's estimate: of the 8 smallest of the union (1..8 then 9..12 -> 1..8), 4 shared
    assert pairs.similarity.tolist() == [0.5, 1.0]


def test_the_papers_rule_against_an_index():
    index = paper_index()
    index.add(["a", "b"], index.sketch(sets(list(range(1, 30)), [700, 701])))
    matches = index.match(index.sketch(sets([1, 2, 3, 4, 50, 51, 52, 53], [700, 701], [7])))
    pairs = matches.pairs()
    assert list(zip(pairs.a.tolist(), pairs.b.tolist(), strict=True)) == [(0, 0), (1, 1)]
    assert pairs.indexed.all()


# --- saving, loading, refusing -----------------------------------------------------------


@pytest.fixture(scope="module")
def saved(tmp_path_factory, batch):
    path = tmp_path_factory.mktemp("index") / "index.npz"
    index = NearDuplicateIndex(DedupConfig(**MECHANICS, threshold=0.7, num_perm=64, seed=3))
    index.add([f"page-{i}-é" for i in range(40)],
              index.sketch([shingle_hashes(t) for t in batch[:40]]))
    index.save(path, {"inputs": ["x"]})
    return path, index


def test_an_index_loads_as_it_was_saved(saved, batch):
    path, index = saved
    loaded = NearDuplicateIndex.load(path)
    assert loaded.config == index.config and loaded.ids == index.ids
    assert np.array_equal(loaded.sketches, index.sketches)
    new = loaded.sketch([shingle_hashes(batch[40])])
    assert loaded.match(new).pairs().b.tolist() == index.match(new).pairs().b.tolist() == [5]
    paper = paper_index()
    paper.add(["x"], paper.sketch(sets([4, 5, 6])))
    paper.save(path.with_name("paper.npz"))
    assert NearDuplicateIndex.load(path.with_name("paper.npz")).config.rule is Rule.paper


def corruptions(good: Path) -> dict[str, bytes]:
    arrays = arrays_of(good)
    return {
        "random bytes": bytes(range(256)) * 8,
        "truncated": good.read_bytes()[: good.stat().st_size // 2],
        "no sketches": replaced(good, "sketches", None),
        "wrong width": replaced(good, "sketches", arrays["sketches"][:, :10]),
        "wrong type": replaced(good, "sketches", arrays["sketches"].astype(np.uint64)),
        "ids out of order": replaced(good, "id_ends", arrays["id_ends"][::-1].copy()),
        "ids not UTF-8": replaced(good, "id_bytes", np.full_like(arrays["id_bytes"], 0xFF)),
        "empty signature": replaced(good, "sketches", np.full_like(arrays["sketches"],
                                                                   0xFFFFFFFF)),
        "no parameters": with_header(good, parameters=None),
        "other tokenization": with_header(good, parameters={
            **json.loads(arrays["header"].tobytes())["parameters"], "tokens": "v0"}),
        "bad threshold": with_header(good, parameters={
            **json.loads(arrays["header"].tobytes())["parameters"], "threshold": 7}),
        "page count": with_header(good, pages=3),
        "other kind": with_header(good, kind="keyword ranker"),
        "other version": with_header(good, format_version=99),
        "no header": npz_bytes({"x": np.zeros(3)}),
        "a bare array": bare_array(),
    }


def bare_array() -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.zeros(3))
    return buffer.getvalue()


def test_corrupt_indexes_are_refused_naming_the_file(saved, tmp_path):
    path, _ = saved
    for name, data in corruptions(path).items():
        bad = tmp_path / f"{name.replace(' ', '-')}.npz"
        bad.write_bytes(data)
        with pytest.raises(ModelError) as raised:
            NearDuplicateIndex.load(bad)
        message = str(raised.value)
        assert message.startswith(f"{bad}: "), (name, message)
        assert "\n" not in message, name


def test_an_index_is_checked_before_its_parameters_cost_memory(saved, tmp_path, monkeypatch):
    path, _ = saved
    parameters = json.loads(arrays_of(path)["header"].tobytes())["parameters"]
    made = []
    monkeypatch.setattr("mining.dedup.MinHasher", lambda *args: made.append(args))
    huge = tmp_path / "huge.npz"
    huge.write_bytes(with_header(path, parameters={**parameters, "num_perm": 10**9,
                                                   "bands": 1, "rows": 1}))
    with pytest.raises(ModelError, match=r"damaged .* not \(pages, 1000000000\)"):
        NearDuplicateIndex.load(huge)
    assert made == []  # no permutations were drawn for it
    with pytest.raises(ValueError, match="more than 4096"):
        DedupConfig(rule="paper", keep=64, matches=32)
    paper = paper_index()
    paper.add(["x"], paper.sketch(sets([4, 5, 6])))
    paper.save(tmp_path / "paper.npz")
    wide = json.loads(arrays_of(tmp_path / "paper.npz")["header"].tobytes())["parameters"]
    bomb = tmp_path / "bomb.npz"
    bomb.write_bytes(with_header(tmp_path / "paper.npz",
                                 parameters={**wide, "keep": 64, "matches": 32}))
    with pytest.raises(ModelError, match="invalid parameters"):
        NearDuplicateIndex.load(bomb)


def test_an_index_refuses_other_parameters(saved):
    path, _ = saved
    assert NearDuplicateIndex.load(path, expect={"threshold": 0.7, "num_perm": 64, "seed": 3,
                                                 "shingle": 6, "denoise": "none"})
    for expect, words_in_message in (
        ({"shingle": 5}, "shingle 6, not 5"),
        ({"num_perm": 128}, "num_perm 64, not 128"),
        ({"threshold": 0.8}, "threshold 0.7, not 0.8"),
        ({"seed": 1}, "seed 3, not 1"),
        ({"denoise": "page"}, "denoise none, not page"),
        ({"rule": "paper"}, "rule lsh, not paper"),
    ):
        with pytest.raises(ModelError, match=words_in_message) as raised:
            NearDuplicateIndex.load(path, expect=expect)
        assert str(raised.value).startswith(f"{path}: ")


# --- the command line --------------------------------------------------------------------

OTHER_NAV = ('<div id="menu"><a href="/">Front page of the other daily paper</a> '
             '<a href="/sport">Sport results and fixtures from all leagues</a> '
             '<a href="/weather">Weather forecast for the coming week</a></div>')
OTHER_FOOTER = ('<div id="legal"><p>The Other Daily Paper 1999-2026, all rights reserved, '
                "reproduction prohibited without written permission.</p></div>")


def write_site(folder: Path, pages: list, names: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for page, name in zip(pages, names, strict=True):
        (folder / name).write_text(page.html, encoding="utf-8")


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """Two sites with different templates; b.com/copy.html carries a.com/p3.html's
    article, a.com/p7-again.html is a copy of a.com/p7.html; one page has no words and
    one cannot be read."""
    root = tmp_path_factory.mktemp("sites")
    a = [article_page(i, seed=0) for i in range(10)]
    write_site(root / "a.com", a, [f"p{i}.html" for i in range(10)])
    (root / "a.com" / "p7-again.html").write_text(a[7].html, encoding="utf-8")
    b = [article_page(i, seed=1, nav=OTHER_NAV, footer=OTHER_FOOTER, site="b.com")
         for i in range(10)]
    b.append(article_page(3, seed=0, nav=OTHER_NAV, footer=OTHER_FOOTER, site="b.com"))
    write_site(root / "b.com", b, [f"q{i}.html" for i in range(10)] + ["copy.html"])
    (root / "b.com" / "blank.html").write_text(
        "<html><body><p>&nbsp;--- * ---</p></body></html>", encoding="utf-8")
    (root / "b.com" / "binary.html").write_bytes(bytes(range(256)) * 4)
    return root


@pytest.mark.parametrize("mode", ["none", "page", "main"])
def test_word_hashes_worked_a_batch_at_a_time_are_each_pages_own(mode):
    from denoise.cleaning import Mode
    from denoise.errors import PageError
    from denoise.page import Page
    from mining.content import PageWords

    job = PageWords(Mode(mode))
    job.setup()
    # each mode's text as the detector and the extractor give it whole
    cleaner = job.cleaner
    text_of = {"none": None, "page": lambda page: cleaner.detector.score(page).content_text(),
               "main": lambda page: cleaner.extractor.extract(page)}[mode]
    pages = [article_page(i, seed=2) for i in range(5)]
    pages.insert(2, Page(id="empty.html", html=""))  # refused: no HTML
    many = job.many(pages)
    assert isinstance(many[2], PageError) and "empty.html" in str(many[2])
    for page, hashes in zip(pages, many, strict=True):
        if page.id != "empty.html":
            assert hashes.dtype == np.uint64 and len(hashes) > 20
            assert np.array_equal(hashes, job(page))
            if text_of is not None:
                assert np.array_equal(hashes, word_hashes(text_of(page)))


def summary(result) -> str:
    return result.stderr.strip().splitlines()[-1]


@pytest.mark.slow
def test_cli_clusters_and_summary(sites):
    result = run(["dedup", sites])
    assert result.exit_code == 0, result.stderr
    clusters = json_lines(result.stdout)
    assert [c["pages"] for c in clusters] == [["a.com/p7-again.html", "a.com/p7.html"]]
    assert clusters[0]["size"] == 2 and clusters[0]["similarity"] == 1.0
    line = summary(result)
    assert line.startswith("24 pages read, 22 sketched, 2 skipped (")
    assert "1 no words to shingle" in line and " pages/s; " in line
    assert "; 0 shorter than a shingle (shingled whole); 1 cluster holding 2 of these pages" \
        in line
    assert "binary.html" in result.stderr and "blank.html: no words to shingle" in result.stderr


def test_the_defaults_are_the_best_measured_configuration():
    # benchmarks/dedup.py --heldout: the paper's rule over the main content found 96% of
    # the copies across sites with no false pair; LSH over the whole text at 0.8, 5%
    from denoise.cleaning import DEFAULT_MODE, Mode

    config = DedupConfig()
    assert (config.rule, config.denoise) == (Rule.paper, Mode.main) and DEFAULT_MODE == "main"
    help_text = " ".join(run(["dedup", "--help"], defaults=True).stdout.replace("│", " ").split())
    assert "[default: main, or the --index's]" in help_text
    assert "[default: paper, or the --index's]" in help_text


@pytest.mark.slow
def test_cli_defaults_find_the_article_copied_into_another_sites_template(sites):
    # with no option: the main content of each page, the paper's rule; whole-text LSH
    # finds only the copy within one site
    found = run(["dedup", sites, "--pairs"], defaults=True)
    assert found.exit_code == 0, found.stderr
    pairs = {(pair["a"], pair["b"]) for pair in json_lines(found.stdout)}
    assert pairs == {("a.com/p3.html", "b.com/copy.html"),
                     ("a.com/p7-again.html", "a.com/p7.html")}
    whole_text = run(["dedup", sites, "--pairs"])
    assert {(pair["a"], pair["b"]) for pair in json_lines(whole_text.stdout)} == {
        ("a.com/p7-again.html", "a.com/p7.html")}


def test_cli_lsh_options_need_the_lsh_rule():
    result = run(["dedup", "nowhere", "--threshold", "0.5"], defaults=True)
    said = " ".join(result.stderr.replace("│", " ").split())  # the error box's lines joined
    assert result.exit_code == 2 and "--threshold belongs to --rule lsh" in said
    assert "the default rule is paper" in said


def test_cli_removing_the_template_finds_the_same_article_on_another_site(sites):
    result = run(["dedup", sites, "--pairs", "--denoise", "site"])
    assert result.exit_code == 0, result.stderr
    pairs = json_lines(result.stdout)
    assert pairs == [{"a": "a.com/p3.html", "b": "b.com/copy.html", "similarity": 1.0}]
    # the site-level method calls text on >= 10% of a site's pages template: the two
    # copies of p7 (2 of 11 pages) lose all their text, and are named and counted
    for name in ("p7.html", "p7-again.html"):
        assert f"skipped a.com/{name}: no words to shingle once its template is removed" \
            in result.stderr
    assert "4 skipped (3 no words to shingle, 1 binary data, not HTML)" in summary(result)
    assert "denoise site" in summary(result)


@pytest.mark.slow
@pytest.mark.parametrize("denoise", ["none", "page", "main"])
def test_cli_worker_processes_give_the_same_pairs(sites, denoise):
    one = run(["dedup", sites, "--pairs", "--denoise", denoise, "--jobs", "1"])
    two = run(["dedup", sites, "--pairs", "--denoise", denoise, "--jobs", "2"])
    assert one.exit_code == two.exit_code == 0, two.stderr
    assert one.stdout == two.stdout
    counts = [summary(r).split(";")[0::2] for r in (one, two)]  # without the times
    assert counts[0] == counts[1]
    assert run(["dedup", sites, "--denoise", "site", "--jobs", "2"]).exit_code == 2


@pytest.mark.slow
@pytest.mark.parametrize("options", [["--denoise", "page"], ["--rule", "paper", "--pairs"]])
def test_cli_other_modes_run(sites, options):
    result = run(["dedup", sites, *options])
    assert result.exit_code == 0, result.stderr
    records = json_lines(result.stdout)
    assert all(set(r) in ({"size", "pages", "similarity"}, {"a", "b", "similarity", "matches"})
               for r in records)
    assert " sketched, " in summary(result)


@pytest.mark.slow
def test_cli_saved_index_finds_a_copy_of_an_old_page_in_a_new_batch(sites, tmp_path):
    saved_index = tmp_path / "a.npz"
    first = run(["dedup", sites / "a.com", "--save-index", saved_index, "--threshold", "0.9"])
    assert first.exit_code == 0 and saved_index.is_file()
    assert f"index of 11 pages saved to {saved_index}" in summary(first)
    new = tmp_path / "new"
    new.mkdir()
    (new / "fresh.html").write_text(article_page(5, seed=9).html, encoding="utf-8")
    (new / "again.html").write_text((sites / "a.com" / "p4.html").read_text(),
                                    encoding="utf-8")
    grown = tmp_path / "grown.npz"
    result = run(["dedup", new, "--index", saved_index, "--save-index", grown])
    assert result.exit_code == 0, result.stderr
    assert json_lines(result.stdout) == [
        {"size": 2, "pages": ["again.html"], "similarity": 1.0, "indexed": ["p4.html"]}]
    assert "against 11 indexed pages" in summary(result)
    assert "threshold 0.9" in summary(result)  # the index's parameters
    pairs = run(["dedup", new, "--index", grown, "--pairs"])
    # the grown index holds the new batch too: each of its pages finds itself
    assert json_lines(pairs.stdout) == [
        {"a": "again.html", "b": "p4.html", "similarity": 1.0, "indexed": True},
        {"a": "again.html", "b": "again.html", "similarity": 1.0, "indexed": True},
        {"a": "fresh.html", "b": "fresh.html", "similarity": 1.0, "indexed": True}]


@pytest.mark.slow
def test_cli_refuses_an_index_made_otherwise_or_broken(sites, tmp_path):
    saved_index = tmp_path / "a.npz"
    assert run(["dedup", sites / "a.com", "--save-index", saved_index]).exit_code == 0
    result = run(["dedup", sites / "b.com", "--index", saved_index, "--shingle", "5"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: {saved_index}: made with other parameters: shingle 6, not 5 (compare like "
        "with like: use the index's parameters, or build a new one)")
    broken = tmp_path / "broken.npz"
    broken.write_bytes(saved_index.read_bytes()[:100])
    result = run(["dedup", sites / "b.com", "--index", broken])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {broken}: not a readable near-duplicate index")
    assert len(result.stderr.strip().splitlines()) == 1
    result = run(["dedup", sites, "--rule", "paper", "--threshold", "0.9"])
    assert result.exit_code == 2 and "--threshold belongs to --rule lsh" in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("seed", [-1, 2**32])
def test_a_seed_datasketch_cannot_use_is_refused(sites, seed, tmp_path):
    with pytest.raises(ValueError, match=r"seed must be in 0\.\.4294967295"):
        DedupConfig(**MECHANICS, seed=seed)
    result = run(["dedup", sites / "a.com", "--seed", seed])
    assert result.exit_code == 2 and "seed must be in 0..4294967295" in result.stderr
    # a saved index that claims such a seed is refused, naming the file
    saved_index = tmp_path / "a.npz"
    assert run(["dedup", sites / "a.com", "--save-index", saved_index]).exit_code == 0
    header = json.loads(arrays_of(saved_index)["header"].tobytes())
    broken = tmp_path / "seed.npz"
    broken.write_bytes(with_header(saved_index, parameters={**header["parameters"],
                                                              "seed": seed}))
    with pytest.raises(ModelError, match="invalid parameters") as raised:
        NearDuplicateIndex.load(broken)
    assert str(raised.value).startswith(f"{broken}: ")


def test_cli_nothing_to_compare_is_an_error(tmp_path):
    (tmp_path / "blank.html").write_text("<html><body>...</body></html>", encoding="utf-8")
    result = run(["dedup", tmp_path])
    assert result.exit_code == 1
    assert "error: no page had words to shingle" in result.stderr


def test_cli_short_pages_are_counted(tmp_path):
    for name, text in (("a.html", "Page not found"), ("b.html", "page NOT found!"),
                       ("c.html", "Page found")):
        (tmp_path / name).write_text(f"<html><body><p>{text}</p></body></html>",
                                     encoding="utf-8")
    result = run(["dedup", tmp_path, "--pairs"])
    assert json_lines(result.stdout) == [{"a": "a.html", "b": "b.html", "similarity": 1.0}]
    assert "3 pages read, 3 sketched, 0 skipped; " in summary(result)
    assert "; 3 shorter than a shingle (shingled whole)" in summary(result)


@pytest.mark.slow
def test_cli_reads_json_lines_and_names_pages_by_url(tmp_path):
    story = article_page(1, seed=4).html
    records = [{"url": "http://a.example/1", "html": story},
               {"url": "http://b.example/x", "html": article_page(2, seed=4).html},
               {"url": "http://c.example/copy", "html": story.replace("Story 1", "Story one")},
               "not an object"]
    pages = tmp_path / "pages.jsonl"
    pages.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    result = run(["dedup", pages, "--pairs", "--threshold", "0.7"])
    assert result.exit_code == 0, result.stderr
    [pair] = json_lines(result.stdout)
    assert (pair["a"], pair["b"]) == ("http://a.example/1", "http://c.example/copy")
    assert 0.7 <= pair["similarity"] < 1.0
    assert f"skipped {pages}:4: not a JSON object" in result.stderr


def test_version_without_an_installed_package_is_one_line_error(monkeypatch):
    import importlib.metadata

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    result = run(["version"])
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "error: webdenoise is not installed, so it has no version (pip install -e .)")


def test_an_index_made_with_other_denoising_models_is_refused(tmp_path):
    """Sketches of page-level text depend on the detector: an index records which."""
    config = DedupConfig(denoise="page")
    index = NearDuplicateIndex(config)
    index.add(["a.html"], index.sketch([np.arange(1, 20, dtype=np.uint64)]))
    path = tmp_path / "page.npz"
    index.save(path)
    assert NearDuplicateIndex.load(path).config == config
    parameters = json.loads(arrays_of(path)["header"].tobytes())["parameters"]
    assert parameters["denoise_models"].startswith("sha256:")
    other = tmp_path / "other-models.npz"
    other.write_bytes(with_header(path, parameters={**parameters,
                                                    "denoise_models": "sha256:0123456789abcdef"}))
    with pytest.raises(ModelError, match="denoise_models"):
        NearDuplicateIndex.load(other)


# --- mining dedup --resume ----------------------------------------------------------------


@pytest.fixture
def small_checkpoints(monkeypatch):
    """Sketch batches and checkpoints every 4 pages, so a short run has several."""
    from commands import mining_dedup as cli_dedup

    monkeypatch.setattr(cli_dedup, "_BATCH", 4)
    monkeypatch.setattr(cli_dedup, "CHECKPOINT_PAGES", 4)
    return cli_dedup


@pytest.mark.slow
def test_cli_resume_goes_on_where_an_interrupted_run_stopped(sites, tmp_path, monkeypatch,
                                                              small_checkpoints):
    whole = run(["dedup", sites, "--pairs", "-o", tmp_path / "whole.jsonl"])
    assert whole.exit_code == 0 and not (tmp_path / "whole.jsonl.sketches").exists()
    out = tmp_path / "pairs.jsonl"
    from engine import dedup as engine_dedup

    shingled = []
    original = engine_dedup.shingles_of_words

    def dying(words, k):
        if len(shingled) == 10:
            raise RuntimeError("killed")
        shingled.append(words)
        return original(words, k)

    monkeypatch.setattr(engine_dedup, "shingles_of_words", dying)
    with pytest.raises(RuntimeError, match="killed"):
        run(["dedup", sites, "--pairs", "-o", out])
    assert not out.exists() and (tmp_path / "pairs.jsonl.sketches" / "progress.json").exists()
    monkeypatch.setattr(engine_dedup, "shingles_of_words", original)
    shingled.clear()
    parsed = []
    from denoise.cleaning import Cleaner

    parse = Cleaner.parse
    monkeypatch.setattr(Cleaner, "parse",
                        lambda self, page: parsed.append(page.id) or parse(self, page))
    resumed = run(["dedup", sites, "--pairs", "-o", out, "--resume", "--jobs", "1"])
    assert resumed.exit_code == 0, resumed.stderr
    assert out.read_text() == (tmp_path / "whole.jsonl").read_text()
    # the 8 pages of the two checkpoints (and the skips among them) were not parsed again
    line = summary(resumed)
    done_before = int(line.split(", ")[1].split()[0])
    assert line.startswith(f"{24 - done_before} pages read, {done_before} done by an earlier run")
    assert done_before >= 8 and len(parsed) == 24 - done_before - 1  # binary.html: unread
    assert not (tmp_path / "pairs.jsonl.sketches").exists()


@pytest.mark.slow
def test_cli_resume_refuses_other_options_missing_state_and_standard_output(sites, tmp_path,
                                                                           small_checkpoints):
    out = tmp_path / "pairs.jsonl"
    state = tmp_path / "pairs.jsonl.sketches"
    nothing = run(["dedup", sites, "-o", out, "--resume"])
    assert nothing.exit_code == 2 and "nothing to resume" in nothing.stderr
    state.mkdir()
    (state / "progress.json").write_text(json.dumps({
        "settings": {"command": "mining dedup"}, "parts": 0, "items": 0, "short": 0,
        "skipped": {}}))
    other = run(["dedup", sites, "-o", out, "--resume", "--shingle", "4"])
    assert other.exit_code == 2 and "other inputs or options" in other.stderr
    (state / "progress.json").write_text("{not json")
    corrupt = run(["dedup", sites, "-o", out, "--resume"])
    assert corrupt.exit_code == 2 and "unreadable progress file" in corrupt.stderr
    assert len(corrupt.stderr.strip().splitlines()) == 1
    assert run(["dedup", sites, "--resume"]).exit_code == 2  # standard output
    assert run(["dedup", sites, "-o", out, "--resume", "--denoise", "site"]).exit_code == 2
    fresh = run(["dedup", sites, "-o", out])  # without --resume: starts again
    assert fresh.exit_code == 0 and out.exists() and not state.exists()
