"""The page-level block classifier: learns templates across sites, saves and loads safely."""

import io
import pickle
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from npzfiles import Tripwire, arrays_of, npz_bytes, replaced, with_header
from sitegen import article_site, generated_site, labelled_pages
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError

from denoise.errors import PageError
from denoise.evaluate import xpath_main_text
from denoise.features import FEATURE_NAMES, extract
from denoise.forest import flatten_forest, forest_proba, forest_proba_python
from denoise.model import (
    CLASSIFIERS,
    FORMAT_VERSION,
    ModelError,
    TemplateModel,
)
from denoise.page import Page
from denoise.training import (
    NO_LABEL,
    gold_labels,
    read_main_xpath_tables,
    read_main_xpaths,
    training_pages,
    with_main_text,
    with_main_xpaths,
)

#: Generated sites the models never train on (labelled_pages() covers sites 0-5).
NEW_SITES = (6, 7, 8, 10, 14)


def make_model(classifier: str) -> TemplateModel:
    return TemplateModel(classifier=classifier, n_trees=20)


@pytest.fixture(scope="module", params=CLASSIFIERS)
def fitted(request):
    return make_model(request.param).fit(labelled_pages())


@pytest.fixture(scope="module")
def new_pages():
    """Labelled pages of sites none of the models saw."""
    return [page for number in NEW_SITES
            for page in training_pages(generated_site(number, 6), min_pages=5)]


