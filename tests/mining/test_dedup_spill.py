"""``mining dedup`` on disk: sketches, ids and keys in bucket files of a private temporary
folder, matched one bucket at a time, give the in-memory index's matches; the folder
goes at the end, after an error too."""

import tempfile
from pathlib import Path

import numpy as np
import pytest
from sitegen import article_page
from test_dedup import MECHANICS, json_lines, near_copy, prose, run

from mining import buckets, sketchfiles, spill
from mining.banding import equal_runs
from mining.content import PageWords
from mining.dedup import DedupConfig, NearDuplicateIndex, Rule, identical_copies
from mining.matches import Matches
from mining.shingles import shingle_hashes, shingles_of_words


def spilled(index: NearDuplicateIndex, ids: list[str], sketches: np.ndarray,
            step: int = 7) -> tuple[Matches, list[str], list[str]]:
    """Match ``sketches`` through sketch files, added ``step`` rows at a time; the
    matches, the ids read back, and the bucket files that were written."""
    with spill.sketch_files(index) as files:
        for low in range(0, len(ids), step):
            files.add(ids[low:low + step], sketches[low:low + step])
        matches = spill.match_files(index, files)
        read = [files.ids[row] for row in range(len(files))]
        written = sorted(path.name for path in files.folder.iterdir())
    assert not files.folder.exists()
    return matches, read, written


def same_matches(disk: Matches, memory: Matches) -> None:
    one, other = disk.pairs(), memory.pairs()
    for column in ("a", "b", "indexed", "similarity", "shared"):
        assert np.array_equal(getattr(one, column), getattr(other, column)), column
    assert [(c.rows.tolist(), c.indexed.tolist(), c.similarity) for c in disk.clusters()] \
        == [(c.rows.tolist(), c.indexed.tolist(), c.similarity) for c in memory.clusters()]


@pytest.fixture(scope="module")
def real_words(dev_site_pages):
    """Real news pages' word hashes, with planted copies and near-copies of some."""
    job = PageWords("none")
    job.setup()
    words = [(page.id, job(page)) for page in dev_site_pages[:150]]
    words = [(page_id, w) for page_id, w in words if w.size]
    planted = [(f"copy-of-{page_id}", w) for page_id, w in words[:150:10]]
    planted += [(f"edited-{page_id}", np.r_[w[:-3], w[-1:]]) for page_id, w in words[5:60:9]]
    return words + planted + words[:3]  # and three pages seen twice under the same id


@pytest.mark.parametrize(("rule", "options"), [
    (Rule.lsh, {}), (Rule.lsh, {"threshold": 0.5}), (Rule.paper, {})])
def test_spilled_matches_are_the_in_memory_ones_on_real_pages(real_words, rule, options):
    config = DedupConfig(rule=rule, **options)
    index = NearDuplicateIndex(config)
    ids = [page_id for page_id, _ in real_words]
    sketches = index.sketch([shingles_of_words(w, config.shingle) for _, w in real_words])
    memory = index.match(sketches)
    disk, read, written = spilled(index, ids, sketches)
    same_matches(disk, memory)
    assert read == ids
    assert len(memory.pairs()) > 20 and len(memory.clusters()) > 10
    # the keys were spread over many bucket files, each joined alone
    assert sum(name.startswith("band-") for name in written) > 100
    assert sum(name.startswith("whole-") for name in written) > 50
    # and the matches only hold the rows that matched something
    assert disk.rows is not None and len(disk.rows) < len(ids)


@pytest.mark.parametrize("rule", [Rule.lsh, Rule.paper])
def test_spilled_matches_against_an_index(real_words, rule):
    index = NearDuplicateIndex(DedupConfig(rule=rule))
    sketches = index.sketch([shingles_of_words(w, 6) for _, w in real_words])
    index.add([f"old{i}" for i in range(60)], sketches[40:100])
    ids = [page_id for page_id, _ in real_words]
    memory = index.match(sketches)
    disk, _, _ = spilled(index, ids, sketches, step=50)
    same_matches(disk, memory)
    assert memory.index.indexed.all() and len(memory.index) >= 60


