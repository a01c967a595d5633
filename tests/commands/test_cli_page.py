"""``denoise train / apply / evaluate / show`` through the command line."""

import dataclasses
import json

import numpy as np
import pytest
from lxml import etree
from sitegen import generated_site, site_page, site_template
from typer.testing import CliRunner

from commands.denoise import app
from denoise.detector import TemplateDetector
from denoise.model import TemplateModel, default_model_path
from denoise.reader import Skipped, read_pages

runner = CliRunner()


def run(args: list[str], **kwargs):
    """Invoke the CLI; a crash (an exception other than an exit) is raised, not hidden."""
    result = runner.invoke(app, args, **kwargs)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result

#: Sites to train on, and one the model never sees.
TRAIN_SITES, NEW_SITE = range(6), 8



def write_site(folder, pages):
    folder.mkdir(parents=True)
    for index, page in enumerate(pages):
        (folder / f"page{index}.html").write_text(page.html, encoding="utf-8")


def article_sentences(html: str) -> list[str]:
    return [s.strip() + "." for p in etree.HTML(html).iter("p") for s in p.text.split(".")
            if s.strip() and "rights reserved" not in p.text and "©" not in p.text]


def menu_links(number: int) -> list[str]:
    return [a.text for a in etree.HTML(site_template(number)[0]).iter("a")]


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    root = tmp_path_factory.mktemp("sites")
    for number in TRAIN_SITES:
        pages = generated_site(number, 6)
        write_site(root / pages[0].site, pages)
    return root


@pytest.fixture(scope="module")
def trained(sites, tmp_path_factory):
    """``denoise train`` run once: its result, the model file and the report file."""
    out = tmp_path_factory.mktemp("model") / "model.npz"
    report = out.with_name("report.json")
    result = run(["train", str(sites), "--out", str(out), "--folds", "2",
                                 "--min-pages", "3", "--report", str(report)])
    return result, out, report


@pytest.fixture(scope="module")
def model(trained):
    result, out, _ = trained
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def new_page(tmp_path):
    path = tmp_path / "new.html"
    path.write_text(site_page(NEW_SITE, 0).html, encoding="utf-8")
    return path


# --- train ----------------------------------------------------------------------------


@pytest.mark.slow
def test_train_writes_a_model_and_prints_the_cross_site_report(trained):
    result, out, report = trained
    assert result.exit_code == 0, result.output
    assert "Cross-site validation" in result.stdout
    for number in TRAIN_SITES:
        assert generated_site(number, 1)[0].site in result.stdout
    assert "pooled" in result.stdout
    assert f"model written to {out}" in result.stderr
    assert "6 sites" in result.stderr
    detector = TemplateDetector.load(out)
    assert detector.curve is not None
    assert 0.0 <= detector.threshold <= 1.0
    data = json.loads(report.read_text())
    assert len(data["per_site"]) == 6
    assert all(row["recall_at_90"] > 0.9 for row in data["per_site"])
    assert [p.name for p in out.parent.iterdir() if p.name.startswith(".")] == []


def test_train_refuses_fewer_sites_than_folds(sites, tmp_path):
    out = tmp_path / "model.npz"
    result = run(["train", str(sites), "--out", str(out), "--folds", "7",
                                 "--min-pages", "3"])
    assert result.exit_code == 1
    assert "--folds 7" in result.stderr
    assert not out.exists()


def test_train_leaves_out_sites_with_too_few_pages(sites, tmp_path):
    result = run(["train", str(sites), "--out", str(tmp_path / "m.npz"),
                                 "--folds", "2", "--min-pages", "7"])
    assert result.exit_code == 1
    assert "0 sites with labels" in result.stderr


