"""Hidden elements at parsing (denoise.html): what the page does not show goes, unless a
click would show it in place (prose, an ARIA panel) or a script shows the whole page."""

import pytest
from lxml import etree

from denoise import main_text
from denoise.html import HIDDEN_PROSE, parse_html

PROSE = ("Returns are free within thirty days of delivery. Pack the item in its original box, "
         "print the label from your order page and drop the parcel at any post office; the "
         "refund reaches your card within five working days of our receiving it.")


def text(body: str) -> str:
    root = parse_html(f"<html><head><title>T</title></head><body>{body}</body></html>")
    return " ".join("".join(root.itertext()).split())


def test_the_prose_sample_is_prose():
    assert len(PROSE) >= HIDDEN_PROSE


@pytest.mark.parametrize("hidden", ['style="display:none"', 'style="color: red; DISPLAY: None"',
                                    'style="visibility: hidden"', "hidden"])
def test_a_hidden_menu_goes_and_the_page_around_it_stays(hidden):
    menu = f'<ul {hidden}><li><a href="/a">Amino acids</a></li><li><a href="/b">Baths</a></li></ul>'
    page = text(f"<p>{PROSE}</p><nav><a href='/'>Shop</a>{menu} after the menu</nav>")
    assert "Amino" not in page and "Baths" not in page
    assert PROSE in page and "Shop after the menu" in page  # its tail stays


@pytest.mark.parametrize("shown", ['style="display:block"', 'style="overflow: hidden"',
                                   'style="list-style: none"', 'class="hidden-xs"'])
def test_what_is_shown_stays(shown):
    assert "Amino acids" in text(f'<ul {shown}><li><a href="/a">Amino acids</a></li></ul>')


#: The page's own text around the hidden parts: they hold under half of it.
SHOWN = f"<p>{PROSE}</p><p>{PROSE.upper()}</p>" * 2


def test_hidden_prose_stays_as_what_a_click_shows():
    # an accordion's answer, a tab's text, a "read more"
    answer = PROSE.replace("Returns", "Exchanges")
    assert answer in text(f'{SHOWN}<h3>Exchanges</h3><div style="display:none"><p>{answer}'
                          f"</p></div>")
    # more characters of links beside it than of text: no prose
    links = "".join(f'<a href="/{i}">Buy it from retailer number {i}</a> ' for i in range(12))
    assert "retailer" not in text(f'{SHOWN}<div style="display:none"><p>{answer}</p>{links}'
                                  f"</div>")


@pytest.mark.parametrize("panel", ['role="tabpanel"', 'role="region"', 'aria-labelledby="t1"'])
def test_a_hidden_panel_stays_however_short(panel):
    assert "Weight: 2 kg" in text(f'{SHOWN}<button id="t1">Specs</button><div hidden {panel}>'
                                  f"<p>Weight: 2 kg</p></div>")
    assert "Weight: 2 kg" not in text(f"{SHOWN}<div hidden><p>Weight: 2 kg</p></div>")


def test_a_page_hidden_until_a_script_shows_it_keeps_its_text():
    page = text('<div id="app" style="display:none"><h1>Harbour news</h1><p>Short.</p>'
                "<p>Also short.</p></div><p>Loading...</p>")
    assert "Harbour news" in page and "Also short." in page


def test_encoded_data_is_no_prose():
    blob = "PGRpdiBjbGFzcz0ic3AtZHNndm8gc3AtZHNndm8tZW1iZWRkaW5n" * 40  # base64, one word
    assert "PGRpdiBj" not in text(f'<div style="display:none">{blob}</div><p>{PROSE}</p>')


def test_an_element_is_judged_on_what_it_would_show():
    # a share-by-mail form: its labels, and its error messages hidden again inside it
    errors = "".join(f'<div style="display:none">Sending failed, please check the address '
                     f"and try again ({n}).</div>" for n in range(4))
    form = (f'<div id="sharing_email" style="display:none"><form>Send to e-mail address '
            f"Your name Your e-mail address Cancel {errors}</form></div>")
    assert len("".join(errors)) > HIDDEN_PROSE
    page = text(f"<p>{PROSE}</p>{form}")
    assert "Send to" not in page and "Sending failed" not in page


STORY = ("The harbour council approved the lighthouse budget on Tuesday night after a long "
         "debate about the cost of repairs to the old tower and its keeper's cottage.")


def test_hidden_hover_layers_do_not_outweigh_a_short_post():
    # a blog's sidebar of books, each with a hover layer of retailers' links (Seth's Blog
    # in Dragnet's set): the layers' words had made the sidebar the main region
    layers = "".join(
        f'<tr><td><a href="/b{n}">Book {n}</a><div style="display:none">Buy book {n} now '
        f"from these online retailers: amazon, the corner bookshop, the airport kiosk, the "
        f"publisher's own shop, or ask for bulk orders by mail.</div></td></tr>"
        for n in range(12))
    html = (f"<html><head><title>Blog</title></head><body><div id='sidebar'><table>{layers}"
            f"</table></div><div class='post'><h3>Lighthouse budget</h3><p>{STORY}</p></div>"
            f"</body></html>")
    out = main_text(html)
    assert STORY in out and "retailers" not in out



