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
    table); ``pages`` and ``queries`` are the DF and query-part tables' totals."""
    c = candidates
    n = len(c)
    log_tf = np.log1p(c.tf)
    if df is not None:
        idf = np.log((pages + 1.0) / (df + 1.0))
        unseen = df == 0
    else:
        idf, unseen = np.zeros(n), np.zeros(n, bool)
    if query is None:
        query = np.zeros(n)
    if query_part is not None:
        part_share = query_part / max(queries, 1)
    else:
        query_part, part_share = np.zeros(n), np.zeros(n)
    columns = (
        log_tf, c.tf / max(c.n_words, 1), idf, log_tf * idf, unseen,
        np.log1p(query), np.log1p(query_part), np.sqrt(part_share),
        c.in_title, c.in_meta_keywords, c.in_meta_description, c.anchor, c.heading,
        c.first / max(c.n_words, 1), np.log1p(c.first),
        c.capitalized, c.upper,
        c.lengths, c.lengths == 1, c.stop_inside,
        c.template,
    )
    return np.column_stack([np.asarray(column, dtype=np.float64) for column in columns]) \
        if n else np.zeros((0, len(FEATURE_NAMES)))