@pytest.mark.slow
def test_train_can_leave_out_a_site_family(sites, tmp_path):
    held_out = generated_site(0, 1)[0].site  # www.acme.com: given as another of its hosts
    extra = generated_site(len(TRAIN_SITES), 6)  # a 7th site, so folds keep 3 sites to learn
    write_site(tmp_path / "more" / extra[0].site, extra)
    out = tmp_path / "model.npz"
    result = run(["train", str(sites), str(tmp_path / "more"), "--out", str(out), "--folds",
                  "2", "--min-pages", "3", "--exclude-site", "news.acme.com",
                  "--exclude-site", "nowhere.example"])
    assert result.exit_code == 0, result.output
    assert "excluded 6 pages of 1 site(s)" in result.stderr
    assert held_out in result.stderr  # named as excluded ...
    assert held_out not in result.stdout  # ... and absent from the cross-site report
    assert generated_site(1, 1)[0].site in result.stdout
    assert "6 sites" in result.stderr
    header = TemplateModel.load(out).header_
    assert header["training"]["excluded_families"] == ["acme", "nowhere"]


@pytest.mark.slow
def test_train_calibrates_its_promise_on_families_it_does_not_train_on(sites, tmp_path):
    extra = generated_site(len(TRAIN_SITES), 6)
    write_site(tmp_path / "more" / extra[0].site, extra)
    out = tmp_path / "model.npz"
    result = run(["train", str(sites), "--out", str(out), "--folds", "2", "--min-pages", "3",
                  "--calibrate-on", str(tmp_path / "more")])
    assert result.exit_code == 0, result.output
    assert "calibration only" in result.stdout and "of 1" in result.stdout
    assert extra[0].site not in result.stdout.split("The operating point")[0]  # not trained
    header = TemplateModel.load(out).header_
    assert header["training"]["calibration"] == {"pages": 6, "sites": 1, "families": 1}
    assert header["training"]["sites"] == 6


@pytest.mark.slow
def test_train_labels_a_site_by_the_main_content_its_xpath_selects(sites, tmp_path):
    table = tmp_path / "main.tsv"
    acme, globex = generated_site(0, 1)[0].site, generated_site(1, 1)[0].site
    table.write_text(f"site\tmain_content_xpath\n{acme}\t//div[@id='main']\n{globex}\t-\n"
                     "www.nowhere.example\t//main\n", encoding="utf-8")
    out = tmp_path / "model.npz"
    result = run(["train", str(sites), "--out", str(out), "--folds", "2", "--min-pages", "3",
                  "--main-xpaths", str(table)])
    assert result.exit_code == 0, result.output
    assert "6 pages of 1 site(s) labelled by their main content" in result.stderr
    assert "no page's main content found for 1 site(s)" in result.stderr
    assert "www.nowhere.example" in result.stderr
    assert TemplateModel.load(out).header_["training"]["main_xpaths"] == {
        acme: "//div[@id='main']"}


@pytest.mark.slow
def test_train_does_not_warn_of_the_main_xpaths_of_the_sites_it_leaves_out(sites, tmp_path):
    acme = generated_site(0, 1)[0].site
    table = tmp_path / "main.tsv"
    table.write_text(f"{acme}\t//div[@id='main']\nwww.nowhere.example\t//main\n"
                     "acme.org\t//main\n",  # of the family left out, and no page here
                     encoding="utf-8")
    result = run(["train", str(sites), "--out", str(tmp_path / "model.npz"), "--folds", "2",
                  "--min-pages", "3", "--main-xpaths", str(table), "--exclude-site", acme])
    assert result.exit_code == 0, result.output
    assert f"in the families of {acme}" in result.stderr
    warning = next(line for line in result.stderr.splitlines() if "no page's main" in line)
    assert "for 1 site(s)" in warning and "acme" not in warning  # only www.nowhere.example


