"""kwx: contextual-advertising keywords from web pages, with templates removed first.

:class:`KeywordExtractor` ranks a page's candidate phrases (:mod:`kwx.candidates`) by
a logistic regression (:class:`KeywordRanker`) over Yih et al.'s features, after the
page-level template detector of :mod:`denoise` removed the page's template blocks.
:mod:`kwx.evaluation` trains and scores rankers and runs Kołcz & Yih's comparison;
:mod:`kwx.tables` holds the document- and query-frequency tables.
"""

from kwx.candidates import Candidates, find_candidates
from kwx.document import KeywordDocument, read_document
from kwx.extractor import Keyword, KeywordExtractor, PhraseStatistics, ScoredCandidates
from kwx.labelled import LabelledPage, read_labelled
from kwx.ranker import KeywordRanker
from kwx.tables import PhraseTable, TableFile

__all__ = [
    "Candidates",
    "Keyword",
    "KeywordDocument",
    "KeywordExtractor",
    "KeywordRanker",
    "LabelledPage",
    "PhraseStatistics",
    "PhraseTable",
    "ScoredCandidates",
    "TableFile",
    "find_candidates",
    "read_document",
    "read_labelled",
]
