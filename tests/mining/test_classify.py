"""``mining classify``: the Naive Bayes page classifier, its file format, label files, the
command line, de-noising before learning, and the WebKB loader."""

import json
import random
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
from npzfiles import Tripwire, arrays_of, header_of, replaced, with_header
from sitegen import site_template
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB
from typer.testing import CliRunner

from commands.mining import app
from corpora.locate import CorpusMissingError, corpus_path
from denoise.arrayfile import ModelError
from denoise.detector import TemplateDetector
from denoise.page import Page
from denoise.shipped import shipped
from kwx.extractor import DEFAULT_RANKER
from mining.accuracy import ClassificationReport
from mining.classify import FORMAT_VERSION, PageClassifier, words
from mining.labels import LabelFileError, labelled_pages, read_label_file

runner = CliRunner()

SPORT = "goal match striker referee league penalty stadium keeper".split()
COOK = "recipe oven flour butter simmer garlic pastry sauce".split()
SHARED = "the and today with great".split()


def text(vocabulary: list[str], seed: int, n: int = 12) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(vocabulary + SHARED) for _ in range(n))


def corpus(n: int = 6) -> tuple[list[str], list[str]]:
    texts = [text(SPORT, i) for i in range(n)] + [text(COOK, 100 + i) for i in range(n)]
    return texts, ["sport"] * n + ["cook"] * n


@pytest.fixture(scope="module")
def fitted() -> PageClassifier:
    return PageClassifier().fit(*corpus())


