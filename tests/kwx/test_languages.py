"""Keywords of pages in other languages: their words and stop words are their language's
(issue 30)."""

from __future__ import annotations

import importlib
import importlib.util

import numpy as np
import pytest
import spacy
from typer.testing import CliRunner

from commands.kwx import app
from denoise.page import Page
from kwx import text as kwx_text
from kwx.candidates import find_candidates
from kwx.document import read_document
from kwx.extractor import KeywordExtractor, ScoredCandidates
from kwx.text import ENGLISH, SLICE_CHARS, _slices, language_tokenizer, page_language, words

# Stories written for these tests, a few paragraphs each, so that a page has enough
# words to rank.
STORIES = {
    "de": [
        "Die Fähre nach der Insel Amrum fährt im Winter nur zweimal am Tag, und wer den "
        "letzten Termin verpasst, muss im Hafen von Dagebüll übernachten.",
        "Die Gemeinde plant deshalb eine dritte Verbindung am späten Abend. Der neue "
        "Fahrplan der Reederei soll ab dem nächsten Jahr gelten, wenn der Kreistag die "
        "Kosten für die zusätzliche Fähre übernimmt.",
        "Auf der Insel Amrum begrüßen die Hoteliers den Plan. Viele Gäste seien im Winter "
        "wegen des knappen Fahrplans nicht gekommen, sagt der Sprecher des Verbandes.",
    ],
    "fr": [
        "Le bac pour l'île d'Yeu ne part que deux fois par jour en hiver, et celui qui "
        "manque le dernier départ doit dormir au port de Fromentine.",
        "La commune prévoit donc une troisième liaison en soirée. Le nouvel horaire de la "
        "compagnie maritime devrait entrer en vigueur l'année prochaine, si le département "
        "prend en charge le coût du bateau supplémentaire.",
        "Sur l'île d'Yeu, les hôteliers saluent ce projet. Beaucoup de visiteurs ne "
        "venaient pas en hiver à cause des horaires trop rares, selon le porte-parole.",
    ],
    "es": [
        "El transbordador a la isla de Ons sale solo dos veces al día en invierno, y quien "
        "pierde el último tiene que dormir en el puerto de Bueu.",
        "Por eso el ayuntamiento prevé una tercera conexión por la noche. El nuevo horario "
        "de la naviera debería empezar el año que viene, si la diputación paga el coste "
        "del barco adicional.",
        "En la isla de Ons, los hoteleros celebran el plan. Muchos visitantes no venían en "
        "invierno por culpa de los pocos horarios, según el portavoz de la asociación.",
    ],
}


def page_of(language: str, lang_attribute: str = "en") -> Page:
    paragraphs = "".join(f"<p>{p}</p>" for p in STORIES[language])
    html = (f'<html lang="{lang_attribute}"><head><title>{STORIES[language][0][:40]}</title>'
            f"</head><body><article>{paragraphs}</article></body></html>")
    return Page(id=f"ferry-{language}.html", html=html)


@pytest.fixture(scope="module")
def extractor() -> KeywordExtractor:
    return KeywordExtractor.load()


@pytest.mark.parametrize("language", sorted(STORIES))
def test_keywords_hold_no_stop_word_of_the_pages_language(extractor, language):
    stop_words = spacy.blank(language).Defaults.stop_words
    keywords = [k.phrase for k in extractor.extract(page_of(language), 15)]
    assert len(keywords) >= 10
    edges = [w for k in keywords for w in (k.split()[0], k.split()[-1])]
    assert not [w for w in edges if w.lower() in stop_words]
    # tokenized as English, the page's lists had them ("der Insel Amrum", "El", "que")
    assert find_candidates(read_document(page_of(language))).language == language


@pytest.mark.parametrize("language", sorted(STORIES))
def test_the_pages_language_comes_from_its_words(language):
    text = " ".join(STORIES[language])
    assert page_language(words(text), text) == language