def test_buckets_flush_often_and_keep_rows_ascending(real_words, monkeypatch):
    monkeypatch.setattr(buckets, "FLUSH_ENTRIES", 64)
    index = NearDuplicateIndex(DedupConfig(**MECHANICS, threshold=0.5))
    ids = [page_id for page_id, _ in real_words]
    sketches = index.sketch([shingles_of_words(w, 6) for _, w in real_words])
    disk, _, _ = spilled(index, ids, sketches, step=3)
    same_matches(disk, index.match(sketches))
    with spill.sketch_files(index) as files:
        files.add(ids, sketches)
        seen = 0
        for keys, rows in files.bands.buckets():
            assert np.all(np.diff(rows) >= 0)
            assert len(np.unique(keys >> np.uint64(64 - buckets.BUCKET_BITS))) == 1
            seen += len(keys)
        assert seen == len(ids) * index.config.bands


def test_a_whole_key_collision_collapses_nothing_on_disk_either(batch_sketches, monkeypatch):
    """Every sketch given one whole key: copies cannot be trusted, none are collapsed,
    and the join still finds every pair (as the in-memory match does)."""
    from mining import dedup

    def one_key(sketches):
        return np.zeros(len(sketches), dtype=np.uint64)

    index, ids, sketches = batch_sketches
    monkeypatch.setattr(dedup, "whole_keys", one_key)
    monkeypatch.setattr(sketchfiles, "whole_keys", one_key)
    assert identical_copies(one_key(sketches), np.arange(len(ids)), sketches) is None
    memory = index.match(sketches)
    assert np.array_equal(memory.representative, np.arange(len(ids)))
    disk, _, _ = spilled(index, ids, sketches)
    same_matches(disk, memory)
    assert [(p.tolist()) for p in (disk.pairs().a, disk.pairs().b)] == [[5, 9], [40, 41]]


@pytest.fixture
def batch_sketches():
    texts = [prose(100 + i, 300) for i in range(40)]
    texts += [near_copy(texts[5], 3), texts[9]]
    index = NearDuplicateIndex(DedupConfig(**MECHANICS))
    return index, [f"t{i}" for i in range(len(texts))], index.sketch(
        [shingle_hashes(t) for t in texts])


@pytest.mark.slow
def test_copies_of_a_sketch_are_one_row_in_the_buckets_joins(batch_sketches, monkeypatch):
    """A page seen 60 times costs one row in the join (not 1,770 candidate pairs), and
    its copies are spelled out afterwards as in memory."""
    index, ids, sketches = batch_sketches
    sketches = np.concatenate([sketches, np.repeat(sketches[3:4], 60, axis=0)])
    ids = ids + [f"again{i}" for i in range(60)]
    joined = []
    pairs_of_keys = index.pairs_of_keys

    def watched(keys, rows, at):
        joined.extend(rows.tolist())
        return pairs_of_keys(keys, rows, at)

    monkeypatch.setattr(index, "pairs_of_keys", watched)
    disk, _, _ = spilled(index, ids, sketches)
    assert 3 in joined and not set(joined) & set(range(42, 102))
    same_matches(disk, index.match(sketches))
    assert len(disk.pairs()) == 2 + 61 * 60 // 2


def test_equal_runs_pair_each_later_row_with_the_first():
    later, first = equal_runs(np.array([5, 3, 5, 9, 3, 5], dtype=np.uint64),
                              np.array([10, 11, 12, 13, 14, 15]))
    assert sorted(zip(later.tolist(), first.tolist(), strict=True)) == [
        (12, 10), (14, 11), (15, 10)]
    assert equal_runs(np.empty(0, dtype=np.uint64), np.empty(0))[0].size == 0