@pytest.mark.slow
def test_train_reads_several_main_xpaths_tables_and_labels_calibration_pages_too(sites,
                                                                                  tmp_path):
    extra = generated_site(len(TRAIN_SITES), 6)
    write_site(tmp_path / "more" / extra[0].site, extra)
    acme = generated_site(0, 1)[0].site
    dev, train = tmp_path / "dev.tsv", tmp_path / "train.tsv"
    dev.write_text(f"{acme}\t//div[@id='main']\n", encoding="utf-8")
    train.write_text(f"{extra[0].site}\t//td[@class='body-text']\n", encoding="utf-8")
    out = tmp_path / "model.npz"
    result = run(["train", str(sites), "--out", str(out), "--folds", "2", "--min-pages", "3",
                  "--main-xpaths", str(dev), "--main-xpaths", str(train),
                  "--calibrate-on", str(tmp_path / "more")])
    assert result.exit_code == 0, result.output
    assert "12 pages of 2 site(s) labelled by their main content" in result.stderr
    assert "no page's main content found" not in result.stderr
    header = TemplateModel.load(out).header_["training"]
    assert header["main_xpaths"] == {acme: "//div[@id='main']"}  # trained on
    assert header["calibration"] == {"pages": 6, "sites": 1, "families": 1, "main_xpaths": {
        extra[0].site: "//td[@class='body-text']"}}


def test_train_refuses_a_site_given_in_two_main_xpaths_tables(sites, tmp_path):
    first, second = tmp_path / "a.tsv", tmp_path / "b.tsv"
    for table in (first, second):
        table.write_text("www.acme.com\t//main\n", encoding="utf-8")
    out = tmp_path / "model.npz"
    result = run(["train", str(sites), "--out", str(out), "--main-xpaths", str(first),
                  "--main-xpaths", str(second)])
    assert result.exit_code == 2
    assert f"{second}: www.acme.com is given in {first} too" in result.stderr
    assert not out.exists()


def test_train_names_the_line_of_a_main_xpaths_file_it_cannot_read(sites, tmp_path):
    table = tmp_path / "main.tsv"
    table.write_text("www.acme.com\t//div[@id='main']\nwww.globex.com\t//div[[\n",
                     encoding="utf-8")
    out = tmp_path / "model.npz"
    result = run(["train", str(sites), "--out", str(out), "--main-xpaths", str(table)])
    assert result.exit_code == 2
    assert f"{table}:2: not a site and an XPath" in result.stderr
    assert "reading and labelling" not in result.stderr and not out.exists()


def test_train_refuses_to_calibrate_on_a_family_it_trains_on(sites, tmp_path):
    out = tmp_path / "model.npz"
    result = run(["train", str(sites), "--out", str(out), "--folds", "2", "--min-pages", "3",
                  "--calibrate-on", str(sites / generated_site(0, 1)[0].site)])
    assert result.exit_code == 1
    assert "families not trained on: acme" in result.stderr
    assert not out.exists()


# --- apply ----------------------------------------------------------------------------


def test_apply_to_one_html_file_prints_its_text(model, new_page):
    result = run(["apply", str(new_page), "--model", str(model),
                                 "--recall", "0.5"])
    assert result.exit_code == 0, result.output
    html = new_page.read_text()
    for sentence in article_sentences(html):
        assert sentence in result.stdout
    for link in menu_links(NEW_SITE):
        assert link not in result.stdout
    assert not result.stdout.lstrip().startswith("{")  # plain text, not JSON


def test_apply_at_the_stored_operating_point_keeps_the_article(model, new_page):
    result = run(["apply", str(new_page), "--model", str(model)])
    assert result.exit_code == 0, result.output
    for sentence in article_sentences(new_page.read_text()):
        assert sentence in result.stdout


