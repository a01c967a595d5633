import json
import os
import stat

import pytest
from sitegen import article_site
from typer.testing import CliRunner

from commands.denoise import app

runner = CliRunner()


def write_site(folder, pages):
    folder.mkdir(parents=True)
    for page in pages:
        (folder / page.id).write_text(page.html, encoding="utf-8")


@pytest.mark.slow
def test_site_command_reports_and_writes_block_lines(tmp_path):
    write_site(tmp_path / "pages" / "shop", article_site(12))
    out = tmp_path / "blocks.jsonl"
    result = runner.invoke(app, ["site", str(tmp_path / "pages"), "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout.strip().splitlines()[0])
    assert report["site"] == "shop"
    assert report["pages"] == 12
    assert 0.2 < report["template_share"] < 0.6
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert {line["page"] for line in lines} == {f"shop/p{i}.html" for i in range(12)}
    assert {"page", "site", "path", "text", "label", "evidence"} <= set(lines[0])
    footer = [line for line in lines if line["path"] == "/html/body/div[3]"]
    assert {line["label"] for line in footer} == {"template"}
    assert all(line["evidence"]["page_share"] == 1.0 for line in footer)


@pytest.mark.parametrize(("args", "reduced"), [
    ([], True), (["--contained", "0.85"], True), (["--structure"], False),
    (["--out", "{out}"], False), (["--out", "-"], False)])
def test_site_report_alone_lets_waiting_pages_go_without_their_text(tmp_path, monkeypatch,
                                                                  args, reduced):
    """Without --out only the report is made, so pages wait reduced to their text shares
    (less memory); with --out, or a method that fits from whole pages, they wait whole.
    The report is the same either way."""
    from denoise.blocks import PageBlocks

    write_site(tmp_path / "pages" / "shop", article_site(12))
    calls = []
    reduce = PageBlocks.text_shares_only
    monkeypatch.setattr(PageBlocks, "text_shares_only",
                        lambda self: calls.append(self.page.id) or reduce(self))
    args = [arg.format(out=tmp_path / "blocks.jsonl") for arg in args]
    result = runner.invoke(app, ["site", str(tmp_path / "pages"), "--json", "--jobs", "1",
                                 *args])
    assert result.exit_code == 0, result.output
    assert len(calls) == (12 if reduced else 0)
    report = next(json.loads(line) for line in result.output.splitlines()
                  if line.startswith('{"site"'))
    assert report["pages"] == 12 and 0.2 < report["template_share"] < 0.6


def test_block_lines_are_json_dumps_of_each_blocks_record(dev_site_pages):
    """The --out lines are assembled from arrays; they must be exactly what json.dumps
    writes for each block's record, escapes and all (real pages, two methods)."""
    from collections import defaultdict

    from commands.denoise import _block_lines
    from denoise.page import Page
    from denoise.site import METHODS, REASONS, Label

    by_site = defaultdict(list)
    for page in dev_site_pages[:150]:
        by_site[page.site].append(page)
    odd = Page(id='q"uote\\é\u2028.html', site=next(iter(by_site)),
               html='<html><body><div>"quoted"\ttab\\ caf\u00e9 \u2028 \x01 <b>x</b></div>'
                    '<table><tr><td>a cell with enough words to count</td></tr></table>'
                    '</body></html>')
    by_site[odd.site].append(odd)
    for name in ("fingerprint", "style-offset"):
        method = METHODS[name]
        for pages in by_site.values():
            fitted = method().fit([method().segment(p) for p in pages])
            for page in pages:
                labelled = fitted.label(method().segment(page))
                expected = "".join(json.dumps({
                    "page": labelled.page.id, "site": labelled.page.site, "path": block.path,
                    "tag": block.tag, "text": block.text, "label": str(Label(label)),
                    "evidence": {method.support_name: round(support, 4),
                                 "reason": REASONS[reason]},
                    "example": example,
                }, ensure_ascii=False) + "\n" for block, label, support, reason, example in zip(
                    labelled.blocks.blocks, labelled.labels.tolist(),
                    labelled.support.tolist(), labelled.reasons.tolist(),
                    labelled.example.tolist(), strict=True))
                assert _block_lines(labelled, method) == expected, page.id


def test_bad_files_are_skipped_counted_and_named(tmp_path):
    write_site(tmp_path / "pages", article_site(10))
    (tmp_path / "pages" / "empty.html").write_bytes(b"")
    (tmp_path / "pages" / "binary.html").write_bytes(bytes(range(256)) * 20)
    result = runner.invoke(app, ["site", str(tmp_path / "pages"), "--json"])
    assert result.exit_code == 0, result.output
    assert "empty.html" in result.stderr
    assert "binary.html" in result.stderr
    assert "12 pages read, 10 labelled, 2 skipped (" in result.stderr
    assert "; 1 sites" in result.stderr


@pytest.mark.slow
def test_db_accumulates_counts_across_runs(tmp_path):
    pages = article_site(20)
    write_site(tmp_path / "a", pages[:10])
    write_site(tmp_path / "b", pages[10:])
    write_site(tmp_path / "new", pages[19:])
    db = str(tmp_path / "counts.sqlite")
    for folder in ("a", "b"):
        result = runner.invoke(app, ["site", str(tmp_path / folder), "--db", db,
                                     "--site", "example.com"])
        assert result.exit_code == 0, result.output
    out = tmp_path / "one.jsonl"
    result = runner.invoke(app, ["site", str(tmp_path / "new"), "--db", db, "--site",
                                 "example.com", "--out", str(out)])
    assert result.exit_code == 0, result.output
    labels = {json.loads(line)["path"]: json.loads(line)["label"]
              for line in out.read_text().splitlines()}
    assert labels["/html/body/div[3]"] == "template"
    assert labels["/html/body/div[2]"] == "content"


def test_existing_output_survives_a_failed_run(tmp_path):
    out = tmp_path / "blocks.jsonl"
    out.write_text("previous results\n")
    (tmp_path / "store.sqlite").write_bytes(b"garbage" * 1000)
    write_site(tmp_path / "pages", article_site(3))
    result = runner.invoke(app, ["site", str(tmp_path / "pages"), "--out", str(out), "--db",
                                 str(tmp_path / "store.sqlite")])
    assert result.exit_code == 2
    assert "store.sqlite" in result.stderr
    assert out.read_text() == "previous results\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_options_that_do_not_fit_the_method_are_refused(tmp_path):
    write_site(tmp_path / "pages", article_site(3))
    result = runner.invoke(app, ["site", str(tmp_path / "pages"), "--method", "table-chunk",
                                 "--structure"])
    assert result.exit_code != 0
    assert "--structure" in result.output


def test_help_teaches():
    result = runner.invoke(app, ["site", "--help"])
    assert result.exit_code == 0
    assert "--theta" in result.output and "WARC" in result.output


def test_out_of_range_options_are_usage_errors(tmp_path):
    write_site(tmp_path / "pages", article_site(3))
    for option in (["--theta", "0"], ["--contained", "0"], ["--max-bytes", "0"]):
        result = runner.invoke(app, ["site", str(tmp_path / "pages"), *option])
        assert result.exit_code == 2, option


def test_nothing_to_label_is_a_failure(tmp_path):
    result = runner.invoke(app, ["site", str(tmp_path / "missing")])
    assert result.exit_code == 1
    assert "missing" in result.stderr


def test_repeated_urls_in_one_batch_are_labelled_each_time(tmp_path):
    pages = article_site(12)
    lines = [json.dumps({"url": p.url, "html": p.html}) for p in pages + pages[:3]]
    (tmp_path / "pages.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "blocks.jsonl"
    result = runner.invoke(app, ["site", str(tmp_path / "pages.jsonl"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len({r["page"] for r in records}) == 12
    footer = [r for r in records if r["path"] == "/html/body/div[3]"]
    assert len(footer) == 15
    assert {r["label"] for r in footer} == {"template"}


def test_output_file_gets_the_usual_permissions(tmp_path):
    write_site(tmp_path / "pages", article_site(3))
    out = tmp_path / "blocks.jsonl"
    result = runner.invoke(app, ["site", str(tmp_path / "pages"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask


@pytest.mark.slow
def test_site_to_a_reader_that_leaves_exits_0_and_says_the_db_kept_its_counts(tmp_path):
    """`denoise site ... --db F --out - | head -1`: the reader leaving is no error, but
    the store, which commits only at the end of such a run, is left as it was: say so."""
    import sqlite3
    import subprocess
    import sys

    write_site(tmp_path / "pages" / "shop", article_site(40))
    db = tmp_path / "counts.sqlite"
    run = subprocess.Popen(
        [sys.executable, "-c", "from commands.denoise import app; app()", "site",
         str(tmp_path / "pages"), "--db", str(db), "--out", "-", "--jobs", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert json.loads(run.stdout.readline())["page"].startswith("shop/")
    run.stdout.close()  # as `head -1` does; the rest of the 40 pages' lines meet a closed pipe
    stderr = run.stderr.read().decode()
    assert run.wait(timeout=60) == 0, stderr
    assert f"{db} keeps the counts it had before this run" in stderr
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM seen").fetchone() == (0,)