def test_a_kept_text_too_short_to_tell_takes_the_page_s_language():
    # a German blog post whose kept text was its one-line title came out with "der" and
    # "Weitere" among its keywords: read as English
    kept = "Weitere Digitalisierung der Schweizer Kinos"
    assert page_language(words(kept), kept) == ENGLISH  # too short to tell
    page = f"{kept}\n" + " ".join(STORIES["de"])
    assert page_language(words(kept), kept, (), page) == "de"


@pytest.mark.parametrize("declared", ['<html lang="de-CH">', '<html xml:lang="de">'])
def test_a_page_too_short_to_tell_takes_the_language_it_declares(declared):
    # a German page of one sentence, read as English, gave "Der Zitronenkuchen ist saftig
    # und" as a keyword: no stop word of English, so the sentence was one phrase
    sentence = "Der Zitronenkuchen ist saftig und schnell gebacken."
    item = Page(id="kuchen.html", html=f"{declared}<body><p>{sentence}</p></body></html>")
    assert find_candidates(read_document(item)).language == "de"
    undeclared = Page(id="kuchen.html", html=f"<html><body><p>{sentence}</p></body></html>")
    assert find_candidates(read_document(undeclared)).language == ENGLISH


def test_a_declared_language_without_a_tokenizer_is_no_answer(monkeypatch):
    # "tlh" (Klingon) has no spaCy tokenizer: the page's likely language is read instead
    # of English (the identifier unsure of the page's German: the declared one wins then)
    def unsure(text: str, declared: str = "") -> str:
        return declared or ("de" if len(text) > 100 else "")

    monkeypatch.setattr(kwx_text, "detect_language", unsure)
    page = " ".join(STORIES["de"])
    assert page_language(words("Fähre"), "Fähre", (), page, declared="tlh") == "de"
    assert page_language(words("Fähre"), "Fähre", (), page, declared="fr") == "fr"


def test_an_english_page_is_never_identified(monkeypatch):
    def refuse(text: str, declared: str = "") -> str:
        raise AssertionError("English text went to the identifier")

    monkeypatch.setattr(kwx_text, "detect_language", refuse)
    text = ("The ferry to the island leaves only twice a day in winter, and whoever misses "
            "the last one has to spend the night at the harbour.")
    assert page_language(words(text), text) == ENGLISH


def test_a_german_text_of_words_english_has_too_is_identified():
    # a chat line's "also", "in", "so", "an", "war" and a quoted English sentence pass the
    # English stop-word screen; "ich", "und", "der" tell it is German
    text = ("Also ich war am Montag in Hamburg und so, an der Elbe war es so kalt. "
            "I was so happy, she said. Ich bin also in die Stadt, das war es auch schon.")
    found = words(text)
    assert found.stop.mean() >= kwx_text.ENGLISH_STOP_SHARE
    assert page_language(found, text) == "de"


def test_the_screen_knows_stop_words_that_are_spacy_symbols():
    # "aux" and "num" are symbols in spaCy's string store: their ids are not hashes
    assert np.isin(words("aux num").ids, kwx_text._foreign_stops()).all()


def test_the_screens_stop_words_are_spacys():
    # read from the lists' files, not imported: the same words as spaCy's own lists
    for language in kwx_text._SCREENED_LANGUAGES:
        listed = importlib.import_module(f"spacy.lang.{language}.stop_words").STOP_WORDS
        assert kwx_text._stop_words_of(language) == {word.lower() for word in listed}


def test_a_language_spacy_cannot_tokenize_is_read_as_english(monkeypatch):
    monkeypatch.setattr(kwx_text, "detect_language", lambda text, declared="": "bcl")
    text = "Ini sarong halimbawa na teksto para sa pagbasa."
    assert language_tokenizer("bcl") is None
    assert page_language(words(text), text) == ENGLISH


def test_french_elisions_are_their_own_stop_words():
    found = words("l'île d'Yeu et l'année prochaine", "fr")
    text = "l'île d'Yeu et l'année prochaine"
    pieces = [text[a:b] for a, b in zip(found.starts.tolist(), found.ends.tolist(), strict=True)]
    assert pieces == ["l'", "île", "d'", "Yeu", "et", "l'", "année", "prochaine"]
    assert found.stop.tolist() == [True, False, True, False, True, True, False, False]


