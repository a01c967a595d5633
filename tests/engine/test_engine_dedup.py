"""``engine.dedup.find_duplicates``: the pipeline of ``mining dedup`` called from Python finds
what the command writes, tells what it skips, resumes an interrupted run from its
checkpoint, and leaves no temporary files behind."""

import json
import tempfile

import pytest
from sitegen import article_page
from typer.testing import CliRunner

from commands.mining import app
from denoise.errors import PageError, ResumeError
from denoise.reader import Skipped
from engine.dedup import NO_WORDS, find_duplicates
from mining.dedup import DedupConfig, NearDuplicateIndex, Rule

runner = CliRunner()
LSH_FULLTEXT = DedupConfig(rule="lsh", denoise="none")
ITEMS = 16  # files in the folder of pages


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """tempfile's folder, watched: where a run keeps its sketches."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """12 articles of one site, a copy of p4, p7 with a sentence more, a page without
    words and one that is not HTML."""
    folder = tmp_path_factory.mktemp("pages")
    for i in range(12):
        (folder / f"p{i}.html").write_text(article_page(i, seed=5).html, encoding="utf-8")
    (folder / "again.html").write_text(article_page(4, seed=5).html, encoding="utf-8")
    (folder / "edited.html").write_text(article_page(
        7, seed=5, extra="<p>One more sentence of seven words here.</p>").html, encoding="utf-8")
    (folder / "blank.html").write_text("<html><body><p>&nbsp;--- * ---</p></body></html>",
                                       encoding="utf-8")
    (folder / "binary.html").write_bytes(bytes(range(256)) * 4)
    return folder


def command(*args: object) -> list[dict]:
    """``mining dedup ARGS --jobs 1``: its JSON lines."""
    result = runner.invoke(app, ["dedup", *(str(a) for a in args), "--jobs", "1"])
    assert result.exit_code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.slow
@pytest.mark.parametrize(("config", "options"), [
    (DedupConfig(), ()), (LSH_FULLTEXT, ("--rule", "lsh", "--denoise", "none"))],
    ids=["defaults", "lsh-fulltext"])
def test_it_finds_the_pairs_and_clusters_mining_dedup_writes(pages, private_tmp, config,
                                                             options):
    skipped, empty = [], []
    with find_duplicates([str(pages)], config, jobs=1, on_skip=skipped.append,
                         on_empty=empty.append) as found:
        pairs = list(found.pairs())
        clusters = list(found.clusters())
        ids = list(found.ids)
    paper = config.rule is Rule.paper
    assert [{"a": p.a, "b": p.b, "similarity": round(p.similarity, 4),
             **({"matches": p.shared} if paper else {})} for p in pairs] \
        == command(pages, "--pairs", *options)
    assert [{"size": c.size, "pages": c.pages, "similarity": round(c.similarity, 4)}
            for c in clusters] == command(pages, *options)
    assert ("again.html", "p4.html") in {(p.a, p.b) for p in pairs}
    assert not any(p.indexed for p in pairs)
    # what was skipped: told in input order, and kept with the reasons
    assert [type(item) for item in skipped] == [Skipped] and "binary.html" in str(skipped[0])
    assert empty == ["blank.html"]
    assert skipped[0] in found.skipped and len(found.skipped) == 2
    assert [(e.source, e.reason) for e in found.skipped if isinstance(e, PageError)] \
        == [("blank.html", NO_WORDS)]
    assert len(ids) == ITEMS - 2 and found.resumed_items == found.resumed_pages == 0
    assert list(private_tmp.iterdir()) == []  # the sketch files went with the block


def test_an_interrupted_run_resumes_from_its_checkpoint(pages, tmp_path, private_tmp):
    with find_duplicates([str(pages)], LSH_FULLTEXT, jobs=1) as found:
        whole, ids = list(found.pairs()), list(found.ids)
    checkpoint = tmp_path / "run.sketches"
    small = {"jobs": 1, "checkpoint": checkpoint, "batch_pages": 2, "checkpoint_pages": 2}
    worked = []

    def interrupted() -> None:
        worked.append(1)
        if len(worked) == 9:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), find_duplicates([str(pages)], LSH_FULLTEXT,
                                                           on_page=interrupted, **small):
        pytest.fail("the run was to be interrupted")
    assert (checkpoint / "progress.json").exists() and list(private_tmp.iterdir()) == []
    worked.clear()
    with find_duplicates([str(pages)], LSH_FULLTEXT, resume=True,
                         on_page=lambda: worked.append(1), **small) as found:
        assert list(found.pairs()) == whole and list(found.ids) == ids
        assert found.resumed_pages >= 4 and found.resumed_items > found.resumed_pages
        # the items the first run did are not read again, nor their skips told again
        assert len(worked) == ITEMS - found.resumed_items and found.skipped == []
        assert checkpoint.exists()
    assert not checkpoint.exists()  # the block ended well: nothing left to resume


def test_the_checkpoint_stays_when_the_block_fails(pages, tmp_path):
    checkpoint = tmp_path / "run.sketches"
    with pytest.raises(RuntimeError, match="cannot write"), find_duplicates(
            [str(pages)], LSH_FULLTEXT, jobs=1, checkpoint=checkpoint):
        raise RuntimeError("cannot write the output")
    with find_duplicates([str(pages)], LSH_FULLTEXT, jobs=1, checkpoint=checkpoint,
                         resume=True) as found:
        assert found.resumed_items == ITEMS and found.resumed_pages == ITEMS - 2
        assert found.skipped == [] and found.short == 0
        assert ("again.html", "p4.html") in {(p.a, p.b) for p in found.pairs()}


def test_a_batch_remembered_in_an_index_is_found_there(pages):
    index = NearDuplicateIndex(LSH_FULLTEXT)
    with find_duplicates([str(pages)], index=index, jobs=1) as found:
        index.add(list(found.ids), found.sketches())
        ids = list(found.ids)
    with find_duplicates([str(pages)], index=index, jobs=1) as again:
        indexed = {(p.a, p.b) for p in again.pairs() if p.indexed}
        clusters = list(again.clusters())
    assert {(page_id, page_id) for page_id in ids} <= indexed
    assert all(cluster.indexed for cluster in clusters)
    assert sum(len(cluster.indexed) for cluster in clusters) == len(ids)


def test_what_cannot_run_is_refused(pages, tmp_path):
    def enter(*args, **kwargs):
        with find_duplicates([str(pages)], *args, **kwargs):
            pass

    with pytest.raises(ValueError, match="one process"):
        enter(DedupConfig(denoise="site"), jobs=2)
    with pytest.raises(ValueError, match="one process"):
        enter(DedupConfig(denoise="site"), checkpoint=tmp_path / "site.sketches")
    with pytest.raises(ValueError, match="checkpoint folder"):
        enter(LSH_FULLTEXT, resume=True)
    with pytest.raises(ValueError, match="not the index's"):
        enter(LSH_FULLTEXT, index=NearDuplicateIndex(DedupConfig()))
    with pytest.raises(ValueError, match="jobs must be at least 1"):
        enter(LSH_FULLTEXT, jobs=0)
    with pytest.raises(ResumeError, match="nothing to resume"):
        enter(LSH_FULLTEXT, jobs=1, checkpoint=tmp_path / "none.sketches", resume=True)


def test_a_batch_without_words_has_no_matches(tmp_path):
    (tmp_path / "blank.html").write_text("<html><body>...</body></html>", encoding="utf-8")
    with find_duplicates([str(tmp_path)], LSH_FULLTEXT, jobs=1) as found:
        assert found.matches() is None and list(found.pairs()) == []
        assert list(found.clusters()) == [] and len(found.ids) == 0
        assert [str(item) for item in found.skipped] == [f"blank.html: {NO_WORDS}"]
