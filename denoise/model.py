"""The page-level block classifier (Kołcz & Yih 4.1): Naive Bayes over words, stacked
under a model of the other features.

Text is sparse and numerous, so it gets its own model: multinomial Naive Bayes over
the block's words, whose log-odds (summed, and per word) join the other features
(:mod:`denoise.features`) in a second model, logistic regression or a random
forest. The Naive Bayes scores the second model trains on are out-of-fold (folds
by site family, :func:`denoise.validation.site_family`), as they will be on a page
from an unseen site; scored in-sample they
would look far surer than they are.

Choices where the paper is vague or we differ:

- The vocabulary is the words seen in examples of at least ``min_word_sites`` site
  families (a word seen on one site teaches that site's template, not templates), at
  most ``max_words`` of them, most widespread first.
- Identical examples (same feature row, same words) are kept once, as the paper
  deduplicates its training set.
- No MDL discretization (Fayyad & Irani, which the paper applies before its
  models): the forest, our best and shipped model, cuts features into intervals by
  itself; the logistic regression gets standardized features instead and is kept as
  the paper's linear baseline. ``benchmarks/page_level.py`` measures both.

Scikit-learn fits the models; what is kept of them is plain arrays (``save`` /
``load``: an ``.npz`` of numbers and a JSON header, versioned, read without pickle),
and prediction is our own few numpy lines, so a model file never executes code.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Self

import numpy as np

from denoise.arrayfile import ModelError, read_arrays, write_arrays
from denoise.errors import not_fitted
from denoise.features import FEATURE_NAMES, PageFeatures, span_members
from denoise.forest import checked_forest, flatten_forest, forest_proba
from denoise.shipped import shipped
from denoise.validation import site_family

if TYPE_CHECKING:  # training's sparse bags only: scoring never imports scipy.sparse
    from scipy import sparse

try:
    from denoise import _compiled
except ImportError:  # the compiled extension is optional
    _compiled = None

#: Version of the saved model layout; ``load`` refuses any other.
FORMAT_VERSION = 1
#: Kind tag in the header, so a file of another tool is recognised as such.
FORMAT_KIND = "webdenoise-template-model"
CLASSIFIERS = ("logistic", "forest", "naive-bayes")


def _node_token_ids(features: PageFeatures, vocabulary: dict[str, int]) -> np.ndarray:
    """Per word of the page text, its vocabulary index, -1 when out of vocabulary."""
    known = np.fromiter(map(vocabulary.get, features.words, repeat(-1)), dtype=np.int64,
                        count=len(features.words))
    return known[features.token_ids]


def bag_of_words(features: PageFeatures, nodes: np.ndarray,
                 vocabulary: dict[str, int]) -> sparse.csr_matrix:
    """Word counts of the given nodes over ``vocabulary`` (rows follow ``nodes``)."""
    from scipy import sparse  # ~70 ms to import: every command starts without it

    token_ids = _node_token_ids(features, vocabulary)
    rows, positions = span_members(features.token_spans[nodes])
    ids = token_ids[positions]
    keep = ids >= 0
    return sparse.csr_matrix((np.ones(int(keep.sum()), dtype=np.float32),
                              (rows[keep], ids[keep])), shape=(len(nodes), len(vocabulary)))


class TemplateModel:
    """Scores blocks of a page as template (1) or content (0), for unseen sites.

    Parameters
    ----------
    classifier : ``"logistic"`` or ``"forest"``, the second-stage model; or
        ``"naive-bayes"``: the word model alone (the paper's "text" curve).
    text : use the Naive Bayes word score (the paper's "text" model) as a feature.
    min_word_sites, max_words : the vocabulary of the word model.
    C : inverse regularization of the logistic regression.
    n_trees, min_leaf, max_depth : the random forest.
    inner_folds : site folds for the out-of-fold word scores.
    random_state : seed of the forest and the folds.
    """

    def __init__(self, *, classifier: str = "forest", text: bool = True,
                 min_word_sites: int = 3, max_words: int = 20000, C: float = 1.0,
                 n_trees: int = 40, min_leaf: int = 20, max_depth: int = 14,
                 inner_folds: int = 5, random_state: int = 0) -> None:
        self.classifier = classifier
        self.text = text
        self.min_word_sites = min_word_sites
        self.max_words = max_words
        self.C = C
        self.n_trees = n_trees
        self.min_leaf = min_leaf
        self.max_depth = max_depth
        self.inner_folds = inner_folds
        self.random_state = random_state

    # ---- fitting -------------------------------------------------------------

    def _check_params(self) -> None:
        if self.classifier not in CLASSIFIERS:
            raise ValueError(f"classifier must be one of {CLASSIFIERS}, got {self.classifier!r}")
        if self.classifier == "naive-bayes" and not self.text:
            raise ValueError("classifier 'naive-bayes' needs text=True")
        for name in ("min_word_sites", "max_words", "n_trees", "min_leaf", "max_depth"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        if int(self.inner_folds) < 2:
            raise ValueError(f"inner_folds must be >= 2, got {self.inner_folds!r}")
        if not self.C > 0:
            raise ValueError(f"C must be > 0, got {self.C!r}")

    def fit(self, pages: Sequence) -> Self:
        """Fit on the examples of ``pages`` (:class:`denoise.training.TrainingPage`)."""
        self._check_params()
        pages = [p for p in pages if p.example.any()]
        if not pages:
            raise ValueError("no training examples: the pages gave no template or content labels")
        sites = np.array([site_family(p.site) for p in pages])
        self.vocabulary_ = self._vocabulary(pages) if self.text else {}
        rows, bags, labels, groups = [], [], [], []
        for page_index, page in enumerate(pages):
            nodes = np.flatnonzero(page.example)
            rows.append(page.features.matrix[nodes])
            bags.append(bag_of_words(page.features, nodes, self.vocabulary_))
            labels.append(page.labels[nodes])
            groups.append(np.full(len(nodes), page_index))
        X = np.concatenate(rows).astype(np.float64)
        from scipy import sparse

        bag = sparse.vstack(bags).tocsr()
        y = np.concatenate(labels).astype(np.int64)
        group = sites[np.concatenate(groups)]
        X, bag, y, group = _deduplicate(X, bag, y, group)
        if len(np.unique(y)) < 2:
            raise ValueError("training examples hold only one class")
        self.n_examples_ = len(y)
        if self.classifier == "naive-bayes":
            self._fit_words(bag, y)
            return self
        if self.text:
            word_scores = self._out_of_fold_word_scores(bag, y, group)
            self._fit_words(bag, y)
            X = np.column_stack((X, word_scores))
        self._fit_second_stage(X, y)
        return self

    def _vocabulary(self, pages: Sequence) -> dict[str, int]:
        site_words: dict[str, set[str]] = {}
        for page in pages:
            words = site_words.setdefault(site_family(page.site), set())
            ids = page.features.token_ids
            spans = page.features.token_spans[page.example]
            marks = (np.bincount(spans[:, 0], minlength=len(ids) + 1)
                     - np.bincount(spans[:, 1], minlength=len(ids) + 1))
            inside = np.cumsum(marks[:-1]) > 0
            page_words = page.features.words
            words.update(page_words[i] for i in np.unique(ids[inside]).tolist())
        spread: dict[str, int] = {}
        for words in site_words.values():
            for word in words:
                spread[word] = spread.get(word, 0) + 1
        spread.pop("", None)
        kept = sorted((w for w, n in spread.items() if n >= self.min_word_sites),
                      key=lambda w: (-spread[w], w))[: self.max_words]
        return {word: index for index, word in enumerate(sorted(kept))}

    def _word_model(self, bag: sparse.csr_matrix, y: np.ndarray) -> tuple[np.ndarray, float]:
        """Per-word log-odds of template and the prior log-odds (multinomial NB, add-one)."""
        counts = np.vstack([np.asarray(bag[y == k].sum(axis=0)).ravel() for k in (0, 1)]) + 1.0
        log_p = np.log(counts / counts.sum(axis=1, keepdims=True))
        prior = np.log(max((y == 1).sum(), 1) / max((y == 0).sum(), 1))
        return (log_p[1] - log_p[0]).astype(np.float64), float(prior)

    def _fit_words(self, bag: sparse.csr_matrix, y: np.ndarray) -> None:
        self.word_log_odds_, self.word_prior_ = self._word_model(bag, y)

    @staticmethod
    def _word_features(bag: sparse.csr_matrix, log_odds: np.ndarray, prior: float) -> np.ndarray:
        total = bag @ log_odds
        words = np.asarray(bag.sum(axis=1)).ravel()
        return np.column_stack((prior + total, total / np.maximum(words, 1.0),
                                np.log1p(words)))

    def _out_of_fold_word_scores(self, bag: sparse.csr_matrix, y: np.ndarray,
                                 group: np.ndarray) -> np.ndarray:
        from sklearn.model_selection import GroupKFold

        n_groups = len(np.unique(group))
        if n_groups < 2:  # one site family: no fold can leave it out
            log_odds, prior = self._word_model(bag, y)
            return self._word_features(bag, log_odds, prior)
        out = np.zeros((len(y), 3))
        folds = GroupKFold(n_splits=min(self.inner_folds, n_groups))
        for train, test in folds.split(bag, y, group):
            log_odds, prior = self._word_model(bag[train], y[train])
            out[test] = self._word_features(bag[test], log_odds, prior)
        return out

    def _fit_second_stage(self, X: np.ndarray, y: np.ndarray) -> None:
        if self.classifier == "logistic":
            from sklearn.linear_model import LogisticRegression

            self.mean_ = X.mean(axis=0)
            self.scale_ = np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0)
            model = LogisticRegression(C=self.C, max_iter=3000)
            model.fit((X - self.mean_) / self.scale_, y)
            self.coef_ = model.coef_.ravel().astype(np.float64)
            self.intercept_ = float(model.intercept_[0])
        else:
            from sklearn.ensemble import RandomForestClassifier

            model = RandomForestClassifier(
                n_estimators=self.n_trees, min_samples_leaf=self.min_leaf,
                max_depth=self.max_depth, max_features="sqrt", n_jobs=1,
                random_state=self.random_state)
            model.fit(X.astype(np.float32), y)
            self.forest_ = flatten_forest(model)

    # ---- scoring -------------------------------------------------------------

    def _check_fitted(self) -> None:
        if not hasattr(self, "vocabulary_"):
            raise not_fitted(self)

    def _word_table(self) -> object:
        """The vocabulary and its weights as a compiled hash table, made on first use
        (once per model, again if it is fitted or loaded anew)."""
        cached = self.__dict__.get("_word_table_cache")
        if cached is None or cached[0] is not self.vocabulary_:
            words = sorted(self.vocabulary_, key=self.vocabulary_.__getitem__)
            weights = self.word_log_odds_ if self.text else None
            cached = self._word_table_cache = (
                self.vocabulary_, _compiled.WordTable(words, weights))
        return cached[1]

    def _word_ids(self, words: list[str]) -> np.ndarray:
        """Per distinct word of a page, its vocabulary index, -1 when out of vocabulary
        (compiled: the table's hits are confirmed letter by letter, so the dict's)."""
        if _compiled is None:
            return np.fromiter(map(self.vocabulary_.get, words, repeat(-1)), dtype=np.int64,
                               count=len(words))
        return self._word_table().lookup(words)

    def word_scores(self, features: PageFeatures) -> np.ndarray:
        """The Naive Bayes columns of every node: log-odds, per word, log words known."""
        spans = features.token_spans
        if _compiled is not None:
            weights, known = self._word_table().weigh(features.words)
            total, words = _compiled.token_sums(weights, known, features.token_ids, spans)
        else:
            ids = self._word_ids(features.words)[features.token_ids]
            # -1 (not in the vocabulary, which may be empty) picks the appended 0
            weights = np.append(self.word_log_odds_, 0.0)[ids]
            known = np.zeros(len(ids) + 1)
            np.cumsum(ids >= 0, out=known[1:])
            summed = np.zeros(len(ids) + 1)
            np.cumsum(weights, out=summed[1:])
            total = summed[spans[:, 1]] - summed[spans[:, 0]]
            words = known[spans[:, 1]] - known[spans[:, 0]]
        return np.column_stack((self.word_prior_ + total, total / np.maximum(words, 1.0),
                                np.log1p(words)))

    def predict_proba(self, features: PageFeatures) -> np.ndarray:
        """Probability that each scored block of the page is template (float64 per node)."""
        self._check_fitted()
        if not len(features):
            return np.zeros(0)
        if self.classifier == "naive-bayes":
            log_odds = self.word_scores(features)[:, 0]
            return 1.0 / (1.0 + np.exp(-np.clip(log_odds, -500, 500)))
        if self.classifier == "logistic":
            X = features.matrix.astype(np.float64)
            if self.text:
                X = np.column_stack((X, self.word_scores(features)))
            z = ((X - self.mean_) / self.scale_) @ self.coef_ + self.intercept_
            return 1.0 / (1.0 + np.exp(-np.clip(z, -500, 500)))
        # the forest compares float32s: the word columns rounded once, as sklearn does
        width = features.matrix.shape[1]
        X = np.empty((len(features), width + (3 if self.text else 0)), dtype=np.float32)
        X[:, :width] = features.matrix
        if self.text:
            X[:, width:] = self.word_scores(features)
        return forest_proba(self.forest_, X)

    # ---- persistence ---------------------------------------------------------

    def _arrays(self) -> dict[str, np.ndarray]:
        words = sorted(self.vocabulary_, key=self.vocabulary_.__getitem__)
        arrays = {"vocabulary": np.frombuffer("\n".join(words).encode(), dtype=np.uint8)}
        if self.text:
            arrays["word_log_odds"] = self.word_log_odds_
        if self.classifier == "logistic":
            arrays.update(mean=self.mean_, scale=self.scale_, coef=self.coef_)
        elif self.classifier == "forest":
            arrays.update({f"forest_{k}": v for k, v in self.forest_.items()
                           if not k.startswith("_")})  # not the packed copy
        return arrays

    def header(self) -> dict[str, object]:
        """What the file's JSON header records besides the arrays."""
        header: dict[str, object] = {
            "kind": FORMAT_KIND, "format_version": FORMAT_VERSION,
            "features": list(FEATURE_NAMES),
            "params": {"classifier": self.classifier, "text": self.text,
                       "min_word_sites": self.min_word_sites, "max_words": self.max_words,
                       "C": self.C, "n_trees": self.n_trees, "min_leaf": self.min_leaf,
                       "max_depth": self.max_depth, "inner_folds": self.inner_folds,
                       "random_state": self.random_state},
            "n_examples": getattr(self, "n_examples_", 0),
        }
        if self.text:
            header["word_prior"] = self.word_prior_
        if self.classifier == "logistic":
            header["intercept"] = self.intercept_
        return header

    def save(self, path: str | os.PathLike[str], extra: dict[str, object] | None = None) -> None:
        """Write the model to ``path`` (``.npz``), atomically; ``extra`` joins the header."""
        self._check_fitted()
        write_arrays(path, {**self.header(), **(extra or {})}, self._arrays())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Self:
        """Read a model saved by :meth:`save`; its header is kept as ``header_``.

        Raises :class:`ModelError` naming the file for anything unusable: not a
        model, another format version, other features, missing or corrupt arrays.
        """
        source = str(path)
        header, arrays = read_arrays(path, FORMAT_KIND, FORMAT_VERSION, what="template model",
                                     rebuild="retrain with 'denoise train'")
        if header.get("features") != list(FEATURE_NAMES):
            raise ModelError(source, "model was trained on other features: retrain it with "
                             "'denoise train'")
        try:
            model = cls(**header["params"])
            model._check_params()
            words = arrays["vocabulary"].tobytes().decode()
            model.vocabulary_ = {w: i for i, w in enumerate(words.split("\n"))} if words else {}
            if model.text:
                model.word_log_odds_ = arrays["word_log_odds"].astype(np.float64)
                model.word_prior_ = float(header["word_prior"])
                if len(model.word_log_odds_) != len(model.vocabulary_):
                    raise ValueError("word weights do not match the vocabulary")
                if not (np.isfinite(model.word_log_odds_).all()
                        and np.isfinite(model.word_prior_)):
                    raise ValueError("word weights must be finite")
            width = len(FEATURE_NAMES) + (3 if model.text else 0)
            if model.classifier == "naive-bayes":
                pass
            elif model.classifier == "logistic":
                model.mean_, model.scale_, model.coef_ = (
                    arrays["mean"], arrays["scale"], arrays["coef"])
                model.intercept_ = float(header["intercept"])
                if not all(a.shape == (width,) for a in (model.mean_, model.scale_, model.coef_)):
                    raise ValueError("coefficients do not match the features")
                if not (np.isfinite(model.coef_).all() and np.isfinite(model.mean_).all()
                        and (model.scale_ > 0).all() and np.isfinite(model.intercept_)):
                    raise ValueError("coefficients must be finite, scales positive")
            else:
                model.forest_ = checked_forest(
                    {k[len("forest_"):]: v for k, v in arrays.items()
                     if k.startswith("forest_")}, width)
            model.n_examples_ = int(header.get("n_examples", 0))
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ModelError(source, f"corrupt model file ({error})") from None
        model.header_ = header
        return model


def _deduplicate(X: np.ndarray, bag: sparse.csr_matrix, y: np.ndarray,
                 group: np.ndarray) -> tuple[np.ndarray, sparse.csr_matrix, np.ndarray, np.ndarray]:
    """Keep one of each (feature row, words, label)."""
    rng = np.random.default_rng(12345)
    word_key = bag @ rng.random(bag.shape[1])
    row_key = X @ rng.random(X.shape[1])
    keys = np.column_stack((row_key, word_key, y)).round(9)
    _, first = np.unique(keys, axis=0, return_index=True)
    first.sort()
    return X[first], bag[first], y[first], group[first]


def default_model_path() -> Path:
    """The template model shipped with the package: what ``denoise apply``, ``show`` and
    mode ``page`` call template (trained on where the main content lies, where known)."""
    return shipped("default.npz")