@pytest.fixture(scope="module")
def saved(fitted, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("model") / "topics.npz"
    fitted.save(path)
    return path


@pytest.fixture(scope="module")
def detector() -> TemplateDetector:
    return TemplateDetector.load()


# --- the classifier -------------------------------------------------------------------


def test_words_are_lowercased_runs_of_letters_and_digits():
    assert words("Hello, WORLD! CS414 a_b x 42 café") == ["hello", "world", "cs414", "42",
                                                           "café"]
    assert words("a " + "z" * 41 + " ok") == ["ok"]  # single letters and long runs dropped


def test_held_out_words_decide(fitted):
    held_out = ["a striker and a keeper at the stadium", "garlic butter sauce in the oven",
                "PENALTY! Referee!", "Flour, pastry."]
    assert fitted.predict(held_out).tolist() == ["sport", "cook", "sport", "cook"]
    probabilities = fitted.predict_proba(held_out)
    assert np.allclose(probabilities.sum(axis=1), 1.0)
    assert (probabilities.max(axis=1) > 0.9).all()
    assert fitted.classes_.tolist() == ["cook", "sport"]
    assert fitted.class_count_.tolist() == [6, 6]


def test_numpy_prediction_matches_scikit_learn():
    texts, labels = corpus()
    texts[0] += " " + " ".join(COOK[:3])  # not separable by one word: real probabilities
    ours = PageClassifier(alpha=0.5, fit_prior=False).fit(texts, labels)
    vectorizer = CountVectorizer(analyzer=words)
    theirs = MultinomialNB(alpha=0.5, fit_prior=False).fit(vectorizer.fit_transform(texts),
                                                           labels)
    test = [text(SPORT + COOK, 500 + i) for i in range(20)] + ["nothing known here"]
    expected = theirs.predict_log_proba(vectorizer.transform(test))
    assert np.allclose(ours.predict_log_proba(test), expected)
    assert ours.predict(test).tolist() == theirs.predict(vectorizer.transform(test)).tolist()


def test_unknown_words_leave_the_prior():
    model = PageClassifier().fit(["goal goal", "goal match", "oven"], ["a", "a", "b"])
    assert model.predict(["zzz qqq"]).tolist() == ["a"]  # prior 2:1
    assert np.allclose(model.predict_proba(["zzz"])[0], [2 / 3, 1 / 3])


@pytest.mark.parametrize(("params", "message"), [
    ({"alpha": 0}, "alpha"), ({"alpha": float("nan")}, "alpha"), ({"min_df": 0}, "min_df"),
    ({"denoise": "sites"}, "denoise"), ({"recall": 0.5}, "denoise='page'"),
    ({"denoise": "page", "recall": 1.5}, "recall"), ({"fit_prior": "yes"}, "fit_prior"),
])
def test_bad_parameters_are_refused_in_fit(params, message):
    model = PageClassifier(**params)  # __init__ only stores them
    with pytest.raises(ValueError, match=message):
        model.fit(*corpus())


def test_bad_training_data_is_refused():
    with pytest.raises(ValueError, match="two labels"):
        PageClassifier().fit(["goal", "match"], ["sport", "sport"])
    with pytest.raises(ValueError, match="2 texts but 1 labels"):
        PageClassifier().fit(["goal", "oven"], ["sport"])
    with pytest.raises(ValueError, match="no words"):
        PageClassifier().fit(["!", "?"], ["a", "b"])
    with pytest.raises(ValueError, match="not one string"):
        PageClassifier().fit("goal oven", ["a", "b"])
    with pytest.raises(NotFittedError):
        PageClassifier().predict(["goal"])


def test_min_df_drops_rare_words():
    model = PageClassifier(min_df=2).fit(["goal match", "goal oven", "oven pastry"],
                                         ["a", "a", "b"])
    assert model.vocabulary_.tolist() == ["goal", "oven"]


# --- the file format ------------------------------------------------------------------


def test_save_and_load_round_trip(fitted, saved):
    loaded = PageClassifier.load(saved)
    header = loaded.header_
    assert header["format_version"] == FORMAT_VERSION
    assert header["params"] == {"alpha": 1.0, "denoise": "main", "fit_prior": True,
                                "min_df": 1, "recall": None}
    assert loaded.get_params() == fitted.get_params()
    assert loaded.vocabulary_.tolist() == fitted.vocabulary_.tolist()
    test = [text(SPORT + COOK, 700 + i) for i in range(10)]
    assert np.array_equal(loaded.predict_log_proba(test), fitted.predict_log_proba(test))
    members = arrays_of(saved)
    assert set(members) == {"header", "vocabulary", "class_log_prior", "feature_log_prob"}
    assert all(a.dtype != object for a in members.values())


def test_parameters_are_stored(tmp_path):
    model = PageClassifier(denoise="page", recall=0.5, alpha=0.1).fit(*corpus())
    model.save(tmp_path / "m.npz")
    loaded = PageClassifier.load(tmp_path / "m.npz")
    assert (loaded.denoise, loaded.recall, loaded.alpha) == ("page", 0.5, 0.1)


def test_a_numpy_bool_fit_prior_is_saved(tmp_path):
    model = PageClassifier(fit_prior=np.False_).fit(*corpus())
    model.save(tmp_path / "m.npz")
    loaded = PageClassifier.load(tmp_path / "m.npz")
    header = loaded.header_
    assert header["params"]["fit_prior"] is False and loaded.fit_prior is False


def _refusal(path: Path, data: bytes | None = None) -> str:
    if data is not None:
        path.write_bytes(data)
    with pytest.raises(ModelError) as caught:
        PageClassifier.load(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and "\n" not in message
    return message


def test_corrupt_files_are_refused(saved, tmp_path):
    assert "no such" in _refusal(tmp_path / "missing.npz")
    assert "not a readable" in _refusal(tmp_path / "garbage.npz", b"not a zip at all")
    whole = saved.read_bytes()
    assert "not a readable" in _refusal(tmp_path / "cut.npz", whole[: len(whole) // 2])
    with zipfile.ZipFile(tmp_path / "empty.npz", "w"):
        pass
    assert "no header" in _refusal(tmp_path / "empty.npz")


def test_other_kinds_and_versions_are_refused(saved, tmp_path):
    assert "keyword-ranker" in _refusal(shipped(DEFAULT_RANKER))
    assert "format 99" in _refusal(tmp_path / "v99.npz", with_header(saved, format_version=99))
    assert "tokenizer" in _refusal(tmp_path / "tok.npz", with_header(
        saved, tokenizer={**header_of(arrays_of(saved))["tokenizer"], "max": 10}))


@pytest.mark.parametrize(("change", "reason"), [
    (lambda p: replaced(p, "feature_log_prob", None), "corrupt"),
    (lambda p: replaced(p, "feature_log_prob", np.zeros((2, 3))), "do not match"),
    (lambda p: replaced(p, "class_log_prior", np.array([np.nan, 0.0])), "finite"),
    (lambda p: replaced(p, "class_log_prior", np.log([0.9, 0.9])), "sum to 1"),
    (lambda p: replaced(p, "vocabulary", np.frombuffer(b"\xff\xfe", np.uint8)), "corrupt"),
    (lambda p: replaced(p, "vocabulary", np.zeros(3, np.float64)), "UTF-8"),
    (lambda p: with_header(p, classes=["only"]), "two or more"),
    (lambda p: with_header(p, params={"alpha": -1}), "alpha"),
    (lambda p: with_header(p, params={"bogus": 1}), "corrupt"),
])
def test_broken_contents_are_refused(saved, tmp_path, change, reason):
    assert reason in _refusal(tmp_path / "broken.npz", change(saved))


def test_pickles_are_never_loaded(saved, tmp_path):
    trap = tmp_path / "unpickled"
    objects = np.empty(1, dtype=object)
    objects[0] = Tripwire(str(trap))
    assert "pickled" in _refusal(tmp_path / "pickle.npz", replaced(saved, "vocabulary", objects))
    assert not trap.exists()


# --- label files ----------------------------------------------------------------------


def test_label_file_paths_are_relative_to_its_folder(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    (folder / "pages").mkdir(parents=True)
    (folder / "pages" / "a.html").write_text("<p>goal match</p>")
    (folder / "labels.tsv").write_bytes(
        b"\xef\xbb\xbfpath\tlabel\r\n# a comment\n\npages/a.html\tsport\r\n"
        + f"{folder / 'pages' / 'b.html'}\tcook\n".encode())
    monkeypatch.chdir(tmp_path)  # not the TSV's folder
    entries = read_label_file(Path("data/labels.tsv"))
    assert [(e.path, e.label, e.line) for e in entries] == [
        (Path("data/pages/a.html"), "sport", 4), (folder / "pages" / "b.html", "cook", 5)]
    skipped: list[str] = []
    found = list(labelled_pages("data/labels.tsv", entries, on_skip=skipped.append))
    assert [(page.html.count("goal"), label) for page, label in found] == [(1, "sport")]
    assert skipped == [f"data/labels.tsv:5: {folder / 'pages' / 'b.html'}: "
                       "no such file or directory"]


@pytest.mark.parametrize(("content", "where", "reason"), [
    (b"a.html\tsport\nb.html\n", ":2:", "got 1 field"),
    (b"a.html\tsport\textra\n", ":1:", "got 3 fields"),
    (b"a.html\t \n", ":1:", "empty label"),
    (b"\tsport\n", ":1:", "empty path"),
    (b"a.html\tsp\xffort\n", ":1:", "not UTF-8"),
])
def test_malformed_lines_are_errors_naming_file_and_line(tmp_path, content, where, reason):
    tsv = tmp_path / "labels.tsv"
    tsv.write_bytes(content)
    with pytest.raises(LabelFileError) as caught:
        read_label_file(tsv)
    assert str(caught.value).startswith(f"{tsv}{where}") and reason in str(caught.value)


def test_missing_label_file(tmp_path):
    with pytest.raises(LabelFileError, match="no such label file"):
        read_label_file(tmp_path / "none.tsv")


def test_classification_report():
    report = ClassificationReport.of(["a", "a", "b", "b", "b"], ["a", "b", "b", "b", "c"])
    assert report.labels == ("a", "b", "c")
    assert report.confusion.tolist() == [[1, 1, 0], [0, 2, 1], [0, 0, 0]]
    assert (report.correct, report.total, report.accuracy) == (3, 5, 0.6)
    assert np.allclose(report.precision(), [1, 2 / 3, 0])
    assert np.allclose(report.recall(), [0.5, 2 / 3, 0])


# --- the command line -----------------------------------------------------------------


def run(args: list[object]):
    result = runner.invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.strip()]


@pytest.fixture
def labelled(tmp_path) -> Path:
    """Pages of two topics, a training TSV (one line naming a missing page) and a test TSV."""
    pages = tmp_path / "pages"
    pages.mkdir()
    for i in range(4):
        for topic, vocabulary, seed in (("sport", SPORT, i), ("cook", COOK, 50 + i)):
            (pages / f"{topic}{i}.html").write_text(
                f"<html><body><div><p>{text(vocabulary, seed, 20)}</p></div></body></html>")
    (tmp_path / "train.tsv").write_text(
        "".join(f"pages/{t}{i}.html\t{t}\n" for i in range(3) for t in ("sport", "cook"))
        + "pages/gone.html\tsport\n")
    (tmp_path / "test.tsv").write_text("pages/sport3.html\tsport\npages/cook3.html\tcook\n"
                                       "pages/cook2.html\tsport\n")
    return tmp_path


@pytest.mark.slow
def test_cli_train_predict_evaluate(labelled):
    model = labelled / "m.npz"
    trained = run(["classify", "train", labelled / "train.tsv", "--out", model])
    assert trained.exit_code == 0, trained.output
    assert f"train.tsv:7: {labelled / 'pages' / 'gone.html'}: no such file" in trained.stderr
    assert "6 pages (cook 3, sport 3)" in trained.stderr and "1 skipped" in trained.stderr

    predicted = run(["classify", "predict", labelled / "pages" / "sport3.html",
                     labelled / "pages" / "cook3.html", "--model", model])
    assert predicted.exit_code == 0
    rows = [json.loads(line) for line in lines(predicted.stdout)]
    assert [(Path(r["page"]).name, r["label"]) for r in rows] == [("sport3.html", "sport"),
                                                                  ("cook3.html", "cook")]
    assert all(0.5 < r["score"] <= 1 and r["score"] == max(r["scores"].values()) for r in rows)
    assert "2 pages read, 2 written, 0 skipped" in predicted.stderr

    evaluated = run(["classify", "evaluate", labelled / "test.tsv", "--model", model])
    assert evaluated.exit_code == 0
    assert lines(evaluated.stdout)[0] == "accuracy 0.6667 (2 of 3 pages)"
    as_json = json.loads(run(["classify", "evaluate", labelled / "test.tsv", "-m", model,
                              "--json"]).stdout)
    assert as_json["accuracy"] == pytest.approx(2 / 3) and as_json["confusion"] == [[1, 0],
                                                                                   [1, 1]]


def test_cli_predict_keeps_input_order_with_site_denoising(labelled):
    model = labelled / "site.npz"
    assert run(["classify", "train", labelled / "train.tsv", "-o", model,
                "--denoise", "site"]).exit_code == 0
    assert PageClassifier.load(model).denoise == "site"
    rows = [json.loads(line) for line in lines(run(
        ["classify", "predict", labelled / "pages", "-m", model]).stdout)]
    assert [r["page"] for r in rows] == sorted(p.name for p in (labelled / "pages").iterdir())
    assert [r["label"] for r in rows] == ["cook"] * 4 + ["sport"] * 4


@pytest.mark.parametrize("denoise", ["none", "page", "main"])
def test_predictions_worked_a_batch_at_a_time_are_each_pages_own(labelled, denoise):
    from commands.mining_classify import PredictJob
    from denoise.errors import PageError

    model = labelled / f"{denoise}.npz"
    assert run(["classify", "train", labelled / "train.tsv", "-o", model,
                "--denoise", denoise, *(["--recall", "0.9"] if denoise == "page" else [])]
               ).exit_code == 0
    job = PredictJob(model=model, detector_path=None)
    job.setup()
    pages = [Page(id=path.name, html=path.read_text())
             for path in sorted((labelled / "pages").iterdir())]
    pages.insert(3, Page(id="empty.html", html=""))  # refused: no HTML
    many = job.many(pages)
    assert isinstance(many[3], PageError) and "empty.html" in str(many[3])
    assert [many[i] for i in range(len(pages)) if i != 3] == [
        job(page) for page in pages if page.id != "empty.html"]
    records = [json.loads(line) for lines in many if isinstance(lines, list) for line in lines]
    assert [r["page"] for r in records] == [p.id for p in pages if p.id != "empty.html"]


def test_site_denoising_keeps_text_outside_blocks():
    pages = [Page(id=f"{i}.html", html=f"<html><body><p>{text(SPORT, i, 20)}</p></body></html>",
                  site="one") for i in range(4)]
    model = PageClassifier(denoise="site")
    assert all(kept for _, kept in model.texts(pages))


def test_cli_errors(labelled):
    bad = labelled / "bad.tsv"
    bad.write_text("pages/sport0.html\tsport\npages/cook0.html cook\n")
    result = run(["classify", "train", bad, "-o", labelled / "x.npz"])
    assert result.exit_code == 2
    assert lines(result.stderr) == [f"error: {bad}:2: expected path<TAB>label, got 1 field"]

    corrupt = labelled / "corrupt.npz"
    corrupt.write_bytes(b"PK\x03\x04 broken")
    for command in (["predict", labelled / "pages"], ["evaluate", labelled / "test.tsv"]):
        result = run(["classify", *command, "--model", corrupt])
        assert result.exit_code == 2
        assert len(lines(result.stderr)) == 1 and lines(result.stderr)[0].startswith(
            f"error: {corrupt}: not a readable page classifier")

    gone = labelled / "gone.tsv"
    gone.write_text("pages/gone.html\tsport\n")
    result = run(["classify", "train", gone, "-o", labelled / "x.npz"])
    assert result.exit_code == 1 and "no readable pages" in result.stderr
    one = labelled / "one.tsv"
    one.write_text("pages/sport0.html\tsport\n")
    assert run(["classify", "train", one, "-o", labelled / "x.npz"]).exit_code == 1
    assert run(["classify", "train", labelled / "train.tsv", "-o", labelled / "x.npz",
                "--recall", "0.5"]).exit_code == 2  # --recall needs --denoise page
    assert not (labelled / "x.npz").exists()


# --- de-noising before learning --------------------------------------------------------


def template_page(site: int, vocabulary: list[str], index: int, *, paragraphs: int = 2,
                  length: int = 14) -> Page:
    """A page of generated site ``site``: its navigation twice (header and sidebar) and
    its footer around a short article of ``vocabulary`` words."""
    rng = random.Random(1000 * site + index)
    nav, footer = site_template(site)
    article = "".join(f"<p>{text(vocabulary, rng.randrange(10**6), length).capitalize()}.</p>"
                      for _ in range(paragraphs))
    heading = " ".join(rng.choice(vocabulary) for _ in range(4))
    html = (f"<html><head><title>{heading}</title></head><body>{nav}"
            f"{nav.replace('header', 'sidebar')}<div id='main'><h2>{heading}</h2>{article}"
            f"</div>{footer}</body></html>")
    host = f"site{site}.example"
    return Page(id=f"{host}/{index}.html", html=html, url=f"http://{host}/{index}.html",
                site=host)


def test_page_denoising_changes_what_is_learned(detector):
    """Chakrabarti et al.'s case: each class's training pages come from a site of its
    own, so the template words of a site stand for a class. A sport story on the cook
    site's pages is called cook on its full text; without the templates, sport."""
    train = [template_page(0, SPORT, i) for i in range(6)] + \
        [template_page(1, COOK, i) for i in range(6)]
    labels = ["sport"] * 6 + ["cook"] * 6
    test = [template_page(1, SPORT, 99, paragraphs=1, length=10),
            template_page(0, COOK, 98, paragraphs=1, length=10)]
    learned = {}
    for mode in ("none", "page"):
        model = PageClassifier(denoise=mode)
        model.fit([t for _, t in model.texts(train, detector=detector)], labels)
        learned[mode] = (set(model.vocabulary_.tolist()),
                         model.predict([t for _, t in model.texts(test, detector=detector)]))
    template_words = {"acme", "globex", "copyright", "rights", "reserved", "privacy"}
    assert template_words <= learned["none"][0]
    assert not template_words & learned["page"][0]
    assert learned["page"][0] <= set(SPORT + COOK + SHARED)
    assert learned["none"][1].tolist() == ["cook", "sport"]  # the templates decide
    assert learned["page"][1].tolist() == ["sport", "cook"]  # the words of the story do


# --- WebKB ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def webkb_archive() -> Path:
    try:
        return corpus_path("webkb.tar.xz")
    except CorpusMissingError as missing:
        pytest.skip(str(missing))


@pytest.mark.corpus
def test_webkb_loader(webkb_archive):
    from corpora.webkb import drop_conflicting_urls, read_webkb, split_http

    skipped: list = []
    pages = read_webkb(webkb_archive, classes=["course", "faculty", "project", "student",
                                               "staff"], skipped=skipped)
    cornell = [p for p in pages if p.university == "cornell"]
    assert len([p for p in cornell if p.label == "course"]) == 44
    assert {p.page.site for p in cornell} == {"cornell"}
    assert all(p.page.url.startswith(("http", "ftp", "file")) for p in cornell)
    first = next(p for p in cornell if p.page.id == "pages/course/cornell/0001.http")
    assert first.page.html.lstrip().startswith("<html>")  # the HTTP header is gone
    assert {p.page.site for p in pages if p.university == "misc"} >= {"www.cs.columbia.edu"}
    # two real pages with stray NUL bytes among these classes: read, the NULs removed
    assert not skipped
    kept, dropped = drop_conflicting_urls(pages)
    # 6 URLs under two of these classes; the seventh pairs project with other, not loaded
    assert len(dropped) == 12 and len(kept) == len(pages) - 12
    assert {p.university for p in dropped} == {"misc"}
    assert len({p.page.url for p in dropped}) == 6
    assert split_http(b"Date: x\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>") == (
        {"date": "x", "content-type": "text/html; charset=utf-8"}, b"<p>")
    assert split_http(b"<html>no header</html>") == ({}, b"<html>no header</html>")


def test_cli_refuses_a_classifier_whose_texts_other_models_made(labelled):
    import hashlib

    from denoise.cleaning import PAGE_RECALL
    from denoise.model import default_model_path

    model = labelled / "page.npz"
    assert run(["classify", "train", labelled / "train.tsv", "-o", model,
                "--denoise", "page"]).exit_code == 0
    trained = PageClassifier.load(model)
    assert trained.recall == PAGE_RECALL  # stored: a later default does not move it
    digest = trained.header_["training"]["models"]
    assert digest == f"sha256:{hashlib.sha256(default_model_path().read_bytes()).hexdigest()[:16]}"
    page = labelled / "pages" / "sport3.html"
    assert run(["classify", "predict", page, "-m", model]).stderr.count("warning") == 0

    trained.save(model, extra={"training": {"models": "sha256:0123456789abcdef"}})
    refused = run(["classify", "predict", page, "-m", model])
    assert refused.exit_code == 2 and refused.stdout == ""
    assert lines(refused.stderr) == [
        f"error: {model}: trained on texts of other models (sha256:0123456789abcdef) than "
        f"this version's ({digest}): retrain it with 'mining classify train'"]
    assert run(["classify", "evaluate", labelled / "test.tsv", "-m", model]).exit_code == 2

    trained.save(model)  # as saved from Python: nothing recorded
    warned = run(["classify", "predict", page, "-m", model])
    assert warned.exit_code == 0 and "sport" in warned.stdout
    assert f"warning: {model}: records no models (this version's: {digest})" in warned.stderr

    trained.save(model, extra={"training": {"detector": "mine.npz", "models": None}})
    mine = run(["classify", "predict", page, "-m", model])
    assert mine.exit_code == 2 and lines(mine.stderr) == [
        f"error: {model}: trained on texts of the detector mine.npz: give it with --detector"]


def test_a_worker_whose_shipped_models_differ_from_the_checked_ones_refuses(labelled):
    from commands.mining_classify import PredictJob
    from denoise.cleaning import models_digest
    from denoise.errors import ModelError

    model = labelled / "main.npz"
    assert run(["classify", "train", labelled / "train.tsv", "-o", model]).exit_code == 0
    checked = models_digest(PageClassifier.load(model).denoise)
    PredictJob(model=model, detector_path=None, models=checked).setup()  # the same: loads
    job = PredictJob(model=model, detector_path=None, models="main:0000")
    with pytest.raises(ModelError, match=f"main.npz: .*\\({re.escape(checked)}\\).*main:0000"):
        job.setup()
    assert job.classifier is None


def test_predict_sends_workers_the_digest_it_checked(labelled, monkeypatch):
    import commands.mining_classify as cli
    from denoise.cleaning import models_digest

    model = labelled / "main.npz"
    assert run(["classify", "train", labelled / "train.tsv", "-o", model]).exit_code == 0
    sent = []
    monkeypatch.setattr(cli, "run_pages", lambda err, inputs, job, **_: sent.append(job))
    assert run(["classify", "predict", labelled / "pages", "-m", model]).exit_code == 0
    assert [job.models for job in sent] == [models_digest(PageClassifier.load(model).denoise)]