def test_inflections_merge_by_the_pages_language():
    # Snowball's German stemmer makes "häuser" "haus"; the English one leaves it
    story = ("Das Haus am Markt wird saniert. Häuser der Altstadt stehen unter Denkmalschutz, "
             "und jedes Haus braucht eine Genehmigung. " + " ".join(STORIES["de"]))
    html = f"<html><body><article><p>{story}</p></article></body></html>"
    found = find_candidates(read_document(Page(id="haus.html", html=html)))
    assert found.language == "de"
    written = [p.lower() for p in found.phrases(np.arange(len(found)))]
    scores = np.zeros(len(found))
    scores[written.index("haus")], scores[written.index("häuser")] = 0.9, 0.8
    listed = [k.phrase.lower() for k in ScoredCandidates(found, scores, phrases=0.0).top(5)]
    assert "haus" in listed
    assert "häuser" not in listed


def test_long_texts_are_tokenized_in_slices_with_the_same_words():
    text = "\n".join(STORIES["de"] * 200)  # 70,000 characters
    assert len(text) > 3 * SLICE_CHARS
    pieces = _slices(text)
    assert "".join(piece for _, piece in pieces) == text
    assert all(len(piece) <= SLICE_CHARS and text.startswith(piece, offset)
               for offset, piece in pieces)
    found = words(text, "de")
    whole = kwx_text._spacy_table(text, "de")
    assert np.array_equal(found.starts, whole[2][~whole[1][:, 0] & ~whole[1][:, 1]
                                                  & whole[1][:, 5]])
    unspaced = "渡轮冬天每天只开两班\u3002" * 3000  # no line break, no space: cut at the stops
    assert all(piece.endswith("\u3002") for _, piece in _slices(unspaced))


def test_a_language_without_a_tokenizer_is_refused_by_name():
    with pytest.raises(ValueError, match="'bcl'"):
        words("Ini sarong halimbawa.", "bcl")
    with pytest.raises(ValueError, match="'bcl'"):
        KeywordExtractor.load(language="bcl")


def test_chinese_words_come_from_jieba_or_chinese_is_read_as_english():
    text = "渡轮冬天每天只开两班\uff0c错过最后一班的人只能在港口过夜\u3002"  # full-width marks
    if importlib.util.find_spec("jieba") is None:  # spaCy's default would cut "Apache" too
        assert language_tokenizer("zh") is None
        assert page_language(words(text * 4), text * 4) == ENGLISH
        return
    story = text * 4  # a page's worth: 100 characters or more are identified
    assert page_language(words(story), story) == "zh"
    mixed = text + " Apache"
    found = words(mixed, "zh")
    pieces = [mixed[a:b] for a, b in zip(found.starts.tolist(), found.ends.tolist(),
                                         strict=True)]
    assert any(len(piece) > 1 for piece in pieces)
    assert pieces[-1] == "Apache"
    assert np.any(found.stop)  # "的" and "在" are stop words


def test_the_command_line_takes_a_language_or_refuses_it(tmp_path):
    page = tmp_path / "fr.html"
    page.write_text(page_of("fr").html, encoding="utf-8")
    runner = CliRunner()
    told = runner.invoke(app, ["extract", str(page), "--top", "5"])
    forced = runner.invoke(app, ["extract", str(page), "--top", "5", "--language", "en"])
    assert told.exit_code == forced.exit_code == 0
    first = {line.split("\t")[0] for line in told.stdout.splitlines()}
    assert not first & spacy.blank("fr").Defaults.stop_words
    assert {line.split("\t")[0].lower() for line in forced.stdout.splitlines()} & {"le", "en"}
    for wrong in ("klingon", "../en"):
        refused = runner.invoke(app, ["extract", str(page), "--language", wrong])
        assert refused.exit_code == 2
        assert "--language" in refused.output
