"""Scores of template detection against main-content gold.

Template text = the page's text outside its main content. Scores are word-level
(Chakrabarti et al. 6.1) over bags of words: the gold template words of a page are
its words minus the words of the gold main text (as multisets), and a word the
detector put in template blocks is right as often as the gold has it outside the
main text. Bags make the score independent of how either side cut the text.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from lxml import etree

from denoise.blocks import index_dom
from denoise.html import parse_html
from denoise.site.base import LabeledPage

_WORD = re.compile(r"\w+")


def bag_of_words(text: str) -> Counter[str]:
    """Lower-cased word counts of ``text``."""
    return Counter(_WORD.findall(text.lower()))


@dataclass(frozen=True, slots=True)
class TextScore:
    """Word counts behind precision and recall of the text called template."""

    correct: int = 0  # template words that are template in the gold
    predicted: int = 0  # words called template
    gold: int = 0  # template words in the gold

    def __add__(self, other: TextScore) -> TextScore:
        return TextScore(self.correct + other.correct, self.predicted + other.predicted,
                         self.gold + other.gold)

    @property
    def precision(self) -> float:
        """Share of the words called template that are template (1 when none was called)."""
        return self.correct / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        """Share of the gold template words that were called template."""
        return self.correct / self.gold if self.gold else 1.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def score_template_text(page: LabeledPage, main_text: str) -> TextScore:
    """Score the template blocks of ``page`` against its gold ``main_text``."""
    blocks = page.blocks
    page_words = bag_of_words(blocks.text)
    gold_template = page_words - (bag_of_words(main_text) & page_words)
    predicted = bag_of_words(blocks.chunks_text(page.template_chunks()))
    return TextScore(
        correct=sum((predicted & gold_template).values()),
        predicted=sum(predicted.values()),
        gold=sum(gold_template.values()),
    )


def xpath_main_text(html: str, xpath: str) -> str | None:
    """The text of the outermost elements ``xpath`` selects in ``html``, each as the page
    text has it (:mod:`denoise.blocks`' text model), one space apart; None if none match."""
    root = parse_html(html, ids=True)  # a gold XPath may say id("main")
    found = [e for e in root.xpath(xpath) if isinstance(e, etree._Element)]
    chosen = set(found)
    outermost = [e for e in found if not any(a in chosen for a in e.iterancestors())]
    if not outermost:
        return None
    return " ".join(index_dom(e, text_index=False).text for e in outermost)