def test_page_ids_read_back_exactly(batch_sketches):
    index, _, sketches = batch_sketches
    ids = ["a.html", "ü/ß 😀.html", "", "x" * 3000, "bad\udcff.html"]
    with spill.sketch_files(index) as files:
        files.add(ids[:2], sketches[:2])
        files.add([], sketches[:0])
        files.add(ids[2:], sketches[2:5])
        assert files.ids.tolist() == ids and len(files.ids) == 5
        assert np.array_equal(files.sketches(), sketches[:5])
        assert np.array_equal(files.read_sketches(), sketches[:5])
        with pytest.raises(IndexError, match=r"page row 5 out of 0\.\.4"):
            files.ids[5]
        with pytest.raises(ValueError, match=r"2 ids need a \(2, 128\) uint32"):
            files.add(["a", "b"], sketches[:3])


# --- the command line: the temporary folder ------------------------------------------------


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """tempfile's folder, watched: the folders runs made there."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def pages(tmp_path) -> Path:
    folder = tmp_path / "pages"
    folder.mkdir()
    for i in range(12):
        (folder / f"p{i}.html").write_text(article_page(i, seed=3).html, encoding="utf-8")
    (folder / "again.html").write_text(article_page(4, seed=3).html, encoding="utf-8")
    return folder


@pytest.mark.slow
def test_cli_sketches_on_disk_and_removes_them(pages, private_tmp, monkeypatch):
    seen = []
    match_files = spill.match_files

    def watched(index, files):
        assert files.folder.parent == private_tmp
        matches = match_files(index, files)
        seen.append(sorted(path.name for path in files.folder.iterdir()))
        return matches

    from engine import dedup as engine_dedup

    monkeypatch.setattr(engine_dedup, "match_files", watched)
    result = run(["dedup", pages, "--pairs"])
    assert result.exit_code == 0, result.stderr
    assert json_lines(result.stdout) == [{"a": "again.html", "b": "p4.html",
                                          "similarity": 1.0}]
    [names] = seen
    assert {"sketches.bin", "ids.bin", "id-ends.bin"} <= set(names)
    assert any(name.startswith("band-") for name in names)
    assert list(private_tmp.iterdir()) == []


@pytest.mark.parametrize("error", [RuntimeError("killed"), KeyboardInterrupt()])
def test_cli_removes_its_sketches_after_an_error(pages, private_tmp, monkeypatch, error,
                                                 tmp_path):
    from commands import mining_dedup as cli_dedup
    from engine import dedup as engine_dedup

    made = []
    original = engine_dedup.shingles_of_words

    def dying(words, k):
        made.extend(private_tmp.iterdir())
        if len(made) > 3:
            raise error
        return original(words, k)

    monkeypatch.setattr(cli_dedup, "_BATCH", 2)
    monkeypatch.setattr(engine_dedup, "shingles_of_words", dying)
    args = ["dedup", pages, "-o", tmp_path / "out.jsonl", "--jobs", "1"]
    if isinstance(error, KeyboardInterrupt):  # typer stops: exit code 130
        assert run(args).exit_code == 130
    else:
        with pytest.raises(RuntimeError, match="killed"):
            run(args)
    assert made and list(private_tmp.iterdir()) == []
    assert not (tmp_path / "out.jsonl").exists()


def test_cli_removes_its_sketches_when_nothing_had_words(private_tmp, tmp_path):
    (tmp_path / "blank.html").write_text("<html><body>...</body></html>", encoding="utf-8")
    result = run(["dedup", tmp_path / "blank.html"])
    assert result.exit_code == 1 and "no page had words" in result.stderr
    assert list(private_tmp.iterdir()) == []


@pytest.mark.slow
def test_cli_save_index_from_disk_equals_the_in_memory_index(pages, tmp_path):
    saved = tmp_path / "pages.npz"
    assert run(["dedup", pages, "--save-index", saved]).exit_code == 0
    loaded = NearDuplicateIndex.load(saved)
    config = loaded.config
    names = sorted(path.name for path in pages.iterdir())
    assert sorted(loaded.ids) == names and len(loaded) == 13
    again = run(["dedup", pages, "--index", saved, "--pairs"])
    assert again.exit_code == 0
    found = json_lines(again.stdout)
    assert {(r["a"], r["b"]) for r in found if r["indexed"]} >= {(n, n) for n in names}
    assert config == DedupConfig(**MECHANICS)