def test_apply_to_a_folder_prints_a_json_line_per_page_in_order(model, tmp_path):
    folder = tmp_path / "www.stark.com"
    write_site(folder, generated_site(NEW_SITE, 4))
    result = run(["apply", str(folder), "--model", str(model),
                                 "--recall", "0.5"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    pages = [p for p in read_pages([str(folder)]) if not isinstance(p, Skipped)]
    assert [r["page"] for r in records] == [p.id for p in pages]
    assert len(records) == 4
    for record, page in zip(records, pages, strict=True):
        assert all(s in record["text"] for s in article_sentences(page.html))
    assert "4 pages read, 4 written, 0 skipped" in result.stderr


@pytest.mark.parametrize("output", ["text", "blocks", "main", "html"])
def test_apply_worked_a_batch_at_a_time_gives_each_pages_own_lines(model, output):
    from commands.denoise_page import ApplyJob, Format
    from denoise.errors import PageError
    from denoise.page import Page

    job = ApplyJob(model=model, recall=0.5 if output != "main" else None, precision=None,
                   output=Format(output), single=False)
    job.setup()
    pages = [*generated_site(NEW_SITE, 5)]
    pages.insert(2, Page(id="empty.html", html=""))  # refused: no HTML
    many = job.many(pages)
    for page, lines in zip(pages, many, strict=True):
        try:
            alone = job(page)
        except PageError as error:
            assert isinstance(lines, PageError) and str(lines) == str(error)
        else:
            assert lines == alone
    assert isinstance(many[2], PageError)


def _stdin_lines(number: int, pages: int) -> tuple[list[str], list[str]]:
    site = generated_site(number, pages)
    lines = [json.dumps({"url": p.url, "html": p.html}) for p in site]
    return lines, [p.url for p in site]


def test_apply_to_standard_input_keeps_order_and_names_a_bad_line(model):
    lines, urls = _stdin_lines(NEW_SITE, 3)
    lines.insert(1, '{"url": broken')
    result = run(["apply", "-", "--model", str(model), "--blocks"],
                           input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    pages = list(dict.fromkeys(json.loads(line)["page"] for line in result.stdout.splitlines()))
    assert pages == urls
    assert "-:2" in result.stderr
    assert "4 pages read, 3 written, 1 skipped" in result.stderr


def test_apply_to_json_lines_on_standard_input_gives_json_lines(model):
    lines, urls = _stdin_lines(NEW_SITE, 3)
    lines.insert(2, "this is not json")
    result = run(["apply", "-", "--model", str(model), "--recall", "0.5"],
                           input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["url"] for r in records] == urls
    assert [r["page"] for r in records] == urls
    for record, page in zip(records, generated_site(NEW_SITE, 3), strict=True):
        assert all(s in record["text"] for s in article_sentences(page.html))
    assert "-:3" in result.stderr


def test_apply_blocks_gives_a_record_per_scored_block(model, new_page):
    result = run(["apply", str(new_page), "--model", str(model), "--blocks",
                                 "--recall", "0.5"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert records
    for record in records:
        assert {"page", "path", "text", "score", "template"} <= set(record)
        assert record["page"] == str(new_page)
        assert record["path"].startswith("/html/body")
        assert 0.0 <= record["score"] <= 1.0
    links = menu_links(NEW_SITE)
    sentences = article_sentences(new_page.read_text())
    nav = [r for r in records if r["text"].startswith(links[0]) and r["path"] != "/html/body"]
    article = [r for r in records if r["text"] in " ".join(sentences)]
    assert nav and article
    assert all(r["template"] for r in nav)
    assert not any(r["template"] for r in article)
    assert min(r["score"] for r in nav) > max(r["score"] for r in article)


def test_block_lines_are_json_dumps_of_each_blocks_record(dev_site_pages):
    """--format blocks lines are assembled from arrays; they must be exactly what
    json.dumps writes for each scored block's record (real pages, and escapes)."""
    from commands.denoise_page import _block_lines
    from denoise.page import Page

    detector = TemplateDetector.load().at_recall(0.5)
    odd = Page(id='q"uote\\\u2028.html', html='<html><body><div>"quoted"\ttab\\ caf\u00e9 '
               '\u2028 \x01 and some more words here</div><p>a paragraph with words</p>'
               '</body></html>')
    for page in [*dev_site_pages[:80], odd]:
        scores = detector.score(page)
        blocks, nodes = scores.features.blocks, scores.features.nodes
        paths = blocks.shape.paths(blocks.elements[nodes])
        expected = "".join(json.dumps({
            "page": page.id, "path": paths[node], "tag": blocks.tags[block],
            "text": blocks.block_text(block), "score": round(float(scores.scores[node]), 4),
            "raw_score": round(float(scores.raw[node]), 4),
            "template": bool(scores.template[node])}, ensure_ascii=False) + "\n"
            for node, block in enumerate(nodes.tolist()))
        assert "".join(_block_lines(scores)) == expected, page.id


@pytest.mark.parametrize("output", ["text", "main", "html"])
def test_page_lines_are_json_dumps_of_each_pages_record(dev_site_pages, output):
    """A page's JSON line is put together from its fields' JSON strings; it must be
    exactly what json.dumps writes for the page's record (real pages, a page without a
    URL, and escapes in its name and text)."""
    from commands.denoise_page import Format, _page_body, _page_line
    from denoise.main_content import MainContentExtractor
    from denoise.page import Page

    detector = TemplateDetector.load().at_recall(0.5)
    extractor = MainContentExtractor.load() if output == "main" else None
    if extractor is not None:
        detector = extractor.detector
    odd = Page(id='q"uote\\\u2028.html', html='<html><body><div>"quoted"\ttab\\ caf\u00e9 '
               '\u2028 \x01 and some more words here</div><p>a paragraph with words</p>'
               '</body></html>')
    fmt = Format(output)
    for page in [*dev_site_pages[:40], odd]:
        scored = detector.score(page)
        # as written, and cut at 0 (every block template) for a line that falls back
        for scores in (scored.or_fallback(), dataclasses.replace(scored, threshold=0.0)
                       .or_fallback()):
            body, fallback = _page_body(scores, fmt, extractor)
            record = {"page": page.id, **({"url": page.url} if page.url else {}),
                      **({"fallback": True} if fallback else {}),
                      "html" if fmt is Format.html else "text": body}
            assert _page_line(scores, fmt, extractor) == (json.dumps(
                record, ensure_ascii=False) + "\n", fallback), page.id


def test_json_strings_are_jsons_own(dev_site_pages):
    """The compiled JSON string encoder writes what json's does: every control
    character, quotes, backslashes, lone surrogates, characters past the BMP."""
    import random
    from json.encoder import encode_basestring

    from engine.jsonstr import json_str

    rng = random.Random(7)
    alphabet = [chr(c) for c in [*range(40), 92, 34, 127, 233, 255, 256, 0x2028, 0xD800,
                                 0xDFFF, 0x1F600]] + list("ab ")
    texts = ["", "plain", *("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))
                             for _ in range(5000)), *(p.html for p in dev_site_pages[:40])]
    for text in texts:
        assert json_str(text) == encode_basestring(text), repr(text[:80])


def test_recall_moves_the_operating_point(model, new_page):
    called = {}
    for recall in ("0.5", "1.0"):
        result = run(["apply", str(new_page), "--model", str(model), "--blocks",
                                     "--recall", recall])
        assert result.exit_code == 0, result.output
        called[recall] = sum(json.loads(line)["template"] for line in result.stdout.splitlines())
    assert 0 < called["0.5"] <= called["1.0"]


def test_recall_and_precision_together_are_a_usage_error(model, new_page):
    result = run(["apply", str(new_page), "--model", str(model), "--recall",
                                 "0.5", "--precision", "0.9"])
    assert result.exit_code == 2
    assert "not both" in result.output


@pytest.mark.parametrize("option", [["--recall", "1.5"], ["--recall", "0"],
                                    ["--precision", "-0.2"]])
def test_out_of_range_operating_points_are_usage_errors(model, new_page, option):
    result = run(["apply", str(new_page), "--model", str(model), *option])
    assert result.exit_code == 2


@pytest.mark.parametrize("content", [b"garbage bytes, not a model", b"", b"PK\x03\x04trunc"],
                         ids=["garbage", "empty", "truncated zip"])
def test_a_corrupt_model_file_is_one_line_naming_it(new_page, tmp_path, content):
    bad = tmp_path / "corrupt-model.npz"
    bad.write_bytes(content)
    result = run(["apply", str(new_page), "--model", str(bad)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert str(bad) in result.stderr
    assert result.stdout == ""


def test_a_missing_model_file_is_named(new_page, tmp_path):
    missing = tmp_path / "missing.npz"
    result = run(["apply", str(new_page), "--model", str(missing)])
    assert result.exit_code == 2
    assert str(missing) in result.stderr


def test_a_numpy_array_file_as_model_is_one_line_naming_it(new_page, tmp_path):
    bad = tmp_path / "array.npy"
    np.save(bad, np.arange(3))
    result = run(["apply", str(new_page), "--model", str(bad)])
    assert result.exit_code == 2
    assert str(bad) in result.stderr


def test_apply_with_nothing_to_read_fails(model, tmp_path):
    result = run(["apply", str(tmp_path / "missing"), "--model", str(model)])
    assert result.exit_code == 1
    assert "missing" in result.stderr


def test_apply_with_the_shipped_model(new_page):
    if not default_model_path().exists():
        pytest.skip(f"no shipped model at {default_model_path()} yet")
    result = run(["apply", str(new_page)])
    assert result.exit_code == 0, result.output
    for sentence in article_sentences(new_page.read_text()):
        assert sentence in result.stdout


# --- evaluate -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def other_sites(tmp_path_factory):
    root = tmp_path_factory.mktemp("other")
    for number in (NEW_SITE, NEW_SITE + 1):
        pages = generated_site(number, 5)
        write_site(root / pages[0].site, pages)
    return root


def test_evaluate_prints_a_table_per_site(model, other_sites):
    result = run(["evaluate", str(other_sites), "--model", str(model),
                                 "--min-pages", "3", "--recall", "0.5"])
    assert result.exit_code == 0, result.output
    assert "Template detection against site-level labels" in result.stdout
    for number in (NEW_SITE, NEW_SITE + 1):
        assert generated_site(number, 1)[0].site in result.stdout
    assert "pooled" in result.stdout
    assert "2 sites, 0 skipped" in result.stderr


def test_evaluate_json_lines(model, other_sites):
    result = run(["evaluate", str(other_sites), "--model", str(model),
                                 "--min-pages", "3", "--json", "--recall", "0.5"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [row["site"] for row in rows][-1] == "pooled"
    assert len(rows) == 3
    pooled = rows[-1]
    assert pooled["examples"] == sum(row["examples"] for row in rows[:-1])
    assert pooled["recall_at_90_smooth"] > 0.9
    assert pooled["precision"] > 0.9


def test_evaluate_without_enough_pages_fails(model, other_sites):
    result = run(["evaluate", str(other_sites), "--model", str(model),
                                 "--min-pages", "50"])
    assert result.exit_code == 1
    assert "no site gave labelled blocks" in result.stderr


def test_evaluate_on_pages_without_scored_blocks_fails_cleanly(model, tmp_path):
    folder = tmp_path / "tiny.example"
    folder.mkdir()
    for index in range(4):
        (folder / f"page{index}.html").write_text("<p>hi there</p>")
    result = run(["evaluate", str(tmp_path), "--model", str(model),
                                 "--min-pages", "3"])
    assert result.exit_code == 1
    assert "error" in result.stderr


# --- show -----------------------------------------------------------------------------


def test_show_writes_the_shaded_page_with_a_legend(model, new_page, tmp_path):
    out = tmp_path / "shaded.html"
    result = run(["show", str(new_page), "-o", str(out), "--model", str(model),
                                 "--url", "http://www.stark.com/p0.html", "--recall", "0.5"])
    assert result.exit_code == 0, result.output
    html = out.read_text()
    root = etree.HTML(html)
    legend = "".join(root.find(".//body/div").itertext())
    assert "denoise" in legend and "scored blocks template" in legend
    assert root.find(".//head/base").get("href") == "http://www.stark.com/p0.html"
    titles = [e.get("title") for e in root.iter() if e.get("title")]
    assert titles and all(t.startswith("template score") for t in titles)
    assert str(out) in result.stderr


def test_show_refuses_a_file_that_is_no_page(model, tmp_path):
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    out = tmp_path / "shaded.html"
    result = run(["show", str(empty), "-o", str(out), "--model", str(model)])
    assert result.exit_code == 1
    assert "empty.html" in result.stderr
    assert not out.exists()
    # the reader's one line says why, and no second line contradicts it
    missing = run(["show", str(tmp_path / "missing.html"), "-o", str(out), "--model",
                   str(model)])
    assert missing.exit_code == 1
    assert [line for line in missing.stderr.splitlines() if line] == [
        f"skipped {tmp_path / 'missing.html'}: no such file or directory"]