@pytest.fixture(scope="module")
def saved_logistic(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "logistic.npz"
    make_model("logistic").fit(labelled_pages()).save(path, extra={"note": "test"})
    return path


# --- learning -------------------------------------------------------------------------


def test_template_blocks_of_a_new_site_score_above_its_article(fitted, new_pages):
    for page in new_pages:
        scores = fitted.predict_proba(page.features)
        assert scores.shape == (len(page.features),)
        assert ((scores >= 0) & (scores <= 1)).all()
        template, content = scores[page.labels == 1], scores[page.labels == 0]
        assert len(template) and len(content)
        assert template.min() > content.max(), (fitted.classifier, page.page.url)


def test_a_vocabulary_no_word_reaches_still_predicts(new_pages):
    """Too few site families for any word to count: the text model has no words, and
    the other features still decide."""
    model = TemplateModel(classifier="forest", n_trees=20, min_word_sites=1000)
    model.fit(labelled_pages())
    assert model.vocabulary_ == {}
    scores = model.predict_proba(new_pages[0].features)
    assert np.isfinite(scores).all() and len(scores) == len(new_pages[0].features)


def test_a_page_without_scored_blocks_scores_nothing(fitted):
    scores = fitted.predict_proba(extract(Page(id="tiny.html", html="<p>hi</p>")))
    assert scores.shape == (0,)


def test_predicting_or_saving_before_fitting_is_refused(tmp_path):
    page = extract(generated_site(0, 1)[0])
    with pytest.raises(NotFittedError, match="fit"):
        TemplateModel().predict_proba(page)
    with pytest.raises(NotFittedError, match="fit"):
        TemplateModel().save(tmp_path / "never.npz")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("params", [
    {"classifier": "svm"}, {"classifier": "naive-bayes", "text": False}, {"C": 0},
    {"C": -1.0}, {"n_trees": 0}, {"min_leaf": 0}, {"max_depth": 0}, {"inner_folds": 0},
    {"min_word_sites": 0}, {"max_words": 0},
], ids=lambda params: ",".join(f"{k}={v}" for k, v in params.items()))
def test_invalid_params_raise_value_error_on_fit(params):
    model = TemplateModel(**params)  # __init__ only stores them
    name = next(iter(params)) if "classifier" not in params else "classifier"
    with pytest.raises(ValueError, match=name):
        model.fit(labelled_pages())


def test_training_needs_examples_of_both_classes():
    pages = labelled_pages()
    with pytest.raises(ValueError, match="no training examples"):
        TemplateModel().fit([])
    only_template = [type(p)(site=p.site, features=p.features, labels=p.labels,
                             example=p.example & (p.labels == 1)) for p in pages]
    with pytest.raises(ValueError, match="one class"):
        TemplateModel().fit(only_template)


# --- persistence ----------------------------------------------------------------------


def test_save_and_load_give_identical_predictions(fitted, new_pages, tmp_path):
    path = tmp_path / f"{fitted.classifier}.npz"
    fitted.save(path, extra={"curve_note": [1, 2, 3]})
    loaded = TemplateModel.load(path)
    header = loaded.header_
    assert header["curve_note"] == [1, 2, 3]
    assert header["format_version"] == FORMAT_VERSION
    assert header["features"] == list(FEATURE_NAMES)
    assert loaded.classifier == fitted.classifier
    assert loaded.vocabulary_ == fitted.vocabulary_
    for page in new_pages:
        np.testing.assert_array_equal(loaded.predict_proba(page.features),
                                      fitted.predict_proba(page.features))


def test_saving_is_atomic_and_leaves_no_temporary_files(tmp_path):
    model = make_model("naive-bayes").fit(labelled_pages())
    path = tmp_path / "model.npz"
    path.write_bytes(b"previous")
    model.save(path)
    TemplateModel.load(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.npz"]


def _without(path: Path, name: str) -> bytes:
    return replaced(path, name, None)


def _zip_without_header(_: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("readme.txt", "not a model")
    return buffer.getvalue()


BAD_FILES = {
    "garbage bytes": lambda good: b"\x89 this is not a model at all \x00\xff" * 20,
    "empty file": lambda good: b"",
    "truncated to half": lambda good: good.read_bytes()[: good.stat().st_size // 2],
    "truncated end": lambda good: good.read_bytes()[:-10],
    "zip without header": _zip_without_header,
    "npz without header": lambda good: _without(good, "header"),
    "header not json": lambda good: replaced(good, "header", np.frombuffer(b"{oops", np.uint8)),
    "header of floats": lambda good: replaced(good, "header", np.array([1.5, 2.5])),
    "another kind": lambda good: with_header(good, kind="someone-elses-model"),
    "wrong format version": lambda good: with_header(good, format_version=FORMAT_VERSION + 1),
    "wrong feature list": lambda good: with_header(good, features=[*FEATURE_NAMES[:-1], "x"]),
    "unknown classifier": lambda good: with_header(good, params={"classifier": "svm"}),
    "missing coefficients": lambda good: _without(good, "coef"),
    "coefficients too short": lambda good: replaced(good, "coef", np.zeros(3)),
    "object array inside": lambda good: replaced(good, "coef", np.array([1, None], dtype=object)),
    "plain pickle": lambda good: pickle.dumps({"coef": [1.0, 2.0]}),
}


@pytest.mark.parametrize("make", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_unusable_model_files_raise_model_error_naming_the_file(make, saved_logistic, tmp_path):
    path = tmp_path / "bad-model.npz"
    path.write_bytes(make(saved_logistic))
    with pytest.raises(ModelError) as caught:
        TemplateModel.load(path)
    assert caught.value.source == str(path)
    assert str(caught.value).startswith(f"{path}: ")


def test_model_error_messages_say_what_is_wrong(saved_logistic, tmp_path):
    cases = {
        "format": with_header(saved_logistic, format_version=FORMAT_VERSION + 1),
        "features": with_header(saved_logistic, features=["log_chars"]),
        "no header": _without(saved_logistic, "header"),
    }
    for words, content in cases.items():
        path = tmp_path / f"{words}.npz"
        path.write_bytes(content)
        with pytest.raises(ModelError, match=words):
            TemplateModel.load(path)


def test_a_missing_model_file_is_named(tmp_path):
    path = tmp_path / "nowhere" / "model.npz"
    with pytest.raises(ModelError, match="no such template model file") as caught:
        TemplateModel.load(path)
    assert caught.value.source == str(path)


def test_a_pickled_file_is_refused_and_never_unpickled(tmp_path):
    marker = tmp_path / "unpickled"
    path = tmp_path / "model.npy"
    np.save(path, np.array([Tripwire(str(marker))], dtype=object), allow_pickle=True)
    with pytest.raises(ModelError, match=r"model\.npy"):
        TemplateModel.load(path)
    assert not marker.exists()
    # the same inside an .npz
    npz = tmp_path / "model.npz"
    np.savez(npz, header=np.array([Tripwire(str(marker))], dtype=object))
    with pytest.raises(ModelError, match=r"model\.npz"):
        TemplateModel.load(npz)
    assert not marker.exists()


def test_a_plain_npy_file_is_a_model_error(tmp_path):
    path = tmp_path / "numbers.npy"
    np.save(path, np.arange(5.0))
    with pytest.raises(ModelError, match=r"numbers\.npy"):
        TemplateModel.load(path)


def test_corrupt_compressed_data_is_a_model_error(saved_logistic, tmp_path):
    data = bytearray(saved_logistic.read_bytes())
    with zipfile.ZipFile(saved_logistic) as archive:
        member = archive.getinfo("header.npy")
    # the local file header: 30 bytes, then the name and extra field, then the data
    name_size = int.from_bytes(data[member.header_offset + 26:member.header_offset + 28], "little")
    extra_size = int.from_bytes(data[member.header_offset + 28:member.header_offset + 30],
                                "little")
    start = member.header_offset + 30 + name_size + extra_size
    data[start:start + 8] = b"\xff" * 8  # deflate block type 3: invalid
    path = tmp_path / "corrupt.npz"
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match=r"corrupt\.npz"):
        TemplateModel.load(path)


# --- the flattened forest -------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_flattened_forest_predicts_as_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    X = rng.random((300, 6)).astype(np.float32)
    X[:, 1] = rng.integers(0, 3, 300)  # a discrete column: ties at the thresholds
    y = ((X[:, 0] + 0.2 * X[:, 1] + 0.3 * rng.random(300)) > 0.8).astype(int)
    forest = RandomForestClassifier(n_estimators=12, min_samples_leaf=1 + seed,
                                    max_depth=None if seed % 2 else 4,
                                    random_state=seed).fit(X, y)
    flat = flatten_forest(forest)
    test = np.vstack((X, rng.random((200, 6)).astype(np.float32),
                      rng.normal(0, 5, (50, 6)).astype(np.float32)))
    np.testing.assert_allclose(forest_proba(flat, test), forest.predict_proba(test)[:, 1],
                               atol=1e-6)


def test_flattened_forest_splits_adjacent_float32_values_as_scikit_learn():
    low = np.nextafter(np.float32(8.0), np.float32(9.0))
    high = np.nextafter(low, np.float32(9.0))
    X = np.array([[low], [low], [high], [high]], dtype=np.float32)
    forest = RandomForestClassifier(n_estimators=1, bootstrap=False, random_state=0).fit(
        X, [0, 0, 1, 1])
    np.testing.assert_array_equal(forest.predict_proba(X)[:, 1], [0, 0, 1, 1])
    np.testing.assert_array_equal(forest_proba(flatten_forest(forest), X), [0, 0, 1, 1])


# --- training data from site-level labels ------------------------------------------------


def test_training_pages_label_each_sites_template_and_content():
    pages = labelled_pages()
    assert len(pages) == 60
    assert len({page.site for page in pages}) == 6
    for page in pages:
        name = page.site[4:-4].capitalize()
        assert page.labels.shape == page.example.shape == (len(page.features),)
        assert (page.labels[page.example] >= 0).all()
        assert page.example.any()
        texts = [page.features.blocks.block_text(b) for b in page.features.nodes.tolist()]
        template = [t for t, label in zip(texts, page.labels, strict=True) if label == 1]
        content = [t for t, label in zip(texts, page.labels, strict=True) if label == 0]
        assert template and content
        for text in template:
            assert f" at {name}" in text or "rights reserved" in text, text
        for text in content:
            assert f" at {name}" not in text and "rights reserved" not in text, text
        assert page.page.site == page.site


def test_sites_with_too_few_pages_give_no_training_pages():
    pages = generated_site(0, 6) + generated_site(1, 3)
    sites = {page.site for page in training_pages(pages, min_pages=5)}
    assert sites == {generated_site(0, 1)[0].site}


def test_an_unusable_page_is_raised_or_handed_to_on_error():
    bad = Page(id="broken.html", html="", site="www.acme.com")
    pages = [*generated_site(0, 5), bad]
    with pytest.raises(PageError, match=r"broken\.html"):
        list(training_pages(pages, min_pages=5))
    errors = []
    kept = list(training_pages(pages, min_pages=5, on_error=errors.append))
    assert len(kept) == 5
    assert [error.source for error in errors] == ["broken.html"]


def test_compiled_forest_walk_equals_the_python_walk():
    from sklearn.ensemble import RandomForestClassifier


    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 6)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    forest = flatten_forest(RandomForestClassifier(n_estimators=7, random_state=0).fit(X, y))
    assert np.allclose(forest_proba(forest, X), forest_proba_python(forest, X))
    # trees listed in another order than they lie, and fewer rows than the eight the
    # compiled walk takes down a tree together
    backwards = {key: value for key, value in forest.items() if not key.startswith("_")}
    backwards["roots"] = forest["roots"][::-1].copy()
    for rows in (X, X[:3]):
        assert np.allclose(forest_proba(dict(backwards), rows),
                           forest_proba_python(dict(backwards), rows))
        assert np.allclose(forest_proba(dict(backwards), rows), forest_proba(forest, rows))


@pytest.fixture(scope="module")
def saved_forest(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "forest.npz"
    make_model("forest").fit(labelled_pages()).save(path)
    return path


def _forest_cycle(good: Path) -> bytes:
    """Children stored as floats that truncate onto their parent: a walk that never ends."""
    arrays = arrays_of(good)
    roots = arrays["forest_roots"]
    left = arrays["forest_left"].astype(np.float64)
    left[roots] = roots + 0.5
    arrays["forest_left"] = left
    return npz_bytes(arrays)


def _forest_backwards(good: Path) -> bytes:
    arrays = arrays_of(good)
    internal = np.flatnonzero(arrays["forest_feature"] >= 0)
    arrays["forest_right"][internal[-1]] = internal[-1]
    return npz_bytes(arrays)


BAD_FORESTS = {
    "float child indices": _forest_cycle,
    "a child pointing at itself": _forest_backwards,
    "leaf values beyond 1": lambda good: replaced(good, "forest_value", np.full(
        len(arrays_of(good)["forest_value"]), 7.0, dtype=np.float32)),
    "feature out of range": lambda good: replaced(good, "forest_feature", np.full(
        len(arrays_of(good)["forest_feature"]), 10_000, dtype=np.int32)),
}


@pytest.mark.parametrize("make", BAD_FORESTS.values(), ids=BAD_FORESTS.keys())
def test_crafted_forests_are_refused_before_any_walk(make, saved_forest, tmp_path):
    path = tmp_path / "crafted.npz"
    path.write_bytes(make(saved_forest))
    with pytest.raises(ModelError, match=r"crafted\.npz: corrupt model file"):
        TemplateModel.load(path)


# --- compiled and Python scoring paths -------------------------------------------------------


def _stump_forest() -> dict[str, np.ndarray]:
    """Tree 0: a lone leaf (0.25); tree 1: one split on feature 1 at 0.5 (0.0 left, 1.0
    right)."""
    return {
        "feature": np.array([-1, 1, -1, -1], dtype=np.int32),
        "threshold": np.array([-2.0, 0.5, -2.0, -2.0]),
        "left": np.array([0, 2, 2, 3], dtype=np.int32),
        "right": np.array([0, 3, 2, 3], dtype=np.int32),
        "value": np.array([0.25, 0.0, 0.0, 1.0], dtype=np.float32),
        "roots": np.array([0, 1], dtype=np.int32),
        "depth": np.array([2], dtype=np.int32),
    }


def test_compiled_forest_walk_handles_stumps_and_any_row_count():
    forest = _stump_forest()
    for rows in (0, 1, 7, 8, 9, 17):
        X = np.zeros((rows, 2), dtype=np.float32)
        X[::2, 1] = 1.0
        want = np.where(X[:, 1] > 0.5, 0.625, 0.125)
        np.testing.assert_allclose(forest_proba(dict(forest), X), want, rtol=1e-6)
        np.testing.assert_allclose(forest_proba_python(dict(forest), X), want, rtol=1e-6)


def test_the_python_walk_reads_rows_as_the_compiled_walk_does():
    """A float64 value just above a threshold is at it in float32 (scikit-learn's and the
    compiled walk's reading): both walks send it left and give the same bits."""
    from sklearn.ensemble import RandomForestClassifier

    forest = _stump_forest()
    X = np.array([[0.0, 0.5 + 1e-12], [0.0, 0.5001]])
    np.testing.assert_array_equal(forest_proba_python(dict(forest), X), [0.125, 0.625])
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 6))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    fitted = RandomForestClassifier(n_estimators=9, random_state=0).fit(X, y)
    rows = np.concatenate((X, X + 1e-9))  # some of them a hair past a threshold
    flat = flatten_forest(fitted)
    np.testing.assert_array_equal(forest_proba_python(dict(flat), rows),
                                  forest_proba(dict(flat), rows))
    np.testing.assert_allclose(forest_proba_python(dict(flat), rows),
                               fitted.predict_proba(rows)[:, 1], rtol=1e-6)


def test_word_table_gives_the_vocabulary_dicts_indices():
    from denoise import model as model_module

    if model_module._compiled is None:
        pytest.skip("the compiled extension is not built here")
    vocabulary = ["", "a", "home", "straße", "東京", "ab", "ba", "x" * 5000, "σοφός", "😀"]
    table = model_module._compiled.WordTable(vocabulary)
    probes = [*vocabulary, "A", "Home", "homes", "hom", "strasse", "東", "東京都", "b", "x" * 4999,
              "σοφόσ", "😀😀", "home"]
    want = [vocabulary.index(w) if w in vocabulary else -1 for w in probes]
    np.testing.assert_array_equal(table.lookup(probes), want)
    assert table.lookup([]).shape == (0,)
    weights = np.arange(len(vocabulary)) - 2.5
    weighed = model_module._compiled.WordTable(vocabulary, weights).weigh(probes)
    np.testing.assert_array_equal(weighed[1], np.array(want) >= 0)
    np.testing.assert_array_equal(weighed[0], np.where(np.array(want) >= 0, weights[want], 0.0))
    again = pickle.loads(pickle.dumps(table))  # noqa: S301 - our own object, in a test
    np.testing.assert_array_equal(again.lookup(probes), want)
    with pytest.raises(ValueError, match="twice"):
        model_module._compiled.WordTable(["a", "b", "a"])


@pytest.fixture(scope="module")
def shipped_models():
    from denoise.detector import TemplateDetector
    from denoise.main_content import MainContentExtractor

    return [TemplateDetector.load().model, MainContentExtractor.load().content_model]


def test_compiled_scores_equal_python_on_real_pages(dev_site_pages, shipped_models, monkeypatch):
    from denoise import model as model_module

    if model_module._compiled is None:
        pytest.skip("the compiled extension is not built here")
    for page in dev_site_pages:
        feats = extract(page)
        for model in shipped_models:
            fast = (model.word_scores(feats), model.predict_proba(feats))
            with monkeypatch.context() as patch:
                patch.setattr(model_module, "_compiled", None)
                slow = (model.word_scores(feats), model.predict_proba(feats))
            np.testing.assert_array_equal(fast[0], slow[0])  # the same sums, in the same order
            np.testing.assert_allclose(fast[1], slow[1], rtol=1e-6, atol=1e-7)


def test_fitted_models_score_the_same_compiled_and_in_python(fitted, new_pages, monkeypatch):
    from denoise import model as model_module

    for page in new_pages[:6]:
        fast = fitted.predict_proba(page.features)
        with monkeypatch.context() as patch:
            patch.setattr(model_module, "_compiled", None)
            slow = fitted.predict_proba(page.features)
        np.testing.assert_allclose(fast, slow, rtol=1e-6, atol=1e-7)


def test_a_known_main_text_relabels_what_repetition_gets_wrong():
    # every page repeats a member table inside its main content (template by repetition)
    # and has its own reading tip outside it (content by repetition)
    members = ("<table><tr><td>int size() const returns the number of widgets held</td></tr>"
               "<tr><td>void clear() removes every widget from the gizmo</td></tr></table>")
    site = [replace(page, html=page.html.replace(
        '<div class="docnav">', f'<div class="tip"><p>Reading tip {index}: start with '
        f'widget {index}, then the gizmo chapters {index + 1} and {index + 2}.</p></div>'
        '<div class="docnav">')) for index, page in enumerate(
            article_site(12, extra=members, docnav=True))]
    pages = list(training_pages(site, min_pages=5))
    page = pages[3]
    texts = [page.features.blocks.block_text(b) for b in page.features.nodes.tolist()]
    main = xpath_main_text(page.page.html, "//div[@id='main']")
    relabelled = with_main_text(page, main)
    gold = gold_labels(page.features, main)

    def label(labels, needle):
        return {int(lab) for text, lab in zip(texts, labels, strict=True)
                if needle in text and len(text) < 200}

    assert label(page.labels, "void clear()") == {1}
    assert label(relabelled.labels, "void clear()") == {0}
    assert label(page.labels, "Reading tip") == {0}
    assert label(relabelled.labels, "Reading tip") == {1}
    undecided = gold == NO_LABEL
    assert (relabelled.labels[undecided] == page.labels[undecided]).all()
    assert not (relabelled.example & ~page.example).any()
    assert (relabelled.labels[relabelled.example] >= 0).all()


def test_a_main_xpaths_table_reads_sites_and_xpaths_and_skips_the_rest(tmp_path):
    table = tmp_path / "main.tsv"
    table.write_text("site\tmain_content_xpath\tcoverage\n# a comment\n\n"
                     "docs/a\t//div[@role='main']\t1.0\ndocs/b\t-\t0\n"
                     "docs/c\tid('content')\n", encoding="utf-8")
    assert read_main_xpaths(table) == {"docs/a": "//div[@role='main']", "docs/c": "id('content')"}
    table.write_text("# made by hand\nsite\txpath\ndocs/a\t//main\n", encoding="utf-8")
    assert read_main_xpaths(table) == {"docs/a": "//main"}
    table.write_text("docs/a\t//div[@role='main']\ndocs/b\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"main\.tsv:2: not a site and an XPath"):
        read_main_xpaths(table)


@pytest.mark.parametrize(("text", "message"), [
    ("docs/a\tcount(//div)\n", r"main\.tsv:1: not a site and an XPath that selects elements"),
    ("docs/a\t//x:div\n", r"main\.tsv:1: not a site and an XPath"),
    ("\t//main\n", r"main\.tsv:1: not a site and an XPath"),
    ("docs/a\t//main\ndocs/a\t//article\n", r"main\.tsv:2: docs/a is given twice"),
])
def test_a_main_xpaths_table_names_the_line_it_cannot_use(tmp_path, text, message):
    table = tmp_path / "main.tsv"
    table.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        read_main_xpaths(table)


def test_a_main_xpaths_table_may_open_with_a_bom_and_must_be_utf8(tmp_path):
    table = tmp_path / "main.tsv"
    table.write_bytes("docs/é\t//main\r\n".encode("utf-8-sig"))
    assert read_main_xpaths(table) == {"docs/é": "//main"}
    table.write_bytes("docs/é\t//main\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"main\.tsv: not UTF-8 text"):
        read_main_xpaths(table)
    with pytest.raises(ValueError, match=r"missing\.tsv: cannot read"):
        read_main_xpaths(tmp_path / "missing.tsv")


def test_several_main_xpaths_tables_read_as_one_and_a_site_in_two_is_refused(tmp_path):
    first, second = tmp_path / "a.tsv", tmp_path / "b.tsv"
    first.write_text("docs/a\t//main\n", encoding="utf-8")
    second.write_text("docs/b\t//article\n", encoding="utf-8")
    assert read_main_xpath_tables([first, second, first]) == {"docs/a": "//main",
                                                              "docs/b": "//article"}
    second.write_text("docs/b\t//article\ndocs/a\t//div\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"b\.tsv: docs/a is given in .*a\.tsv too"):
        read_main_xpath_tables([first, second])


def test_a_page_whose_xpath_selects_no_words_keeps_its_site_labels():
    pages = list(training_pages(article_site(12, extra="<div id='empty'> </div>"),
                                min_pages=5))
    for xpath in ("//div[@id='empty']", "//div[@id='nowhere']"):
        kept = list(with_main_xpaths(pages, {pages[0].site: xpath}))
        assert all(new is old for new, old in zip(kept, pages, strict=True))
    moved = list(with_main_xpaths(pages, {pages[0].site: "//div[@id='main']"}))
    assert all(new is not old for new, old in zip(moved, pages, strict=True))


def test_main_content_mode_mixes_the_template_model_of_repetition_alone():
    from denoise.detector import TemplateDetector
    from denoise.main_content import MainContentExtractor

    mixed = MainContentExtractor.load(listing_step=False).detector.model.header_["training"]
    shipped = TemplateDetector.load().model.header_["training"]
    assert "main_xpaths" not in mixed
    assert len(shipped["main_xpaths"]) == 17 + 54  # the dev and training documentation sites
