"""A page's language: identified from its text, declared by its markup (issue 30)."""

from __future__ import annotations

import pytest

from denoise.language import MIN_CHARS, UNSURE, detect_language, identify, primary_subtag
from denoise.metadata import extract_metadata
from denoise.page import Page

# Sentences written for these tests.
GERMAN = ("Die Fähre nach der Insel fährt im Winter nur zweimal am Tag, und wer den letzten "
          "Termin verpasst, muss im Hafen übernachten. Die Gemeinde plant deshalb eine "
          "dritte Verbindung am späten Abend, die ab dem nächsten Jahr gelten soll.")
FRENCH = ("Le bac pour l'île ne part que deux fois par jour en hiver, et celui qui manque le "
          "dernier départ doit dormir au port. La commune prévoit donc une troisième "
          "liaison en soirée, qui devrait entrer en vigueur l'année prochaine.")
SPANISH = ("El transbordador a la isla sale solo dos veces al día en invierno, y quien pierde "
           "el último tiene que dormir en el puerto. Por eso el ayuntamiento prevé una "
           "tercera conexión por la noche, que debería empezar el año que viene.")
ENGLISH = ("The ferry to the island leaves only twice a day in winter, and whoever misses the "
           "last one has to spend the night at the harbour. The council therefore plans a "
           "third crossing late in the evening, to start next year.")


@pytest.mark.parametrize(("text", "code"), [(GERMAN, "de"), (FRENCH, "fr"), (SPANISH, "es"),
                                            (ENGLISH, "en")])
def test_the_text_is_identified(text, code):
    found, probability = identify(text)
    assert found == code
    assert probability > 0.9
    assert detect_language(text) == code


def test_a_sure_identification_wins_over_the_declared_language():
    assert detect_language(GERMAN, "en-US") == "de"


def test_a_short_text_takes_the_declared_language():
    short = "Fähre zur Insel"
    assert len(short) < MIN_CHARS
    assert identify(short) == ("", 0.0)
    assert detect_language(short, "de-AT") == "de"
    assert detect_language(short) == ""


@pytest.mark.parametrize("text", ["4711 0815 " * 40, "0x3f9a 0xbe21 " * 30,
                                  "€ 12,99 | € 8,50 | 3 x 250 g | " * 20])
def test_digits_and_codes_are_no_language(text):
    assert identify(text)[1] < UNSURE
    assert detect_language(text, "de") == "de"
    assert detect_language(text) == ""


@pytest.mark.parametrize(("tag", "code"), [("en-US", "en"), ("pt_BR", "pt"), (" DE ", "de"),
                                           ("fil", "fil"), ("", ""), ("x-klingon", ""),
                                           ("12", ""), ("en;q=0.8", "en"),
                                           ("und", ""), ("zxx", "")])
def test_the_declared_tag_gives_its_primary_subtag(tag, code):
    assert primary_subtag(tag) == code


def test_metadata_tells_the_language_of_the_text_not_of_the_template():
    html = (f'<html lang="en"><head><title>Fähre</title></head><body><nav>Home</nav>'
            f"<article><p>{GERMAN}</p></article></body></html>")
    page = Page(id="ferry.html", html=html)
    assert extract_metadata(page).language == "de"  # the body's text
    assert extract_metadata(page, FRENCH).language == "fr"  # the main text given
    assert extract_metadata(page, "kurz").language == "en"  # too short: declared
