"""``kwx extract / train / evaluate / compare / df build / querylog build`` through the
command line."""

import json
import re
import shutil
import tarfile

import numpy as np
import pytest
from kwxpages import GARDEN, write_labelled
from repo import SHOP
from sitegen import site_page
from typer.testing import CliRunner

from commands.kwx import app
from denoise.model import default_model_path
from denoise.page import Page
from denoise.shipped import shipped
from kwx import extractor
from kwx.extractor import DEFAULT_RANKER, KeywordExtractor, ranker_recall
from kwx.ranker import KeywordRanker
from kwx.tables import TableFile
from kwx.text import key_hash

runner = CliRunner()


def run(args: list[str], **kwargs):
    """Invoke the CLI; a crash (an exception other than an exit) is raised, not hidden."""
    result = runner.invoke(app, [str(a) for a in args], **kwargs)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    """The example shop's pages, an empty page and a binary one."""
    folder = tmp_path_factory.mktemp("shop")
    for page in sorted(SHOP.glob("*.html")):
        shutil.copy(page, folder / page.name)
    (folder / "empty.html").write_bytes(b"")
    (folder / "binary.html").write_bytes(bytes(range(256)) * 4)
    return folder


@pytest.fixture(scope="module")
def shipped_extractor():
    return KeywordExtractor.load()


@pytest.fixture(scope="module")
def garden(tmp_path_factory):
    return write_labelled(tmp_path_factory.mktemp("garden") / "labelled")


@pytest.fixture(scope="module")
def trained(garden, tmp_path_factory):
    out = tmp_path_factory.mktemp("ranker") / "m.npz"
    return run(["train", garden, "--out", out]), out


# --- extract ------------------------------------------------------------------------------


@pytest.mark.slow
def test_extract_one_page_prints_phrase_tab_score_lines_with_the_shipped_defaults(
        shop, shipped_extractor):
    page = shop / "oak-shelf.html"
    result = run(["extract", page, "--top", "5"])
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    assert len(rows) == 5 and all(len(row) == 2 for row in rows)
    scores = [float(score) for _, score in rows]
    assert all(len(score.split(".")[1]) == 3 for _, score in rows)
    # the shipped ranker, tables and template model (repetition, at the ranker's recall)
    expected = shipped_extractor.extract(Page(id=str(page), html=page.read_text()), 5)
    assert [phrase for phrase, _ in rows] == [k.phrase for k in expected]
    assert scores == [round(k.score, 3) for k in expected]
    assert result.stderr == ""
    # a phrase slot (the 4th of 5) may hold a phrase scored below the words after it;
    # without slots the list is in score order
    assert " " in rows[3][0]
    ranked = run(["extract", page, "--top", "5", "--phrases", "0"])
    scores = [float(line.split("\t")[1]) for line in ranked.stdout.splitlines()]
    assert len(scores) == 5 and scores == sorted(scores, reverse=True)


def test_extract_one_gzipped_page_prints_lines_too(shop, tmp_path):
    import gzip

    packed = tmp_path / "oak-shelf.html.gz"
    packed.write_bytes(gzip.compress((shop / "oak-shelf.html").read_bytes()))
    result = run(["extract", packed, "--top", "3"])
    assert result.exit_code == 0, result.output
    assert [len(line.split("\t")) for line in result.stdout.splitlines()] == [2, 2, 2]


@pytest.mark.slow
def test_extract_cuts_the_detector_at_the_recall_its_ranker_was_trained_with(tmp_path):
    """The ranker's file records the recall it was trained at; extract de-noises there."""
    header = KeywordRanker.load(shipped(DEFAULT_RANKER)).header_
    recall = ranker_recall(header)
    page = site_page(6, 2)
    path = tmp_path / "p2.html"
    path.write_text(page.html, encoding="utf-8")
    printed = [line.split("\t")[0] for line in run(["extract", path, "-n", "1000"]).stdout
               .splitlines()]
    assert printed == [k.phrase for k in KeywordExtractor.load(recall=recall).extract(page, 1000)]
    assert run(["extract", path, "-n", "1000", "--recall", str(recall)]).stdout.splitlines() == \
        run(["extract", path, "-n", "1000"]).stdout.splitlines()
    # less template removed, more candidates: the cut moves with the recall asked
    less = run(["extract", path, "-n", "1000", "--recall", "0.05"]).stdout.splitlines()
    more = run(["extract", path, "-n", "1000", "--recall", "0.95"]).stdout.splitlines()
    assert 0.05 < recall < 0.95
    assert len(more) <= len(printed) <= len(less) and len(more) < len(less)