def test_what_a_style_does_not_hide_stays():
    assert "caption" in text(f'{SHOWN}<div style="backface-visibility: hidden">caption</div>')
    # the browser's find-in-page shows it
    for value in ("until-found", "UNTIL-FOUND"):
        assert "answer" in text(f'{SHOWN}<div hidden="{value}">answer</div>')


def test_prose_without_spaces_is_prose():
    zh = ("退货在交付后三十天内免费。请将商品装在原包装盒中\uff0c从订单页面打印标签\uff0c"
          "然后在任何邮局寄出包裹\uff1b我们收到后五个工作日内退款到您的卡上。") * 4
    assert zh in text(f'{SHOWN}<div style="display:none"><p>{zh}</p></div>')


def test_a_page_hidden_until_a_script_shows_it_loses_only_its_menus():
    article = f"<h1>Harbour news</h1><p>{PROSE}</p><p>{PROSE.upper()}</p>"
    menu = "".join(f'<li><a href="/{n}">Menu item {n}</a></li>' for n in range(5))
    page = text(f'<div id="app" style="display:none">{article}<ul hidden>{menu}</ul></div>'
                f"<p>Loading</p>")
    assert "Harbour news" in page and PROSE in page and "Menu item" not in page


def test_a_part_holding_hidden_panels_stays_with_them():
    # React streams a product's part in a hidden <div>: its own text is short, its
    # specification panels are hidden again inside it
    panel = '<div hidden role="region"><p>Weight: 2 kg</p></div>'
    part = f'<div hidden id="S:2e"><h2>Specifications</h2>{panel}</div>'
    assert "Weight: 2 kg" in text(f"{SHOWN}{SHOWN}{part}")


def test_the_text_after_an_elements_parts_is_its_own():
    # text after a child (its tail) is the parent's: here all of its prose
    refunds = PROSE.replace("Returns", "Refunds")
    for part in ("<b>Note:</b>", "<span hidden>New!</span>"):
        assert refunds in text(f'{SHOWN}<div style="display:none">{part} {refunds}</div>')


def test_what_is_never_counted_does_not_make_the_page_larger():
    # the page hidden until a script shows it is still half the page beside a hidden
    # blob that goes, a formula's symbols and a style
    blob = "PGRpdiBjbGFzcz0ic3AtZHNndm8" * 8
    formula = "<math>" + "<mi>a</mi><mo>+</mo>" * 30 + "</math>"
    page = text(f'<div id="app" style="display:none"><h1>Harbour news</h1><p>Short.</p>'
                f"</div><div hidden>{blob}</div><p>{formula}</p><style>p {{color: red}}"
                f"</style><p>Loading</p>")
    assert "Harbour news" in page


def test_what_goes_leaves_the_page_smaller():
    # eight hidden menus, each under half the page, go one by one; then the wrapper holds
    # most of what is left
    menus = "".join('<ul style="display:none">' + "".join(
        f'<li><a href="/{m}/{n}">Menu {m} item {n}</a></li>' for n in range(7)) + "</ul>"
        for m in range(8))
    page = text(f'<div style="display:none"><h1>Harbour news</h1><p>{PROSE[:150]}</p>'
                f"{menus}</div><p>Loading</p>")
    assert "Harbour news" in page and "Menu" not in page


def test_a_hidden_copy_of_a_formula_goes_and_a_shown_one_stays():
    # Wikipedia: MathML hidden for screen readers beside the formula's picture
    formula = ("<math><semantics><mrow>" + "<mi>a</mi><mo>+</mo>" * 60 + "<mi>b</mi></mrow>"
               "<annotation encoding='application/x-tex'>a+b</annotation></semantics></math>")
    page = text(f'{SHOWN}<p>so <span style="display: none;">{formula}</span> holds</p>')
    assert "so holds" in page and "b holds" not in page
    assert "b holds" in text(f"{SHOWN}<p>so {formula} holds</p>")


def test_metadata_reads_what_a_page_hides():
    # search engines read a page's hidden microdata, and so does its metadata
    from denoise import Page
    from denoise.metadata import extract_metadata

    html = (f'<html><body><article>{SHOWN}<div style="display:none">'
            f'<span itemprop="author">Jane Roe</span></div></article></body></html>')
    assert extract_metadata(Page(id="p", html=html)).author == "Jane Roe"


def test_the_parse_that_keeps_styles_removes_the_same_elements():
    # denoise show's parse keeps <style> (render.shaded_html), and maps the main parse's
    # elements onto its own by position
    from denoise.html import DROPPED_TAGS

    css = "<style>" + ".share { color: red; margin: 0 auto; } " * 12 + "</style>"
    html = (f'<html><body>{SHOWN}<div class="share" style="display:none">{css}Share '
            f'by e-mail</div><div style="display:none">{css}<a href="/">Menu</a></div>'
            f"<p>after</p></body></html>")
    kept = parse_html(html, dropped=tuple(t for t in DROPPED_TAGS if t != "style"))
    tags = [e.tag for e in kept.iter(etree.Element) if e.tag != "style"]
    assert tags == [e.tag for e in parse_html(html).iter(etree.Element)]
    assert "Share" not in "".join(kept.itertext())
