"""``denoise site --resume``: an interrupted run continues site by site to the same output."""

import json
import sqlite3
from collections import defaultdict

import pytest
from typer.testing import CliRunner

from commands import denoise as cli
from engine import site_progress

runner = CliRunner()
SITES = 5
PAGES = 6  # of each site


@pytest.fixture(scope="module")
def inputs(dev_site_pages, tmp_path_factory):
    """Real pages of five news sites, as a folder of site folders (given site by site)
    and as JSON lines whose sites take turns (interleaved)."""
    by_site = defaultdict(list)
    for page in dev_site_pages:
        by_site[page.site.rsplit("/", 1)[-1]].append(page)
    chosen = [site for site, pages in by_site.items() if len(pages) >= PAGES][:SITES]
    assert len(chosen) == SITES
    root = tmp_path_factory.mktemp("sites")
    for site in chosen:
        (root / "grouped" / site).mkdir(parents=True)
        for number, page in enumerate(by_site[site][:PAGES]):
            (root / "grouped" / site / f"{number}.html").write_text(page.html, encoding="utf-8")
    lines = [json.dumps({"url": f"http://{site}/{number}.html", "html": by_site[site][number].html})
             for number in range(PAGES) for site in chosen]
    (root / "interleaved.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"grouped": root / "grouped", "interleaved": root / "interleaved.jsonl"}


def site(args, **kwargs):
    result = runner.invoke(cli.app, ["site", *map(str, args)], **kwargs)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture(scope="module")
def complete(inputs, tmp_path_factory):
    """Each input's uninterrupted run: its output bytes and its report."""
    runs = {}
    for kind, path in inputs.items():
        out = tmp_path_factory.mktemp("complete") / "blocks.jsonl"
        result = site([path, "-o", out, "--json", "--jobs", "1"])
        assert result.exit_code == 0, result.output
        runs[kind] = out.read_bytes(), result.stdout
    return runs


def interrupt_after(monkeypatch, sites):
    """Make a run stop (Ctrl-C) as the first page of the site after ``sites`` is written."""
    block_lines, seen = cli._block_lines, []

    def lines(page, method):
        if page.page.site not in seen:
            seen.append(page.page.site)
        if len(seen) > sites:
            raise KeyboardInterrupt
        return block_lines(page, method)

    monkeypatch.setattr(cli, "_block_lines", lines)
    return lambda: monkeypatch.setattr(cli, "_block_lines", block_lines)


def count_segmented(monkeypatch):
    """The pages given to be segmented and labelled (every page label_sites is given)."""
    segmented, label_sites = [], cli.label_sites

    def counting(pages, *args, **kwargs):
        def seen():
            for page in pages:
                segmented.append(page)
                yield page

        return label_sites(seen(), *args, **kwargs)

    monkeypatch.setattr(cli, "label_sites", counting)
    return segmented


def progress_lines(out):
    return out.with_name(out.name + ".progress").read_text(encoding="utf-8").splitlines()


def interrupted_run(monkeypatch, path, out, sites=2, *options):
    restore = interrupt_after(monkeypatch, sites)
    result = site([path, "-o", out, "--jobs", "1", *options])
    restore()
    assert result.exit_code == 130, result.output
    assert "interrupted" in result.stderr and "--resume" in result.stderr
    assert not out.exists()
    return [json.loads(line)["site"] for line in progress_lines(out)[1:]]


@pytest.mark.parametrize("kind", ["grouped", "interleaved"])
def test_an_interrupted_run_resumes_to_the_same_bytes(kind, inputs, complete, tmp_path,
                                                      monkeypatch):
    out = tmp_path / "blocks.jsonl"
    done = interrupted_run(monkeypatch, inputs[kind], out)
    assert len(done) == 2
    segmented = count_segmented(monkeypatch)
    result = site([inputs[kind], "-o", out, "--resume", "--json", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == complete[kind][0]
    assert result.stdout == complete[kind][1]  # the report covers the earlier run's sites
    # the pages of the sites done before are not parsed again; all the others are
    assert {page.site for page in segmented}.isdisjoint(done)
    assert len(segmented) == (SITES - 2) * PAGES
    summary = result.stderr.strip().splitlines()[-1]
    assert summary.startswith(f"{(SITES - 2) * PAGES} pages read, {2 * PAGES} done by an "
                              f"earlier run, {(SITES - 2) * PAGES} labelled, 0 skipped")
    assert f"{SITES} sites" in summary
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocks.jsonl"]


def test_resume_on_worker_processes(inputs, complete, tmp_path, monkeypatch):
    out = tmp_path / "blocks.jsonl"
    assert len(interrupted_run(monkeypatch, inputs["grouped"], out, 3)) == 3
    result = site([inputs["grouped"], "-o", out, "--resume", "--jobs", "2"])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == complete["grouped"][0]


def test_a_torn_last_progress_line_and_output_past_it(inputs, complete, tmp_path, monkeypatch):
    out = tmp_path / "blocks.jsonl"
    first, second = interrupted_run(monkeypatch, inputs["interleaved"], out)
    progress = out.with_name("blocks.jsonl.progress")
    data = progress.read_bytes()
    progress.write_bytes(data[:-20])  # killed while the second site's line was written
    with out.with_name("blocks.jsonl.partial").open("a", encoding="utf-8") as partial:
        partial.write('{"page": "half a li')
    segmented = count_segmented(monkeypatch)
    result = site([inputs["interleaved"], "-o", out, "--resume", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == complete["interleaved"][0]
    sites = {page.site for page in segmented}
    assert second in sites and first not in sites


def test_resume_twice(inputs, complete, tmp_path, monkeypatch):
    out = tmp_path / "blocks.jsonl"
    assert len(interrupted_run(monkeypatch, inputs["interleaved"], out, 1)) == 1
    restore = interrupt_after(monkeypatch, 2)  # one more site, counted from the resumed run
    result = site([inputs["interleaved"], "-o", out, "--resume", "--jobs", "1"])
    restore()
    assert result.exit_code == 130, result.output
    assert len(progress_lines(out)) == 1 + 3
    result = site([inputs["interleaved"], "-o", out, "--resume", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == complete["interleaved"][0]


def test_resume_with_other_options_is_refused_and_keeps_the_run(inputs, tmp_path, monkeypatch):
    out = tmp_path / "blocks.jsonl"
    interrupted_run(monkeypatch, inputs["grouped"], out)
    before = sorted((p.name, p.stat().st_size) for p in tmp_path.iterdir())
    for other in (["--theta", "0.2"], ["--site", "one"], ["--method", "shingle"]):
        result = site([inputs["grouped"], "-o", out, "--resume", *other])
        assert result.exit_code == 2, other
        assert "other inputs or options" in result.stderr and str(out) in result.stderr
    result = site([inputs["interleaved"], "-o", out, "--resume"])
    assert result.exit_code == 2
    assert sorted((p.name, p.stat().st_size) for p in tmp_path.iterdir()) == before


def test_nothing_to_resume(inputs, tmp_path):
    out = tmp_path / "blocks.jsonl"
    result = site([inputs["grouped"], "-o", out, "--resume"])
    assert result.exit_code == 2
    assert "nothing to resume" in result.stderr and str(out) in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_unreadable_progress_file_is_refused(inputs, tmp_path, monkeypatch):
    out = tmp_path / "blocks.jsonl"
    interrupted_run(monkeypatch, inputs["grouped"], out)
    # denoise apply's progress file (one JSON object) is not this command's
    out.with_name("blocks.jsonl.progress").write_text('{"items": 3, "bytes": 10}')
    result = site([inputs["grouped"], "-o", out, "--resume"])
    assert result.exit_code == 2
    assert "unreadable progress file" in result.stderr


def test_progress_recording_more_than_the_partial_holds(inputs, tmp_path, monkeypatch):
    out = tmp_path / "blocks.jsonl"
    interrupted_run(monkeypatch, inputs["grouped"], out)
    partial = out.with_name("blocks.jsonl.partial")
    partial.write_bytes(partial.read_bytes()[:100])
    result = site([inputs["grouped"], "-o", out, "--resume"])
    assert result.exit_code == 2
    assert "records more output than" in result.stderr


@pytest.mark.parametrize("out", [None, "-"])
def test_resume_needs_an_output_file(inputs, out):
    result = site([inputs["grouped"], "--resume", *(["-o", out] if out else [])])
    assert result.exit_code == 2
    assert "--resume needs --out FILE" in result.output


def test_resume_is_refused_on_spark(inputs, tmp_path):
    result = site([inputs["grouped"], "-o", tmp_path / "b.jsonl", "--resume", "--engine",
                   "spark"])
    assert result.exit_code == 2
    assert "--resume is for --engine embedded" in result.output


def test_a_new_run_replaces_an_interrupted_one(inputs, complete, tmp_path, monkeypatch):
    out = tmp_path / "blocks.jsonl"
    interrupted_run(monkeypatch, inputs["grouped"], out)
    result = site([inputs["grouped"], "-o", out, "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == complete["grouped"][0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocks.jsonl"]


def store_rows(db):
    with sqlite3.connect(db) as connection:
        return [connection.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()
                for table in ("seen", "df")]


def test_resume_with_a_store(inputs, complete, tmp_path, monkeypatch):
    out, db = tmp_path / "blocks.jsonl", tmp_path / "counts.sqlite"
    whole = tmp_path / "whole.sqlite"
    result = site([inputs["interleaved"], "-o", tmp_path / "whole.jsonl", "--db", whole,
                   "--jobs", "1"])
    assert result.exit_code == 0, result.output
    monkeypatch.setattr(site_progress, "CHECKPOINT_SECONDS", 1e9)
    # sites saved only every CHECKPOINT_PAGES pages: an interrupt before the first save
    # leaves no site done, and the store as it was (its transaction may end mid-page)
    assert interrupted_run(monkeypatch, inputs["interleaved"], out, 2, "--db", db) == []
    assert store_rows(db) == [[], []]
    monkeypatch.setattr(site_progress, "CHECKPOINT_PAGES", 1)  # a save at every site
    done = interrupted_run(monkeypatch, inputs["interleaved"], out, 2, "--db", db)
    assert len(done) == 2
    segmented = count_segmented(monkeypatch)
    result = site([inputs["interleaved"], "-o", out, "--resume", "--db", db, "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert {page.site for page in segmented}.isdisjoint(done)
    assert out.read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
    assert store_rows(db) == store_rows(whole)
    # a store's labels are a fresh run's (nothing was stored before it)
    assert out.read_bytes() == complete["interleaved"][0]


def test_input_not_grouped_by_site_leaves_nothing_to_resume(inputs, tmp_path):
    """A folder whose site comes back fails, and a resumed run could only leave the
    returning pages out: the failed run keeps no progress to resume."""
    import shutil

    sites = sorted(p for p in inputs["grouped"].iterdir())
    for number, source in enumerate([sites[0], sites[1], sites[0]]):
        shutil.copytree(source, tmp_path / f"d{number}" / source.name)
    out = tmp_path / "blocks.jsonl"
    folders = [tmp_path / f"d{number}" for number in range(3)]
    result = site([*folders, "-o", out, "--jobs", "1"])
    assert result.exit_code == 2
    assert "not grouped by site" in result.stderr
    assert "give each site's pages together, or one --site" in result.stderr
    assert not out.exists() and not list(tmp_path.glob("blocks.jsonl.*"))
    result = site([*folders, "-o", out, "--resume", "--jobs", "1"])
    assert result.exit_code == 2 and "nothing to resume" in result.stderr


def test_an_interrupt_while_saving_keeps_the_run_resumable(inputs, complete, tmp_path,
                                                          monkeypatch):
    """Ctrl-C just after a save's progress lines reach the file: the run's own closing
    save must not write them again (a resumed run would refuse the repeated line)."""
    out = tmp_path / "blocks.jsonl"
    monkeypatch.setattr(site_progress, "CHECKPOINT_PAGES", 1)  # a save at every site
    save = site_progress.SiteProgress.save

    def interrupted_save(self):
        if not self._pending:
            return
        flush = self._log.flush

        def flush_then_stop():
            flush()
            raise KeyboardInterrupt

        self._log.flush = flush_then_stop
        try:
            save(self)
        finally:
            self._log.flush = flush
            monkeypatch.setattr(site_progress.SiteProgress, "save", save)

    monkeypatch.setattr(site_progress.SiteProgress, "save", interrupted_save)
    result = site([inputs["grouped"], "-o", out, "--jobs", "1"])
    assert result.exit_code == 130, result.output
    assert len(progress_lines(out)) == 1 + 1
    result = site([inputs["grouped"], "-o", out, "--resume", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == complete["grouped"][0]


@pytest.mark.spark
def test_a_spark_run_replaces_an_interrupted_one(spark, inputs, complete, tmp_path,
                                                 monkeypatch):
    out = tmp_path / "blocks.jsonl"
    interrupted_run(monkeypatch, inputs["interleaved"], out, 2, "--json")
    result = site([inputs["interleaved"], "-o", out, "--json", "--engine", "spark"])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == complete["interleaved"][0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocks.jsonl"]
    assert site([inputs["interleaved"], "-o", out, "--json", "--resume"]).exit_code == 2
