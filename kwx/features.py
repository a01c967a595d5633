"""One feature row per candidate phrase (Yih, Goodman & Carvalho 2006, as Kołcz & Yih
used them: without the linguistic and URL features).

- information retrieval: term frequency (log, and as a share of the page's words),
  document frequency as ``idf = log((N + 1) / (df + 1))``, their product, unseen;
- query log: how often the phrase is a whole query, and in how many queries it
  occurs (log counts, and the latter as a share of the log);
- where it occurs: in the title, meta keywords, meta description; the share of its
  occurrences in anchor text and in headings; the position of its first occurrence
  (share of the page's words before it, and its log);
- how it is written: share of occurrences capitalized, and in capitals;
- its shape: words, single word, a stop word inside ("bank of america");
- the template score of its blocks when the page was de-noised (0 otherwise).
"""

from __future__ import annotations

import numpy as np

from kwx.candidates import Candidates
from kwx.tables import PhraseTable

FEATURE_NAMES = (
    "log_tf", "tf_share", "idf", "tf_idf", "df_unseen",
    "log_query", "log_query_part", "query_part_share",
    "in_title", "in_meta_keywords", "in_meta_description", "anchor_share", "heading_share",
    "first_position", "log_first",
    "capitalized", "all_caps",
    "words", "single_word", "stop_inside",
    "template_score",
)


def candidate_features(candidates: Candidates, *, documents: PhraseTable | None,
                       queries: PhraseTable | None,
                       query_parts: PhraseTable | None) -> np.ndarray:
    """The feature matrix (candidates x FEATURE_NAMES), float64. A missing table
    gives zero columns (so a ranker trained with it is not fooled into weighing them)."""
    hashes = candidates.hashes

    def counts(table: PhraseTable | None) -> np.ndarray | None:
        return table.lookup(hashes) if table is not None else None

    return feature_matrix(candidates, df=counts(documents), query=counts(queries),
                          query_part=counts(query_parts),
                          pages=documents.total if documents is not None else 0,
                          queries=query_parts.total if query_parts is not None else 0)


def feature_matrix(candidates: Candidates, *, df: np.ndarray | None, query: np.ndarray | None,
                   query_part: np.ndarray | None, pages: int, queries: int) -> np.ndarray:
    """The feature matrix from the candidates' counts already looked up (None: no such
    table); ``pages`` and ``queries`` are the DF and query-part tables' totals.

    Each feature is written into a row of one (features x candidates) array, returned
    transposed: contiguous writes, where stacking the columns wrote each one strided,
    at twice the cost or more.
    """
    c = candidates
    n = len(c)
    words = max(c.n_words, 1)
    zeros = np.zeros(n)
    log_tf = np.log1p(c.tf)
    idf = np.log((pages + 1.0) / (df + 1.0)) if df is not None else zeros
    columns = (
        log_tf, c.tf / words, idf, log_tf * idf, df == 0 if df is not None else zeros,
        np.log1p(query) if query is not None else zeros,
        np.log1p(query_part) if query_part is not None else zeros,
        np.sqrt(query_part / max(queries, 1)) if query_part is not None else zeros,
        c.in_title, c.in_meta_keywords, c.in_meta_description, c.anchor, c.heading,
        c.first / words, np.log1p(c.first),
        c.capitalized, c.upper,
        c.lengths, c.lengths == 1, c.stop_inside,
        c.template,
    )
    matrix = np.empty((len(FEATURE_NAMES), n))
    for row, column in zip(matrix, columns, strict=True):
        row[:] = column
    return matrix.T
