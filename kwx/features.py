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
- whether it is a whole phrase (issue 31): its cohesion (its words together rather
  than apart) and the share of its occurrences inside one longer candidate (a
  fragment of a name);
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
    "cohesion", "contained",
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
    at twice the cost or more. Computed features are written in place (``out=``), with
    the same numpy operations on the tables' integer counts, so the same values as
    computed whole.
    """
    c = candidates
    words = max(c.n_words, 1)
    matrix = np.empty((len(FEATURE_NAMES), len(c)))
    (log_tf, tf_share, idf, tf_idf, df_unseen, log_query, log_query_part, query_part_share,
     in_title, in_meta_keywords, in_meta_description, anchor_share, heading_share,
     first_position, log_first, capitalized, all_caps, n_words, single_word, stop_inside,
     cohesion, contained, template_score) = matrix
    np.log1p(c.tf, out=log_tf)
    np.divide(c.tf, words, out=tf_share)
    if df is None:
        matrix[2:5] = 0.0  # idf, tf_idf, df_unseen
    else:
        np.add(df, 1.0, out=idf)
        np.divide(pages + 1.0, idf, out=idf)
        np.log(idf, out=idf)
        np.multiply(log_tf, idf, out=tf_idf)
        np.equal(df, 0, out=df_unseen)
    for row, counts in ((log_query, query), (log_query_part, query_part)):
        if counts is None:
            row[:] = 0.0
        else:
            np.log1p(counts, out=row)
    if query_part is None:
        query_part_share[:] = 0.0
    else:
        np.divide(query_part, max(queries, 1), out=query_part_share)
        np.sqrt(query_part_share, out=query_part_share)
    for row, column in ((in_title, c.in_title), (in_meta_keywords, c.in_meta_keywords),
                        (in_meta_description, c.in_meta_description), (anchor_share, c.anchor),
                        (heading_share, c.heading), (capitalized, c.capitalized),
                        (all_caps, c.upper), (n_words, c.lengths), (stop_inside, c.stop_inside),
                        (cohesion, c.cohesion), (contained, c.contained),
                        (template_score, c.template)):
        row[:] = column
    np.divide(c.first, words, out=first_position)
    np.log1p(c.first, out=log_first)
    np.equal(c.lengths, 1, out=single_word)
    return matrix.T