@pytest.mark.slow
def test_extract_default_top_is_ten_and_removes_the_menu(shop):
    result = run(["extract", shop / "brass-kettle.html"])
    assert result.exit_code == 0
    assert len(result.stdout.splitlines()) == 10
    assert "kettle" in result.stdout.lower()
    everything = run(["extract", shop / "brass-kettle.html", "--top", "500"]).stdout.lower()
    assert "kitchen" not in everything and "delivery" not in everything
    kept = run(["extract", shop / "brass-kettle.html", "--top", "500", "--no-denoise"])
    assert "kitchen" in kept.stdout.lower()


@pytest.mark.slow
def test_extract_json_and_several_pages_give_one_json_line_per_page_in_order(shop):
    names = ["oak-shelf.html", "brass-kettle.html", "wool-blanket.html"]
    result = run(["extract", *(shop / n for n in names), "-n", "3"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in lines(result.stdout)]
    assert [row["page"] for row in rows] == [str(shop / n) for n in names]
    for row in rows:
        assert set(row) == {"page", "url", "keywords"}
        assert len(row["keywords"]) == 3
        assert all(set(k) == {"phrase", "score", "count"} for k in row["keywords"])
        assert all(k["count"] >= 1 and 0 < k["score"] < 1 for k in row["keywords"])
    assert "3 pages read, 3 written, 0 skipped" in result.stderr
    single = run(["extract", shop / "oak-shelf.html", "-n", "3", "--json"])
    assert [json.loads(line) for line in lines(single.stdout)] == rows[:1]


@pytest.mark.slow
def test_extract_reads_json_lines_from_standard_input():
    pages = [{"url": f"http://shop.example/{p.stem}", "html": p.read_text()}
             for p in sorted(SHOP.glob("*.html"))[:2]]
    result = run(["extract", "-", "-n", "2"], input="".join(json.dumps(p) + "\n" for p in pages))
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in lines(result.stdout)]
    assert [row["url"] for row in rows] == [p["url"] for p in pages]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["jsonl", "tar"])
