"""A page's language, from its text (issue 30): an ISO 639 code such as ``de``.

The identifier is py3langid's (langid.py's naive Bayes over byte n-grams, 97 languages),
whose model ships inside the package: no download, no network. Its model is numpy arrays
(no pickle) and takes about a second and 84 MB to load, so it is loaded the first time a
text is identified, once per process; the keyword extractor asks only for pages that do not
look English (:mod:`kwx.text`), so English-only runs never load it.

Choices, and why:

- The text's first :data:`SAMPLE_CHARS` characters decide: a page's language is settled
  long before that (identifying 500 characters costs 0.4 ms, 2,000 costs 0.6 ms).
- A text under :data:`MIN_CHARS` characters (a stub, a page of links) is not identified:
  on a few words the identifier is a guess. The page's declared language (``<html
  lang>``, meta tags) answers then.
- The text wins over the declaration when the identifier is sure of it
  (:data:`CONFIDENT`): on the 2,466 pages of trafilatura's set and WCXB's development
  split with 200 characters of main text or more, the two disagreed on 30; on 26 of
  them the identifier was sure: 24 main texts were in its language (German shops and
  blogs whose template says ``lang="en"``), 2 were mixed (a German post quoting English
  at length); on the other 4 it was not sure, and wrong.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

__all__ = ["CONFIDENT", "MIN_CHARS", "SAMPLE_CHARS", "detect_language", "identify",
           "load_identifier", "primary_subtag"]

#: Characters of a text that decide its language.
SAMPLE_CHARS = 3_000
#: Shortest text (characters, white space trimmed) identified at all.
MIN_CHARS = 100
#: Probability above which the identified language overrides a declared one.
CONFIDENT = 0.9
#: Probability below which an identification is no answer.
UNSURE = 0.5


@cache
def _identifier() -> Any:
    """py3langid's identifier with normalised probabilities (loaded once, ~1 s)."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def load_identifier() -> None:
    """Load the identifier now rather than at the first text identified (a service does,
    before its first request)."""
    _identifier()


def identify(text: str) -> tuple[str, float]:
    """The language of ``text``'s first :data:`SAMPLE_CHARS` characters and its
    probability; ``("", 0.0)`` for a text under :data:`MIN_CHARS` characters."""
    sample = text[:SAMPLE_CHARS].strip()
    if len(sample) < MIN_CHARS:
        return "", 0.0
    code, probability = _identifier().classify(sample)
    return str(code), float(probability)


def primary_subtag(tag: str) -> str:
    """The language of a declared tag, lower case (``en`` of ``en-US``, ``pt`` of
    ``pt_BR``); "" for anything that is not a language code."""
    primary = re.split(r"[-_,;\s]", tag.strip().lower(), maxsplit=1)[0]
    return primary if primary.isascii() and primary.isalpha() and 2 <= len(primary) <= 3 \
        else ""


def detect_language(text: str, declared: str = "") -> str:
    """The language of a page whose text is ``text`` and whose markup declares
    ``declared`` (a tag such as ``en-US``, or ""): the identified one when it is sure,
    else the declared one, else the identified one when it is likely; "" when neither
    says."""
    code, probability = identify(text)
    if probability >= CONFIDENT:
        return code
    return primary_subtag(declared) or (code if probability >= UNSURE else "")