def test_one_file_of_several_pages_gives_one_json_line_per_page(kind, tmp_path):
    pages = sorted(SHOP.glob("*.html"))[:2]
    if kind == "jsonl":
        path = tmp_path / "pages.jsonl"
        path.write_text("".join(json.dumps({"url": f"http://shop.example/{p.name}",
                                            "html": p.read_text()}) + "\n" for p in pages))
    else:
        path = tmp_path / "pages.tar"
        with tarfile.open(path, "w") as archive:
            for page in pages:
                archive.add(page, arcname=f"shop/{page.name}")
    result = run(["extract", path, "-n", "2"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in lines(result.stdout)]
    assert len(rows) == 2
    assert all(len(row["keywords"]) == 2 for row in rows)


@pytest.mark.slow
def test_a_bad_page_in_a_batch_is_named_counted_and_the_rest_go_on(shop):
    inputs = [shop / "oak-shelf.html", shop / "empty.html", shop / "binary.html",
              shop / "linen-apron.html"]
    result = run(["extract", *inputs, "-n", "2"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in lines(result.stdout)]
    assert [row["page"] for row in rows] == [str(inputs[0]), str(inputs[3])]
    errors = lines(result.stderr)
    assert any(line.startswith(f"skipped {shop / 'empty.html'}: ") for line in errors)
    assert any(line.startswith(f"skipped {shop / 'binary.html'}: ") for line in errors)
    assert "4 pages read, 2 written, 2 skipped" in result.stderr


@pytest.mark.slow
def test_a_folder_with_bad_pages_goes_on(shop):
    result = run(["extract", shop, "-n", "1"])
    assert result.exit_code == 0, result.output
    assert len(lines(result.stdout)) == 6
    assert "8 pages read, 6 written, 2 skipped" in result.stderr


def test_nothing_to_extract_from_is_exit_code_1(shop):
    result = run(["extract", shop / "empty.html"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert f"skipped {shop / 'empty.html'}: " in result.stderr
    assert "1 pages read, 0 written, 1 skipped" in result.stderr


@pytest.mark.parametrize("option", ["--model", "--df", "--querylog", "--detector"])
@pytest.mark.parametrize("content", ["garbage", "another kind", "missing"])
def test_a_corrupt_model_or_table_is_exit_code_2_and_one_line_naming_the_file(
        option, content, shop, tmp_path):
    path = tmp_path / "bad.npz"
    if content == "garbage":
        path.write_bytes(b"\x00\x01 definitely not numbers \xff" * 50)
    elif content == "another kind" and option != "--detector":
        shutil.copy(default_model_path(), path)  # a template model
    elif content == "another kind":
        shutil.copy(shipped("kwx-ranker.npz"), path)  # a keyword ranker
    result = run(["extract", shop / "oak-shelf.html", option, path])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert lines(result.stderr) == [lines(result.stderr)[0]]
    assert result.stderr.startswith(f"error: {path}: ")


@pytest.mark.parametrize("extra", [["--recall", "0.5"], ["--detector", "model.npz"]])
def test_no_denoise_with_a_detector_setting_is_a_usage_error(extra, shop):
    result = run(["extract", shop / "oak-shelf.html", "--no-denoise", *extra])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "need --denoise" in result.stderr


@pytest.mark.parametrize("recall", ["0", "1.5", "-0.2"])
def test_a_recall_outside_0_1_is_a_usage_error(recall, shop):
    result = run(["extract", shop / "oak-shelf.html", "--recall", recall])
    assert result.exit_code == 2
    assert "(0, 1]" in result.stderr


@pytest.mark.slow
def test_extract_writes_its_output_file_atomically_and_an_interrupted_run_resumes(
        shop, tmp_path, monkeypatch):
    pages = [str(shop / "oak-shelf.html"), str(shop / "brass-kettle.html")]
    out = tmp_path / "keywords.jsonl"
    result = run(["extract", *pages, "-o", out])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert [json.loads(line)["page"] for line in lines(out.read_text())] == pages
    before = out.read_text()

    calls = []
    real = extractor.find_candidates

    def interrupted(document, max_words, language=None):
        calls.append(document.page.id)
        if len(calls) == 2:
            raise KeyboardInterrupt  # Ctrl-C in the middle of the batch
        return real(document, max_words, language)

    monkeypatch.setattr(extractor, "find_candidates", interrupted)
    result = runner.invoke(app, ["extract", *pages, "-o", str(out), "--jobs", "1"])
    assert result.exit_code == 130
    assert "--resume" in result.stderr
    assert out.read_text() == before  # the earlier file is whole
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "keywords.jsonl", "keywords.jsonl.partial", "keywords.jsonl.progress"]
    monkeypatch.setattr(extractor, "find_candidates", real)
    resumed = runner.invoke(app, ["extract", *pages, "-o", str(out), "--jobs", "1",
                                  "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert out.read_text() == before  # the same output, once each
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keywords.jsonl"]


@pytest.mark.slow
def test_resume_needs_an_interrupted_run_with_the_same_options(shop, tmp_path):
    out = tmp_path / "keywords.jsonl"
    result = run(["extract", shop / "oak-shelf.html", "-o", out, "--resume"])
    assert result.exit_code == 2
    assert "nothing to resume" in result.stderr
    assert run(["extract", shop, "--resume"]).exit_code == 2  # standard output


# --- train and evaluate -------------------------------------------------------------------


@pytest.mark.slow
def test_train_writes_a_ranker(trained, garden):
    result, out = trained
    assert result.exit_code == 0, result.output
    assert f"ranker written to {out}: 6 pages" in result.stderr
    ranker = KeywordRanker.load(out)
    header = ranker.header_
    assert header["training"]["pages"] == 6
    assert header["training"]["denoise"] is False
    assert ranker.n_examples_ > 100
    assert [p.name for p in out.parent.iterdir()] == ["m.npz"]


@pytest.mark.slow
def test_evaluate_a_trained_ranker_as_json(trained, garden):
    _, model = trained
    result = run(["evaluate", garden, "-m", model, "--json"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in lines(result.stdout)]
    assert len(rows) == 1
    row = rows[0]
    assert set(row) == {"pages", "denoise", "top1", "top2", "top3", "top5", "top10"}
    assert row["pages"] == 6 and row["denoise"] is True
    assert all(0 <= row[f"top{n}"] <= 1 for n in (1, 2, 3, 5, 10))
    # trained on these very pages, it finds most of their keywords
    assert row["top10"] >= 0.5
    plain = json.loads(run(["evaluate", garden, "-m", model, "--json",
                            "--no-denoise"]).stdout)
    assert plain["denoise"] is False and plain["pages"] == 6


@pytest.mark.slow
def test_evaluate_prints_a_table(trained, garden):
    _, model = trained
    result = run(["evaluate", garden, "-m", model])
    assert result.exit_code == 0
    for column in ("Top1", "Top2", "Top3", "Top5", "Top10"):
        assert column in result.stdout
    assert "6 pages, de-noised" in result.stdout


def test_evaluate_with_a_corrupt_model_is_exit_code_2(garden, tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"nonsense" * 20)
    result = run(["evaluate", garden, "-m", bad, "--json"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert lines(result.stderr) == [lines(result.stderr)[0]]
    assert result.stderr.startswith(f"error: {bad}: ")


@pytest.mark.slow
def test_train_skips_bad_pages_and_pages_without_keys(tmp_path):
    folder = write_labelled(tmp_path / "pages", range(3))
    (folder / "unlabelled.html").write_text("<p>no key file beside me</p>")
    (folder / "empty.html").write_bytes(b"")
    (folder / "empty.key").write_text("keyword\n")
    (folder / "nokeys.html").write_text(f"<p>{GARDEN[0][2]}</p>")
    (folder / "nokeys.key").write_text("\n  \n")
    out = tmp_path / "m.npz"
    result = run(["train", folder, "--out", out])
    assert result.exit_code == 0, result.output
    assert f"ranker written to {out}: 3 pages" in result.stderr
    assert "skipped" in result.stderr and "empty.html" in result.stderr
    assert "nokeys.key: no keywords" in result.stderr
    assert "unlabelled" not in result.stderr


@pytest.mark.slow
def test_train_without_labelled_pages_fails_and_writes_nothing(tmp_path):
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "a.html").write_text("<p>a page without keys</p>")
    out = tmp_path / "m.npz"
    result = run(["train", folder, "--out", out])
    assert result.exit_code == 1
    assert "no labelled pages" in result.stderr
    assert not out.exists()
    missing = run(["train", tmp_path / "nowhere", "--out", out])
    assert missing.exit_code == 2
    assert "notafolder" in re.sub(r"[\s│]", "", missing.stderr)  # in a box, wrapped


@pytest.mark.slow
def test_train_with_keywords_never_on_the_pages_fails_and_keeps_the_old_file(tmp_path):
    folder = write_labelled(tmp_path / "pages", range(2))
    for key in folder.glob("*.key"):
        key.write_text("zeppelin hangar\n")
    out = tmp_path / "m.npz"
    out.write_bytes(b"previous")
    result = run(["train", folder, "--out", out])
    assert result.exit_code == 1
    assert lines(result.stderr)[-1].startswith("error: ")
    assert "both kinds" in result.stderr
    assert out.read_bytes() == b"previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npz", "pages"]
    compared = run(["compare", "--train", folder, "--test", folder, "--recall", "0.5"])
    assert compared.exit_code == 1
    assert lines(compared.stderr)[-1].startswith(f"error: {folder}: training needs")
    assert compared.stdout == ""


@pytest.mark.slow
def test_choosing_the_recall_skips_a_page_that_does_not_parse(tmp_path):
    folder = write_labelled(tmp_path / "pages")
    (folder / "comment.html").write_text("<!-- a comment, no element -->")
    (folder / "comment.key").write_text("comment\n")
    out = tmp_path / "m.npz"
    result = run(["train", folder, "--out", out, "--denoise"])
    assert result.exit_code == 0, result.output
    assert "detector recall" in result.stderr
    assert f"ranker written to {out}: 6 pages" in result.stderr
    assert lines(result.stderr).count("skipped comment.html: unparsable HTML (no element "
                                      "found)") == 1
    compared = run(["compare", "--train", folder, "--test", folder, "--json"])
    assert compared.exit_code == 0, compared.output
    assert json.loads(lines(compared.stdout)[0])["train_pages"] == 6


@pytest.mark.slow
def test_too_few_pages_to_choose_the_recall_is_one_line_error(tmp_path):
    folder = write_labelled(tmp_path / "pages", range(3))
    out = tmp_path / "m.npz"
    for args in (["train", folder, "--out", out, "--denoise"],
                 ["compare", "--train", folder, "--test", folder]):
        result = run(args)
        assert result.exit_code == 1
        assert lines(result.stderr) == [
            "error: cannot choose the detector's recall by cross-validation (3 pages cannot "
            "make 5 folds): give --recall"]
        assert result.stdout == ""
    assert not out.exists()
    assert run(["train", folder, "--out", out, "--denoise", "--recall", "0.5"]).exit_code == 0


@pytest.mark.parametrize(("command", "default"), [
    (["extract"], "the recall the ranker was trained with"),
    (["evaluate"], "the recall the ranker was trained with"),
    (["train"], "chosen by 5-fold cross-validation on the training pages"),
    (["compare"], "chosen by 5-fold cross-validation on the training pages"),
    (["df", "build"], "0.5, Kołcz & Yih's"),
])
def test_the_recall_help_names_each_commands_own_default(command, default):
    result = run([*command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    flat = " ".join(re.sub(r"[│]", " ", result.stdout).split())
    assert f"(default: {default}" in flat


@pytest.mark.slow
def test_compare_prints_every_configuration_ord_first(garden):
    result = run(["compare", "--train", garden, "--test", garden, "--json"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in lines(result.stdout)]
    assert [row["configuration"] for row in rows] == [
        "ORD", "DN", "DF", "DN-DF", "DN_both", "DN-DF_both", "other-DF", "DN-main",
        "DN-main_both"]
    assert all(row["train_pages"] == row["test_pages"] == 6 for row in rows)
    assert all(rows[0][f"p_top{n}"] == 1.0 for n in (1, 2, 3, 5, 10))


# --- df build and querylog build ----------------------------------------------------------


@pytest.mark.slow
def test_df_build_writes_a_table_extract_accepts(garden, shop, tmp_path):
    out = tmp_path / "df.npz"
    result = run(["df", "build", garden, shop / "empty.html", "--out", out])
    assert result.exit_code == 0, result.output
    assert f"table written to {out}" in result.stderr
    assert "over 6 pages, 1 skipped" in result.stderr
    assert f"skipped {shop / 'empty.html'}: " in result.stderr
    table = TableFile.load(out, ["documents"]).tables["documents"]
    assert table.total == 6
    assert table.lookup(np.array([key_hash("garden shop"), key_hash("garden fork")],
                                 dtype=np.uint64)).tolist() == [6, 1]
    clean = tmp_path / "clean.npz"
    assert run(["df", "build", garden, "--out", clean, "--denoise"]).exit_code == 0
    denoised = TableFile.load(clean, ["documents"]).tables["documents"]
    assert denoised.lookup(np.array([key_hash("garden shop")], dtype=np.uint64)).tolist() == [0]
    two = tmp_path / "two.npz"
    assert run(["df", "build", garden, "--out", two, "--min-df", "2"]).exit_code == 0
    assert key_hash("garden fork") not in TableFile.load(two).tables["documents"].hashes
    used = run(["extract", shop / "oak-shelf.html", "--df", out])
    assert used.exit_code == 0 and len(used.stdout.splitlines()) == 10


def test_df_build_without_pages_fails_and_keeps_the_old_file(shop, tmp_path):
    out = tmp_path / "df.npz"
    out.write_bytes(b"previous")
    result = run(["df", "build", shop / "empty.html", shop / "binary.html", "--out", out])
    assert result.exit_code == 1
    assert "no pages read" in result.stderr
    assert out.read_bytes() == b"previous"
    assert [p.name for p in tmp_path.iterdir()] == ["df.npz"]


@pytest.mark.slow
def test_querylog_build_writes_tables_extract_accepts(shop, tmp_path):
    trec = tmp_path / "trec.txt"
    trec.write_bytes(b"1:oak shelf\n2:oak shelf\n3:caf\xe9 tables\n\n4:steel brackets\n")
    marco = tmp_path / "marco.tsv"
    marco.write_text("10\tsolid oak shelf\n11\toak shelf\n", encoding="utf-8")
    out = tmp_path / "queries.npz"
    result = run(["querylog", "build", trec, marco, "--out", out])
    assert result.exit_code == 0, result.output
    assert f"table written to {out}: 6 queries, 4 distinct" in result.stderr
    tables = TableFile.load(out, ["query", "query_part"]).tables
    assert tables["query"].total == tables["query_part"].total == 6
    assert tables["query"].lookup(np.array([key_hash("oak shelf"), key_hash("oak")],
                                           dtype=np.uint64)).tolist() == [3, 0]
    assert tables["query_part"].lookup(np.array([key_hash("oak"), key_hash("café")],
                                                dtype=np.uint64)).tolist() == [4, 1]
    used = run(["extract", shop / "oak-shelf.html", "--querylog", out, "--json"])
    assert used.exit_code == 0 and len(json.loads(used.stdout)["keywords"]) == 10


def test_querylog_build_refuses_missing_and_empty_logs(tmp_path):
    out = tmp_path / "queries.npz"
    missing = run(["querylog", "build", tmp_path / "nowhere.txt", "--out", out])
    assert missing.exit_code == 2
    assert "no such file" in missing.stderr
    blank = tmp_path / "blank.txt"
    blank.write_text("\n   \n\n")
    result = run(["querylog", "build", blank, "--out", out])
    assert result.exit_code == 1
    assert "no queries read" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blank.txt"]


@pytest.mark.parametrize("command", ["train", "df build", "querylog build", "extract"])
def test_an_unwritable_output_is_one_line_error(command, garden, tmp_path):
    out = tmp_path / "a-folder"
    out.mkdir()
    log = tmp_path / "log.txt"
    log.write_text("1:garden fork\n")
    args = {"train": ["train", garden], "df build": ["df", "build", garden],
            "querylog build": ["querylog", "build", log],
            "extract": ["extract", garden / "p0.html"]}[command]
    result = runner.invoke(app, [str(a) for a in [*args, "--out", out]])
    assert isinstance(result.exception, SystemExit | None), repr(result.exception)
    # every output is checked before any work: unusable, 2
    assert result.exit_code == 2
    assert lines(result.stderr)[-1].startswith("error: ")
    assert str(out) in result.stderr


def test_version_without_an_installed_package_is_one_line_error(monkeypatch):
    import importlib.metadata

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    result = run(["version"])
    assert result.exit_code == 1
    assert lines(result.stderr) == [
        "error: webdenoise is not installed, so it has no version (pip install -e .)"]
