"""Main-content mode on pages written to show each way it used to fail (issue 33)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from denoise import Page
from denoise.detector import PageScores, block_lines
from denoise.features import extract
from denoise.html import parse_html
from denoise.main_content import (
    COPY_CHARS,
    POSTED_LINE,
    PROSE_ALONE,
    _dialog_chunks,
    _prose_instead,
    _without_related,
    default_extractor,
)

STORY = ("The harbour council approved the lighthouse budget on Tuesday night after a long "
         "debate about the cost of repairs to the old stone pier and the keeper's cottage. ")
SECOND = ("Fishermen who use the pier every morning said the vote came just in time, because "
          "two of the mooring rings had already rusted through during the winter storms. ")
NAV = ('<ul class="nav"><li><a href="/">Home</a></li><li><a href="/news">News</a></li>'
       '<li><a href="/sport">Sport</a></li><li><a href="/weather">Weather</a></li></ul>')


def page(body: str, name: str = "story.html") -> Page:
    html = (f"<html><head><title>Harbour council backs lighthouse budget</title></head>"
            f"<body>{NAV}{body}</body></html>")
    return Page(id=name, html=html, url=f"https://harbour.example.org/{name}",
                site="harbour.example.org")


def main_text(item: Page, **params: object) -> str:
    extractor = dataclasses.replace(default_extractor(), **params)
    return extractor.text(extract(item))


def test_an_article_printed_twice_is_returned_once():
    article = f"<h1>Harbour council backs lighthouse budget</h1><p>{STORY * 2}</p><p>{SECOND}</p>"
    item = page(f'<div id="main"><div class="story">{article}</div>'
                f'<div class="print-version">{article}</div></div>')
    assert len(STORY * 2) >= COPY_CHARS
    assert main_text(item, once=False).count(STORY.strip()) == 4  # both copies kept
    text = main_text(item)
    assert text.count(STORY.strip()) == 2 and text.count(SECOND.strip()) == 1


def test_a_paragraph_the_author_repeats_is_kept_each_time():
    refrain = f"<p>{STORY * 2}</p>"
    item = page(f'<div id="main"><h1>Harbour council backs lighthouse budget</h1>'
                f"{refrain}<p>{SECOND}</p>{refrain}</div>")
    assert main_text(item).count(STORY.strip()) == 4
    # the same paragraph under another parent is a copy: the twin's own paragraphs
    twin = page(f'<div id="main"><h1>Harbour council backs lighthouse budget</h1>'
                f"{refrain}<p>{SECOND}</p><blockquote>{refrain}</blockquote></div>")
    assert main_text(twin).count(STORY.strip()) == 2


@pytest.mark.parametrize("repeats", [1, 3])
def test_a_short_line_repeated_is_not_a_copy(repeats):
    line = "<p>Share this story</p>"
    item = page(f'<div id="main"><h1>Harbour council backs lighthouse budget</h1>'
                f"{line}<p>{STORY * 2}</p>{line * repeats}<p>{SECOND}</p></div>")
    assert main_text(item, once=False) == main_text(item)


ARTICLE = (f"<h1>Harbour council backs lighthouse budget</h1><p class=lead>{STORY}</p>"
           f"<p>{SECOND}</p><p>The keeper's cottage will be repaired first, the council said, "
           "and the pier itself in the spring, once the weather allows divers to inspect the "
           "foundations below the waterline.</p>")


BANNER = ('<div id="cookie-consent" class="cookie-banner"><p>We use cookies and similar '
          "technologies to improve your experience, measure traffic and show you "
          "personalised content and advertising. By clicking accept you agree to our use "
          "of cookies as described in our cookie policy and privacy notice.</p>"
          "<button>Accept all</button><button>Manage settings</button></div>")


def test_a_cookie_banner_and_the_menu_never_win_over_the_article():
    text = main_text(page(f'{BANNER}<div id="content"><article>{ARTICLE}</article></div>'))
    assert STORY.strip() in text and SECOND.strip() in text and "waterline" in text
    assert "Sport" not in text


def test_a_cookie_banner_is_not_kept_beside_the_article():
    text = main_text(page(f'{BANNER}<div id="content"><article>{ARTICLE}</article></div>'))
    assert "cookies" not in text and STORY.strip() in text
    # its class names a dialog: without that step, the banner is kept with the article
    assert "cookies" in main_text(
        page(f'{BANNER}<div id="content"><article>{ARTICLE}</article></div>'), dialogs=False)


BROWSER = ('<div class="popup-banner" id="update-browser-popup"><p>Your browser is out of '
           "date.</p><p>Download a newer browser for free to see this site at its best: click "
           "on its icon below.</p></div>")


def test_a_pop_up_notice_is_not_kept_with_a_short_article():
    short = f"<h2>Harbour council backs lighthouse budget</h2><p>{STORY}</p>"
    text = main_text(page(f'{BROWSER}<div class="story">{short}</div>'))
    assert STORY.strip() in text and "browser" not in text


PAYWALL = ('<div class="row paywall"><h3>Read on with a subscription</h3><p>Already a '
           "subscriber? Log in</p><ul><li>Every article on harbour.example.org</li><li>The "
           "morning newsletter with the day's news from the coast</li><li>Our app for phone "
           "and tablet, with the paper as it is printed, from five in the morning</li>"
           "<li>Three months for one pound, then cancel at any time</li></ul>"
           "<p>Subscribe now</p></div>")


def test_a_paywall_s_offer_is_not_kept_in_place_of_the_teaser():
    # the offer holds under half the page's text: a box laid over the page, not the page
    teaser = f"<h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p><p>{SECOND}</p>"
    item = page(f'<div class="story">{teaser}{PAYWALL}</div>')
    text = main_text(item)
    assert STORY.strip() in text and "subscription" not in text
    assert "subscription" in main_text(item, dialogs=False)


THIRD = ("The keeper's cottage will be repaired first, the council said, and the pier "
         "itself in the spring, once the weather allows divers to inspect it.")


@pytest.mark.parametrize("locked", [
    f'<div class="entry__content steady-paywall-container"><p>{SECOND}</p><p>{THIRD}</p>'
    "</div>",
    f'<div class="paywall"><p>{SECOND}</p></div><p>{THIRD}</p>',
    f'<p class="paywall">{SECOND}</p><p class="paywall">{THIRD}</p>'])
def test_the_article_behind_a_paywall_is_kept(locked):
    # a premium article's text, under half the page's text, in blocks named for the
    # paywall (Google's markup names each locked part "paywall", the free part
    # "non-paywall"): a paragraph of prose says it is the article, not the offer
    lead = ('<div class="non-paywall">The vote came after a long debate about the cost '
            "of the repairs.</div>")
    item = page('<article class="has-paywall"><h1>Harbour council backs lighthouse budget'
                f"</h1>{lead}{locked}</article><footer>{PRIVACY}</footer>")
    text = main_text(item)
    assert "long debate" in text and SECOND.strip() in text and THIRD in text


@pytest.mark.parametrize("name", ["cookie-text", "consent-content", "popup-body",
                                  "modal-content", "popover"])
def test_a_dialog_named_for_text_too_is_a_dialog(name):
    notice = (f'<div class="{name}"><p>We use cookies and similar technologies to improve '
              "your experience and to measure traffic.</p></div>")
    body = (f"<article><h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>"
            f"{notice}<p>{SECOND}</p><p>{STORY}</p></article>")
    text = main_text(page(body, "notice.html"))
    assert "cookies" not in text and SECOND.strip() in text


NEXT_STORY = ('<div class="next-story"><h2>Ferry timetable changes for the summer season</h2>'
              "<p>The ferry operator will add two early crossings on weekdays from June, after "
              "a survey of passengers found that most of them travel to work before eight in "
              "the morning.</p><p>Fares stay the same for the season, the operator said, "
              "although the price of a return ticket for a car will rise by a pound in the "
              "autumn.</p></div>")


def test_the_next_story_after_the_article_element_is_not_the_article():
    item = page(f'<div id="content"><article>{ARTICLE}</article>{NEXT_STORY}</div>')
    text = main_text(item)
    assert STORY.strip() in text and "ferry operator" not in text
    assert "ferry operator" in main_text(item, one_article=0.0)  # the step at work


MOST_READ = ('<div class="recirculation"><h2>Most read</h2><ul>' + "".join(
    f"<li><h3>{title}</h3><p>{text}</p></li>" for title, text in (
        ("Lifeboat crew rescues three sailors off the point",
         "The volunteer crew launched twice in one night after a yacht lost its rudder in "
         "heavy seas, and towed it into the harbour shortly before dawn, the station said. "
         "All three sailors were checked by paramedics on the quay and sent home."),
        ("School roof repairs to start in the spring holidays",
         "Scaffolding will go up around the primary school in the last week of March, the "
         "county said, so that the roof can be stripped and relaid while the pupils are "
         "away. The work is expected to take five weeks and cost about ninety thousand."),
        ("Market square parking charges to rise in April",
         "Drivers will pay twenty pence more an hour in the market square from April, after "
         "the council voted to bring its charges into line with the car parks by the "
         "station. Residents' permits stay at the same price for another year."),
        ("Fishing fleet lands its best catch in a decade",
         "Boats returning to the harbour this week landed more mackerel than in any week "
         "since records began to be kept on the quay, and buyers came from as far as the "
         "city to bid for it at the morning auction."),
    )) + "</ul></div>")


def test_a_box_of_other_stories_longer_than_the_article_is_not_kept_after_it():
    # the article element holds under half of what the scores keep, more than a tenth
    item = page(f'<div id="content"><article>{ARTICLE}</article>{MOST_READ}</div>')
    text = main_text(item)
    assert STORY.strip() in text and "waterline" in text
    assert "mackerel" not in text and "Scaffolding" not in text
    assert "mackerel" in main_text(item, one_article=0.5)  # the share the step asked before


def test_a_teaser_card_in_an_article_element_does_not_end_the_article():
    # the page's one <article> is a card before the story, holding neither its title nor
    # half of what is kept: the story after it stays
    card = ("<article class=card><h3>Ferry timetable changes for the summer season</h3>"
            "<p>The ferry operator will add two early crossings on weekdays from June, "
            "after a survey of its passengers.</p></article>")
    body = ARTICLE.replace("<h1>Harbour council backs lighthouse budget</h1>", "")
    item = page(f'<div id="content"><h1>Harbour council backs lighthouse budget</h1>{card}'
                f"{body}</div>")
    text = main_text(item)
    assert STORY.strip() in text and "waterline" in text


def test_the_next_story_in_an_article_element_of_its_own_is_not_the_article():
    # a feed of whole stories: the article is the element holding the page's <h1>
    following = NEXT_STORY.replace('<div class="next-story">', "<article>").replace(
        "</div>", "</article>")
    item = page(f'<div id="content"><article>{ARTICLE}</article>{following}</div>')
    text = main_text(item)
    assert STORY.strip() in text and "ferry operator" not in text


def test_the_title_before_the_article_element_stays():
    lead = "<p>By Ann Smith, harbour reporter, on Tuesday evening after the vote.</p>"
    body = ARTICLE.replace("<h1>Harbour council backs lighthouse budget</h1>", "")
    text = main_text(page(f'<div id="content"><h1>Harbour council backs lighthouse budget'
                          f"</h1>{lead}<article>{body}</article>{NEXT_STORY}</div>"))
    assert "Ann Smith" in text and STORY.strip() in text and "ferry operator" not in text


def test_a_page_laid_out_in_a_modal_wrapper_keeps_its_article():
    # a block named as a dialog that holds half the page's text is the page's layout
    article = ARTICLE.replace("h1>", "h2>")  # no <h1>: that would keep the wrapper too
    note = ("<p>Harbour notes is written by volunteers of the harbour society and printed "
            "on the first Friday of every month.</p>")
    text = main_text(page(f'<div class="modal-wrapper"><div id="content"><article>{article}'
                          f'</article></div></div><div class="about">{note}</div>'))
    assert STORY.strip() in text and SECOND.strip() in text


PRIVACY = "".join(
    f"<p>We and our {n} partners store and access information on your device, such as "
    "cookies and unique identifiers, and process personal data such as your browsing "
    "behaviour to personalise advertising and content, measure their performance, develop "
    "and improve our products, and learn about our audience. You may withdraw consent or "
    "object to processing based on legitimate interest at any time in the settings.</p>"
    for n in range(40, 46))


@pytest.mark.parametrize("dialog", ['role="dialog" aria-modal="true"', 'role="alertdialog"',
                                    'aria-modal="true"', "popover", 'popover="manual"'])
def test_a_consent_dialog_never_wins_over_a_short_article(dialog):
    short = f"<h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>"
    consent = f'<div class="cmp" {dialog}><h2>We value your privacy</h2>{PRIVACY}</div>'
    text = main_text(page(f'{consent}<div id="content"><article>{short}</article></div>'))
    assert STORY.strip() in text and "partners" not in text
    # the same box, not a modal dialog, is text of the page like any other
    assert "partners" in main_text(page(f'<div class="cmp">{PRIVACY}</div><div>{short}</div>'))


def test_a_dialog_element_is_text_only_when_open():
    short = f"<h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>"
    for shown in (False, True):
        dialog = f"<dialog{' open' if shown else ''}><h2>Privacy</h2>{PRIVACY}</dialog>"
        text = main_text(page(f'{dialog}<div id="content"><article>{short}</article></div>'))
        assert STORY.strip() in text and ("partners" in text) == shown


def test_a_non_modal_sheet_is_kept():
    sheet = (f'<div role="dialog" aria-modal="false"><h2>Description</h2><p>{STORY}</p>'
             f"<p>{SECOND}</p></div>")
    assert STORY.strip() in main_text(page(f'<div id="content">{sheet}</div>'))


TEASERS = ('<aside class="top-stories"><h2>Top stories</h2><ul>' + "".join(
    f'<li><article class="card"><a href="/story{i}"><h3>Council to review the ferry '
    f"timetable for the summer season, part {i}</h3></a><p>Transport, {i} days ago. The "
    f"operator says the new timetable adds two early crossings on weekdays.</p></article>"
    f"</li>" for i in range(3)) + "</ul></aside>")


def test_teaser_cards_in_the_header_are_not_the_article():
    item = page(f"<header>{TEASERS}</header><main><article>{ARTICLE}</article></main>")
    text = main_text(item)
    assert STORY.strip() in text and SECOND.strip() in text and "crossings" not in text
    assert "crossings" in main_text(item, landmarks=())  # what the landmarks rule takes


def test_a_page_wrapped_in_a_landmark_keeps_its_article():
    # CNN's pages of 2015: the whole page, article too, inside <header><nav>
    text = main_text(page(f"<header><nav>{NAV}<article>{ARTICLE}</article></nav></header>"))
    assert STORY.strip() in text and SECOND.strip() in text


def test_a_page_wrapped_in_a_landmark_keeps_its_article_over_its_comments():
    # the comments outside the wrapper go later: they do not make the page unwrapped
    comments = ('<section class="comments">' + "".join(
        f'<div class="comment"><p>I walk past that pier every day and honestly it is about '
        f"time somebody fixed it, and the cottage too, reader number {i}.</p></div>"
        for i in range(5)) + "</section>")
    article = f"{ARTICLE}<p>{STORY}{SECOND}</p><p>{SECOND}{STORY}</p>"
    text = main_text(page(f"<header><nav>{NAV}<article>{article}</article></nav></header>"
                          f"{comments}"))
    assert STORY.strip() in text and SECOND.strip() in text and "honestly" not in text


def test_a_shops_menu_of_categories_is_not_the_product():
    # half the page's text in a <nav> of category columns, each link with a line of its
    # own: not link-dense, scored as content, and not a page wrapped in a landmark
    columns = {"Boats": ["Sailing dinghies", "Day sailers", "Keelboats", "Catamarans"],
               "Rigging": ["Standing rigging", "Running rigging", "Blocks", "Shackles"],
               "Sails": ["Mainsails", "Jibs and genoas", "Spinnakers", "Sail covers"],
               "Safety": ["Life jackets", "Harnesses", "Flares", "Bilge pumps"],
               "Clothing": ["Foul weather jackets", "Deck shoes", "Gloves", "Dry bags"]}
    menu = "<nav class='megamenu'>" + "".join(
        f"<div class='column'><p>Shop {name} by category</p><ul>" + "".join(
            f"<li><a href='/c/{item}'>{item}</a> <span>in stock, ships in two days</span>"
            f"</li>" for item in items) + f"</ul><p>See all {name.lower()} in our "
        f"chandlery, new and used</p></div>" for name, items in columns.items()) + "</nav>"
    product = (f"<div id='product'><h1>Bronze mooring ring, 60 mm</h1><p>{STORY}</p>"
               f"<h2>Details</h2><p>{SECOND}</p><p>{SECOND}</p><h2>Reviews</h2>"
               f"<p>{STORY}</p></div>")
    item = page(f"<header>{menu}</header>{product}")
    text = main_text(item)
    assert STORY.strip() in text and SECOND.strip() in text and "in stock" not in text
    assert "in stock" in main_text(item, landmarks=())  # what the landmarks rule takes


def test_a_layout_wrapper_named_footer_keeps_its_article():
    # the "sticky footer" layout: a wrapper named for the footer it pushes down holds the
    # whole page, title and article too; the real footer inside it still goes
    footer = ('<div class="sticky-footer_footer"><div class="site-footer">'
              + "".join(f'<p>Harbour Office, Quay Street {i}, opening hours 9 to 5 on '
                        f"weekdays, closed on public holidays</p>" for i in range(3))
              + "</div></div>")
    item = page(f'<div class="sticky-footer"><div class="sticky-footer_body"><h1>Harbour '
                f"council backs lighthouse budget</h1><p>{STORY}</p><p>{SECOND}</p></div>"
                f"{footer}</div>")
    text = main_text(item)
    assert STORY.strip() in text and SECOND.strip() in text
    assert "opening hours" not in text
    assert "opening hours" in main_text(item, furniture=())  # what the footer rule takes
    # a forum's wrapper holding the header and its logo, an <h1> without text, and a
    # paragraph of the page's own after it
    logo = item.html.replace(
        "<h1>Harbour council backs lighthouse budget</h1>",
        '<h1 class="logo"><img src="/logo.png" alt=""></h1><h2>Harbour council backs '
        "lighthouse budget</h2>").replace(
        "</body>", "<p>The harbour office answers letters about moorings within a week, "
                   "and urgent questions by telephone during office hours.</p></body>")
    text = main_text(dataclasses.replace(item, html=logo))
    assert STORY.strip() in text and SECOND.strip() in text
    # a footer with a logo of its own is no wrapper: the page's first <h1> is the title's
    own_logo = item.html.replace('<div class="site-footer">', '<div class="site-footer">'
                                 '<h1 class="logo"><img src="/logo.png" alt=""></h1>')
    assert "opening hours" not in main_text(dataclasses.replace(item, html=own_logo))


def test_comments_and_related_stories_are_not_the_article():
    comments = ('<section id="comments" class="comments"><h3>14 comments</h3>' + "".join(
        f'<div class="comment"><span class="author">reader{i}</span><p>I walk past that pier '
        f"every day and honestly it is about time somebody fixed it, number {i}.</p></div>"
        for i in range(4)) + "</section>")
    related = ('<aside class="related"><h3>Related stories</h3><ul>' + "".join(
        f'<li><a href="/story{i}">Council to review ferry timetable for the summer season '
        f"part {i}</a></li>" for i in range(5)) + "</ul></aside>")
    text = main_text(page(f'<div id="content"><article>{ARTICLE}</article>{comments}'
                          f"{related}</div>"))
    assert STORY.strip() in text and SECOND.strip() in text
    assert "honestly" not in text and "comments" not in text and "ferry" not in text


SHORT_POST = "The lighthouse at dusk, from the end of the old stone pier."


def short_post_comments(post: str, names: str = "comment") -> str:
    """A post and ten readers' comments in blocks named ``names``, as a blog lays
    them out (the comments outweigh the post thirty to one)."""
    return (f'<div id="content"><div class="post"><h2>Lighthouse at dusk</h2>{post}</div>'
            f'<div id="comments"><h3>10 Comments</h3><ol>' + "".join(
                f'<li class="{names}"><div class="{names}-author">reader{i}</div><div '
                f'class="{names}-meta">November {i + 1}, 2012 | Permalink</div><p>What a '
                f"picture, I have walked that pier a hundred times and never seen the lamp "
                f"like that, thank you for sharing it, number {i}.</p></li>"
                for i in range(10)) + "</ol></div></div>")


def test_a_short_post_is_returned_without_its_comments():
    text = main_text(page(short_post_comments(f"<p>{SHORT_POST}</p>"), "dusk.html"))
    assert SHORT_POST in text
    assert "What a picture" not in text and "Permalink" not in text
    # step 3 alone keeps them: the post is too short to outweigh them
    kept = main_text(page(short_post_comments(f"<p>{SHORT_POST}</p>"), "dusk.html"),
                     post_comments=False)
    assert "What a picture" in kept


def test_an_opinion_article_named_comment_or_commentary_is_the_article():
    # a newspaper's opinion pieces: the article styled "tone-comment" (holding the
    # title), the story in a "commentary-body" with a paragraph outside it
    tone = page('<p class="standfirst">A view from the harbour wall.</p><article class="'
                f'content tonal--tone-comment">{ARTICLE}</article>', "opinion.html")
    commentary = page(f'<h1>Harbour council backs lighthouse budget</h1><p class="dek">A '
                      f'view from the harbour wall.</p><div class="commentary-body">'
                      f"<p>{STORY}</p><p>{SECOND}</p></div>", "opinion2.html")
    for item in (tone, commentary):
        text = main_text(item)
        assert STORY.strip() in text and SECOND.strip() in text


def test_a_thread_of_posts_named_comments_keeps_them():
    # nothing but a title outside the blocks named comments: a forum thread, not a post
    thread = short_post_comments("").replace('<div class="post">', '<div class="thread">')
    text = main_text(page(thread, "thread.html"))
    assert "What a picture" in text and "number 9" in text


QUESTION = ("We want to visit the islands in June with two children and a car, and we cannot "
            "decide between the night ferry and a short flight. Has anyone here done either "
            "with a family, and which would you choose again?")


def forum_thread(declared: str) -> Page:
    """A travel forum's thread: a question long enough to outweigh comments, and four
    replies in blocks named as comments, the page saying what it is by ``declared``
    (markup in the ``<head>`` or on the thread's element)."""
    replies = "".join(
        f'<article class="comment reply" itemprop="comment"><span class="author">'
        f"traveller{i}</span><p>We took the night ferry from the harbour last spring and "
        f"the crossing was calm, so I would book the cabin early, answer number {i}.</p>"
        f"</article>" for i in range(4))
    body = (f'<div id="content"><article class="topic"{{item}}><h1>Ferry or flight to the '
            f'islands?</h1><p>{STORY}{SECOND}</p><p>{QUESTION}</p></article><section id="replies">'
            f"{replies}</section></div>")
    item = page(body.replace("{item}", declared if declared.startswith(" ") else ""),
                "thread.html")
    if declared.startswith("<script"):
        item = dataclasses.replace(item, html=item.html.replace("</head>", declared + "</head>"))
    return item


@pytest.mark.parametrize("declared", [
    ' itemscope itemtype="https://schema.org/DiscussionForumPosting"',
    '<script type="application/ld+json">{"@context": "https://schema.org", "@type": '
    '"DiscussionForumPosting", "headline": "Ferry or flight?"}</script>',
    '<script type="application/ld+json">{"@type": ["Article", "DiscussionForumPosting"]}'
    "</script>"])
def test_a_page_that_says_it_is_a_forum_thread_keeps_its_replies(declared):
    thread = forum_thread(declared)
    assert len(STORY + SECOND + QUESTION) > 500  # outweighs the comments: step 3 drops them
    text = main_text(thread)
    assert STORY.strip() in text and "answer number 0" in text and "answer number 3" in text
    assert "answer number 3" not in main_text(thread, threads=False)


@pytest.mark.parametrize("declared", [
    "", ' itemscope itemtype="https://schema.org/QAPage"',
    ' data-about="https://schema.org/DiscussionForumPosting"',
    '<script type="application/ld+json">{"@type": "BlogPosting", "about": "a '
    'DiscussionForumPosting"}</script>'])
def test_a_page_that_does_not_say_it_is_a_forum_thread_loses_its_comments(declared):
    # an article's readers' comments, a Q&A page's comments under its answers, a post
    # that only names the type
    text = main_text(forum_thread(declared))
    assert STORY.strip() in text and "answer number" not in text


@pytest.mark.parametrize("label", ["Advertisement", "ADVERTISEMENT - Continue reading below",
                                   "Story continues below advertisement", "Anzeige",
                                   "Share this article", "Beitrag teilen", "Copy link",
                                   "4 min read", "Back to top", "12 comments",
                                   '<a href="/reply?to=3">Reply</a>', "|", "\u200d",
                                   "Foto: Hafenverwaltung", "Photo by Ann Smith",
                                   "© dpa | Ann Smith", "Ann Smith/Getty Images",
                                   "JIM WATSON/AFP via Getty Images",
                                   "(AP Photo/Ann Smith)"])
def test_a_label_is_not_the_article(label):
    # the slot a template leaves for an ad it loads later, a share bar's button, a
    # reading time: between two paragraphs
    body = (f'<article><h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>'
            f'<div class="slot"><div class="label">{label}</div></div><p>{SECOND}</p>'
            "</article>")
    text = main_text(page(body, "ad.html")).split("\n")
    shown = label.split(">")[1].split("<")[0] if "<" in label else label
    assert STORY.strip() in text and SECOND.strip() in text and shown not in text
    assert shown in main_text(page(body, "ad.html"), labels=False).split("\n")


@pytest.mark.parametrize(("line", "shown"), [
    ("Jun 18th 2018", "Jun 18th 2018"),
    ("Aktualisiert: <time>11.04.2020</time>, 10:27", "11.04.2020"),
    ("17 April 2012 \u2022 2:54pm", "17 April 2012 \u2022 2:54pm"),
    ("2 months ago", "2 months ago"),
    ("5h ago", "5h ago"), ("an hour ago", "an hour ago"),
    ("2022-11-23T08:10+02:00", "2022-11-23T08:10+02:00"),
    ("Pubblicato il 19 Febbraio 2020 Ultima modifica 19 Febbraio 2020 12:02",
     "Pubblicato il 19 Febbraio 2020"),
    ("Published on Tuesday, 3 March 2020", "Published on Tuesday, 3 March 2020"),
    ("Stand: 12.03.2021 14:00 Uhr", "Stand: 12.03.2021 14:00 Uhr"),
    ("<span>5</span><sup>th</sup> June 2020", "5th June 2020"),
    ("Publikacja: 5 maja 2021, 14:05", "Publikacja: 5 maja 2021, 14:05")])
def test_a_date_line_is_not_the_article(line, shown):
    body = (f'<article><h1>Harbour council backs lighthouse budget</h1>'
            f'<div class="meta"><span>{line}</span></div><p>{STORY}</p><p>{SECOND}</p>'
            "</article>")
    text = main_text(page(body, "dated.html"))
    assert STORY.strip() in text and SECOND.strip() in text and shown not in text
    assert shown in main_text(page(body, "dated.html"), datelines=False)


def test_a_date_in_a_list_a_heading_a_table_or_a_sentence_or_a_byline_stays():
    # an archive's months, a schedule's dates, a heading naming a day; lines that begin
    # like a date, a price, a version, opening hours, an event's date, a title; a byline,
    # which most gold keeps: the article's text
    lines = ("12 March 2020 was a Tuesday.", "May I help you?", "2019", "By Ann Smith",
             "By Ann Smith, 5 June 2020", "19.99", "3.11", "10:30 - 12:00",
             "Datum: 05.06.2021", "Today", "Long ago")
    body = (f'<article><h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>'
            "<ul><li>May 2019</li><li>June 2019</li></ul><h2>12 March 2020</h2>"
            "<table><tr><td>Opening</td><td>5 June 2021, 10:00</td></tr></table>"
            + "".join(f"<div><div>{line}</div></div>" for line in lines)
            + f"<p>{SECOND}</p></article>")
    text = main_text(page(body, "archive.html"))
    assert all(line in text.split("\n") for line in lines)
    assert "May 2019" in text and "12 March 2020" in text and "5 June 2021, 10:00" in text


def test_an_agency_that_ends_a_sentence_or_names_a_heading_is_no_credit():
    # a credit's words after no separator, an enumeration's third item, a course's
    # credits and level, a German "wenn": lines of the article's text
    lines = ("Sources told Reuters", "Images of the old harbour", "Photographs from 1920",
             "(c) The keeper reports damage.", "Credits: 3", "Biology (AP)",
             "Was passiert, wenn", "Copyright law")
    body = (f'<article><h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>'
            + "".join(f"<div><div>{line}</div></div>" for line in lines)
            + f"<h2>Getty Images</h2><p>{SECOND}</p></article>")
    text = main_text(page(body, "credit.html")).split("\n")
    assert all(line in text for line in lines) and "Getty Images" in text


def test_an_ad_word_in_a_sentence_a_list_a_table_or_a_heading_stays():
    # "Anzeige" is German for an ad and for a display: a spec sheet's cell
    specs = "<table><tr><td>Anzeige</td><td>6,1 Zoll OLED</td></tr></table>"
    kinds = ("<ul><li><div>Sponsored</div><p>Posts a brand paid the author to write.</p>"
             "</li><li><div>Organic</div><p>Posts nobody paid for.</p></li></ul>")
    body = (f'<article><h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>'
            f"<p>The <b>advertisement</b> for the keeper's job ran for a month.</p>{specs}"
            f"{kinds}<h2><span>Werbung</span></h2><p>{SECOND}</p><p>{STORY}</p></article>")
    text = main_text(page(body, "words.html"))
    lines = text.split("\n")
    assert "The advertisement for the keeper's job ran for a month." in lines
    assert "Werbung" in lines and "Sponsored" in lines and "Anzeige" in text
    assert text == main_text(page(body, "words.html"), labels=False)


def test_a_control_word_that_is_text_stays():
    # a dialogue's line, code samples (an empty JSON object: no word), a quote, a
    # feature in a cell, an item, a one-word paragraph that is no link: text, not labels
    body = (f'<article><h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>'
            "<p>\u201cClose.\u201d</p><pre>print()</pre><pre>{}</pre>"
            "<blockquote>Share</blockquote>"
            "<table><tr><td>Close</td><td>102.5</td></tr></table><ul><li>Print</li>"
            f"<li>Scan</li></ul><p>Reply</p><p>{SECOND}</p><p>{STORY}</p></article>")
    text = main_text(page(body, "close.html"))
    assert text == main_text(page(body, "close.html"), labels=False)
    assert all(word in text.split("\n") for word in ("\u201cClose.\u201d", "Share", "Reply",
                                                      "{}"))


RELATED_TEASERS = ("<p>Ferry timetable to change for the summer season</p><p>The harbour "
                   "office publishes new sailing times for the island ferries.</p>"
                   "<p>Lifeboat crew rescues two kayakers off the headland</p>")


@pytest.mark.parametrize("head", ["<h2>Mehr zum Thema</h2>", "<h3>You may also like</h3>",
                                  "<p><strong>Related posts:</strong></p>",
                                  "<div>Das könnte dich auch interessieren</div>",
                                  "<h3>About the author</h3>", "<h3>12 Comments</h3>"])
def test_a_box_of_related_articles_after_the_article_goes(head):
    body = (f'<article><h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>'
            f"<p>{SECOND}</p><p>{STORY}</p><div>{head}{RELATED_TEASERS}</div></article>")
    text = main_text(page(body, "related.html"))
    assert STORY.strip() in text and SECOND.strip() in text
    assert "Ferry timetable" not in text and "kayakers" not in text
    assert "kayakers" in main_text(page(body, "related.html"), related=False)


def test_the_article_going_on_after_a_box_of_related_articles_stays():
    # a related box between two paragraphs: the section ends at the next paragraph of
    # prose, and at the article's next heading
    body = (f'<article><h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>'
            f"<p>{STORY}</p><h4>Auch interessant</h4><p>Ferry timetable to change</p>"
            f"<p>{SECOND}</p><h4>Mehr zum Thema</h4><p>Lifeboat crew rescues kayakers</p>"
            f"<h2>What the pier needs</h2><p>{STORY}</p><p>{SECOND}</p></article>")
    text = main_text(page(body, "inside.html"))
    assert "Auch interessant" not in text and "Ferry timetable" not in text
    assert "kayakers" not in text and "What the pier needs" in text
    assert text.count(SECOND.strip()) == 2


def test_an_author_s_box_goes_with_its_bio():
    # the head opens its own box: the bio's long paragraph does not mean the article goes on
    bio = ("<p>Ann Smith has reported on the harbour, the ferries and the lifeboat station "
           "for the paper since 2009, and writes its weekly column on the fishing fleet.</p>")
    body = (f'<article><h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>'
            f'<p>{SECOND}</p><p>{STORY}</p><div class="box"><h3>About the author</h3>{bio}'
            "</div></article>")
    text = main_text(page(body, "bio.html"))
    assert STORY.strip() in text and SECOND.strip() in text and "Ann Smith" not in text
    assert "Ann Smith" in main_text(page(body, "bio.html"), related=False)


@pytest.mark.parametrize("head", ["<h2>Related Stories</h2>",
                                  '<h2><a href="/related">Related Stories</a></h2>'])
def test_teasers_after_a_heading_wrapped_alone_go(head):
    # phys.org's related stories: the heading alone in its <header>, each teaser a card
    # whose blurb is a paragraph of its own box; a linked heading the scores drop too
    cards = "".join(
        f'<article class="card"><h4><a href="/news/{i}.html">Ferry news number {i}</a></h4>'
        f'<small>March {i}, 2017</small><div class="blurb"><p>The harbour office '
        f"publishes new sailing times for the island ferries, route {i}, from next "
        "month, and the lifeboat crew will train on the new pier ...</p></div></article>"
        for i in range(1, 4))
    body = (f'<div class="page"><div class="story"><h1>Harbour council backs lighthouse '
            f"budget</h1><p>{STORY}</p><p>{SECOND}</p><p>{STORY}</p><p>{SECOND}</p>"
            f"<p>{STORY}</p></div>"
            f'<section class="more"><header class="head">{head}</header>{cards}</section>'
            "</div>")
    text = main_text(page(body, "cards.html"))
    assert STORY.strip() in text and SECOND.strip() in text
    assert "route" not in text and "March 2, 2017" not in text
    assert "route 3" in main_text(page(body, "cards.html"), related=False)


def _readers_comments(count: int) -> str:
    """Movable Type's comments: no block named a comment, each a paragraph and its
    "Posted by" line, longer together than the post."""
    return "".join(
        f'<div id="c{i}"><p>Reader {i} remembers the old lamp on the pier: it blinked '
        f"twice at dusk, once at dawn, and the keeper's dog slept under it every summer "
        f"night of {1970 + i}, while the ferries came in late from the islands.</p></div>"
        f'<p class="posted">Posted by: Reader {i} at September {10 + i}, 2012 11:40 AM</p>'
        for i in range(1, 7))


def test_readers_comments_under_a_heading_named_comments_go():
    # the heading says "Comments" and its id names them; the comments hold dates and
    # more text than the post, and are paragraphs beside the post's
    body = (f'<div class="content"><h1>Harbour council backs lighthouse budget</h1>'
            f"<p>{STORY}</p><p>{SECOND}</p>"
            '<p class="posted">Posted by laurie at September 10, 2012 9:01 AM</p>'
            f'<h2 id="comments">Comments</h2>{_readers_comments(6)}</div>')
    text = main_text(page(body, "mt.html"))
    assert STORY.strip() in text and SECOND.strip() in text
    assert "Reader 3" not in text and "keeper's dog" not in text
    assert "keeper's dog" in main_text(page(body, "mt.html"), related=False)


def test_a_reference_s_section_named_comments_stays():
    # a language reference's "Comments", its heading's id made from its words: no dates
    rules = ("<p>A comment starts with a hash character that is not part of a string "
             "literal, and ends at the end of the physical line that holds it.</p>"
             "<p>Comments are ignored by the syntax; they are not tokens, and a line "
             "holding only a comment is a blank line to the parser and the tokenizer.</p>")
    body = (f"<article><h1>Lexical analysis</h1><p>{STORY}</p><p>{SECOND}</p>"
            f'<h2 id="comments">Comments</h2>{rules}<h2 id="strings">Strings</h2>'
            f"<p>{STORY}</p></article>")
    text = main_text(page(body, "syntax.html"))
    assert "hash character" in text and "blank line to the parser" in text


def test_a_line_saying_when_the_post_was_filed_goes():
    line = ("This entry was posted on Thursday, August 9th, 2012 at 2:01 pm and is filed "
            "under Pier, Harbour. You can follow any responses to this entry through the "
            "RSS 2.0 feed.")
    body = (f"<article><h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>"
            f'<p>{SECOND}</p><p>{STORY}</p><p class="meta"><small>{line}</small></p>'
            "</article>")
    text = main_text(page(body, "posted.html"))
    assert STORY.strip() in text and SECOND.strip() in text and "20" not in text
    assert line in main_text(page(body, "posted.html"), datelines=False)


@pytest.mark.parametrize(("line", "posted"), [
    ("This entry was posted in Allgemein. Bookmark the permalink.", True),
    ("Dieser Beitrag wurde am 04/02/2020 von kj in Bundesgericht veröffentlicht.", True),
    ("Erstellt am Dienstag 6. Mai 2014 um 23:30 und abgelegt unter Linux.", True),
    ("TrackBack URL for this entry: https://harbour.example.org/tb/123", True),
    ("Listed below are links to weblogs that reference Pier news:", True),
    ("Filed under: Hardware -- Catalogs", False),
    ("Erstellt am Montag. Der Rat hat abgelegt unter Protest.", False)])
def test_the_words_of_a_posted_line(line, posted):
    assert (POSTED_LINE.match(line) is not None) is posted


def _slides(total: int, counter: str = "{n} of {total}") -> str:
    """A news gallery: each slide its picture, counter and caption."""
    return "".join(
        f'<div class="slide"><img src="/p/{n}.jpg" alt=""><span>'
        f"{counter.format(n=n, total=total)}</span><p>Photograph {n}: the keeper's "
        f"cottage from the north pier, taken by a reader in the spring of {1990 + n}, "
        "before the lamp was replaced and the stones were cleaned.</p></div>"
        for n in range(1, total + 1))


@pytest.mark.parametrize("counter", ["{n} of {total}", "Image {n} of {total}", "{n}/{total}"])
def test_a_gallery_s_slides_after_the_article_go(counter):
    article = f"<p>{STORY}</p><p>{SECOND}</p>" * 4  # over GALLERY_REST characters
    body = (f"<article><h1>Harbour council backs lighthouse budget</h1>{article}"
            f'<div class="gallery">{_slides(6, counter)}</div></article>')
    text = main_text(page(body, "gallery.html"))
    assert STORY.strip() in text and SECOND.strip() in text
    assert "Photograph" not in text and "of 6" not in text
    assert "Photograph 4" in main_text(page(body, "gallery.html"), galleries=False)


def test_ratings_and_a_photo_post_s_slides_stay():
    # "5/5" and "4/5" count no slides; a post that is its photographs keeps them
    ratings = "".join(f"<div><h3>Pier tour {n}</h3><span>{n}/5</span><p>{SECOND}</p></div>"
                      for n in (5, 4, 5))
    article = f"<p>{STORY}</p><p>{SECOND}</p>" * 4
    body = (f"<article><h1>Harbour council backs lighthouse budget</h1>{article}{ratings}"
            "</article>")
    assert main_text(page(body, "ratings.html")).count(SECOND.strip()) == 7
    post = (f"<article><h1>The pier in pictures</h1><p>{STORY}</p>"
            f'<div class="gallery">{_slides(4)}</div></article>')
    assert "Photograph 3" in main_text(page(post, "photos.html"))


def test_a_short_paragraph_after_a_box_of_related_links_stays():
    # CNET's box between two paragraphs holds its heading and its links, all dropped: the
    # section lies in that box, not in the article around it
    links = "".join(f'<li><a href="/news/{i}.html">Ferry news number {i}</a></li>'
                    for i in range(1, 5))
    body = (f'<div class="story"><h1>Harbour council backs lighthouse budget</h1>'
            f"<p>{STORY}</p><p>{SECOND}</p><p>{STORY}</p>"
            f'<div class="related"><h3>Related stories</h3><ul>{links}</ul></div>'
            "<p>Consumers spend more time at the harbour in summer.</p>"
            f"<p>{SECOND}</p></div>")
    assert "Consumers spend more time" in main_text(page(body, "cnet.html"))


@pytest.mark.parametrize("opening", ["", '<h4><a href="#pier">#</a> The pier</h4>',
                                     '<p>See <a href="/plan.pdf">the plan</a>.</p>'])
def test_the_article_going_on_in_a_part_of_its_own_after_an_empty_box_stays(opening):
    # a box whose links a script fills in is its heading alone: the section climbs to the
    # article, where its next part opens with no headline (a link of two words or more)
    more = ("The pier will close for three weeks in March while the contractors replace the "
            "rusted mooring rings and repair the stone steps down to the lifeboat slipway.")
    body = (f'<article><h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>'
            f'<p>{SECOND}</p><p>{STORY}</p><div class="box"><h3>Related stories</h3></div>'
            f'<div class="part">{opening}<p>{more}</p><p>{SECOND}</p></div></article>')
    assert more in main_text(page(body, "empty-box.html"))


def test_an_author_s_box_whose_head_the_scores_dropped_goes_with_its_bio():
    bio = ("Ann Smith has reported on the harbour, the ferries and the lifeboat station for "
           "the paper since 2009, and writes its weekly column on the fishing fleet.")
    body = (f'<article><h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>'
            f'<p>{SECOND}</p><p>{STORY}</p><div class="box"><h3>About the author</h3>'
            f"<p>{bio}</p></div></article>")
    blocks = extract(page(body, "bio.html")).blocks
    keep = blocks.chunk_block >= 0
    head = blocks.text.index("About the author")
    keep[np.searchsorted(blocks.chunk_starts, head)] = False  # as if the scores dropped it
    kept = block_lines(blocks, _without_related(blocks, keep))
    assert STORY.strip() in kept and bio not in kept


@pytest.mark.parametrize("head", ["<h3>Related articles</h3>", "<div>Mehr zum Thema</div>"])
def test_the_article_going_on_after_a_related_box_opening_its_second_part_stays(head):
    # only an author's box takes its paragraph with it: the article's second part here
    links = ('<ul><li><a href="/a">Ferry timetable to change</a></li><li><a href="/b">'
             "Lifeboat crew rescues kayakers</a></li></ul>")
    body = (f'<article><h1>Harbour council backs lighthouse budget</h1><div class="part">'
            f"<p>{STORY}</p><p>{SECOND}</p><p>{STORY}</p></div><div class='part'>{head}"
            f"{links}<p>{THIRD}</p><p>{SECOND}{STORY}</p></div></article>")
    text = main_text(page(body, "parts.html"))
    assert "keeper's cottage will be repaired" in text and text.count(SECOND.strip()) == 2


def test_the_sections_of_a_listing_are_its_items():
    # no article before "Trending", one long blurb a card: its teasers are the page's
    # items, as "Top stories" are
    cards = "".join(f'<div class="card"><h3><a href="/s{i}">Ferry timetable change {i}</a></h3>'
                    f"<p>The harbour office publishes new sailing times for the island ferries "
                    f"and the summer crossings to the lighthouse, part {i}.</p></div>"
                    for i in range(4))
    body = (f"<main><h1>Harbour news</h1><h2>Top stories</h2>{cards}<h2>Trending</h2>"
            f"{cards.replace('Ferry timetable', 'Lifeboat rescue')}</main>")
    text = main_text(page(body, "front.html"))
    assert "Trending" in text and "Lifeboat rescue change 2" in text
    assert text == main_text(page(body, "front.html"), related=False)


def test_a_box_s_title_above_its_own_paragraphs_heads_no_section():
    body = (f'<article><h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>'
            f"<p>{STORY}</p><div><span>Trending</span><p>{SECOND}</p></div><p>{STORY}</p>"
            "</article>")
    text = main_text(page(body, "box.html"))
    assert SECOND.strip() in text and text == main_text(page(body, "box.html"), related=False)


@pytest.mark.parametrize("box", [
    # a table's row header and caption
    "<table><caption>Most read</caption><tr><th>Most read</th><td>The pier, the lighthouse"
    " and the keeper's cottage</td></tr></table>",
    # an item of a list
    "<ul><li>Related posts</li><li>Ferry timetable to change for the summer season</li></ul>",
])
def test_a_table_cell_or_a_list_item_heads_no_section(box):
    body = (f'<article><h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>'
            f"<p>{STORY}</p>{box}<p>{STORY}</p></article>")
    assert main_text(page(body, "box.html")) == main_text(page(body, "box.html"),
                                                          related=False)


def test_a_page_of_related_articles_headed_so_is_its_own_content():
    # an article's two paragraphs, then more related stories than they hold
    teasers = "".join(f"<p>Ferry timetable change {i}: the harbour office publishes new "
                      f"sailing times for the island ferries, part {i}.</p>" for i in range(6))
    body = (f"<h1>Harbour council backs lighthouse budget</h1><div><p>{STORY}</p>"
            f"<p>{SECOND}</p></div><h2>Related stories</h2><div>{teasers}</div>")
    text = main_text(page(body, "index.html"))
    assert "part 5" in text and text == main_text(page(body, "index.html"), related=False)


@pytest.mark.parametrize("head", ["See also", "Related", "Recommended", "Comments",
                                  "Der Autor", "Zur Person", "Up next", "Add a comment"])
def test_headings_that_may_title_an_article_s_own_section_head_no_box(head):
    # a wiki's "See also", an academic page's "Related" work, a game's "Recommended"
    # system requirements, a language reference's "Comments", a book review's "Der
    # Autor", an interview's "Zur Person", a sports report's "Up next", a help page's
    # "Add a comment"
    body = (f'<article><h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>'
            f"<p>{SECOND}</p><p>{STORY}</p><h2>{head}</h2>{RELATED_TEASERS}</article>")
    text = main_text(page(body, "wiki.html"))
    assert "kayakers" in text and text == main_text(page(body, "wiki.html"), related=False)


def test_no_page_loses_its_first_paragraph():
    text = main_text(page(f'<div id="content"><article>{ARTICLE}</article></div>'))
    assert text.index(STORY.strip()) < text.index(SECOND.strip())


STANDFIRST = ("Repairs to the old stone pier will start in spring, and the keeper's cottage "
              "is to become a small museum of the harbour's history.")
FUND = ("The works are paid for by the port's reserve fund and a grant from the region, so "
        "that no harbour fee has to rise this year or the next.")


def most_read(links: int = 8) -> str:
    return ("<aside><h3>Most read</h3><ul>" + "".join(
        f'<li><a href="/{i}">Ferry timetable change number {i} announced</a></li>'
        for i in range(links)) + "</ul></aside>")


def standfirst_page(title: str = "<h1>Harbour council backs lighthouse budget</h1>",
                    head: str = "", body: str = "story-body", lead: str = STANDFIRST,
                    links: int = 8, opening: str = "",
                    paragraphs: tuple[str, ...] = (STORY, SECOND, FUND, STORY)) -> Page:
    """A news page whose standfirst sits with the title, above the body's container
    (its ``paragraphs``, after ``opening``), beside a box of links."""
    text = "".join(f"<p>{paragraph}</p>" for paragraph in paragraphs)
    return page(f'<div class="story"><div class="story-head">{title}<p class="standfirst">'
                f'{lead}</p>{head}</div><div class="columns"><div class="{body}">{opening}'
                f"{text}</div>"
                f"{most_read(links)}</div></div>", "standfirst.html")


def test_the_standfirst_beside_the_title_is_the_article_s_first_paragraph():
    item = standfirst_page()
    assert STANDFIRST not in main_text(item, lead=False)  # the region: the body alone
    text = main_text(item)
    assert text.index(STANDFIRST) < text.index(STORY.strip()) and "Most read" not in text


def test_a_byline_or_a_linked_offer_beside_the_title_is_no_lead():
    offer = ('<p><a href="/subscribe">Subscribe to the Harbour Post and read every story of '
             "the harbour towns for one pound a week</a></p>")
    text = main_text(standfirst_page(head=f"<p>By Ann Reporter, harbour correspondent</p>"
                                          f"{offer}"))
    assert STANDFIRST in text and "Ann Reporter" not in text and "Subscribe" not in text


@pytest.mark.parametrize("title", ["", "<h2>Harbour council backs lighthouse budget</h2>"])
def test_text_before_the_body_under_no_h1_is_no_lead(title):
    assert STANDFIRST not in main_text(standfirst_page(title))


def test_the_lead_does_not_turn_an_opinion_body_named_comment_into_comments():
    text = main_text(standfirst_page(body="content content--comment"))
    assert STANDFIRST in text and FUND in text


def test_a_half_linked_paragraph_beside_the_title_is_no_lead():
    half = ('<p>The council met in the old town hall on Tuesday evening. <a href="/live">'
            "Follow the whole debate as it happened in our live blog</a></p>")
    text = main_text(standfirst_page(head=half, links=40))
    assert STANDFIRST in text and "old town hall" not in text


def test_a_body_with_a_section_s_h1_keeps_its_lead():
    item = standfirst_page(links=40, opening=f"<p>{STORY}</p><h1>The vote</h1>")
    assert STANDFIRST in main_text(item)


def test_a_body_of_short_paragraphs_keeps_its_lead():
    lines = tuple(f"Line {i} of the council's notes on the old stone pier." for i in range(12))
    assert STANDFIRST in main_text(standfirst_page(links=40, paragraphs=lines))


def test_a_lead_the_body_repeats_is_given_once():
    lead = f"{STANDFIRST} {FUND}"
    assert len(lead) >= COPY_CHARS
    item = standfirst_page(lead=lead, links=40, opening=f"<p>{lead}</p>")
    assert main_text(item).count(lead) == 1


@pytest.mark.parametrize("byline", [  # the second: 100 characters with its link only
    "", '<p>By Ann Reporter, who has covered the harbour council <a href="/staff/ann">'
        "for the Harbour Post since the storms of 2019</a>, on the quay</p>"])
def test_the_site_s_name_over_teasers_is_no_title_of_the_article(byline):
    teasers = "".join(
        f'<div class="teaser"><h3><a href="/t{i}">Ferry story {i}</a></h3><p>The ferry '
        f"company says summer timetable number {i} adds two sailings a day from the "
        "harbour to the islands.</p></div>" for i in range(6))
    body = (f"{byline}<h1>Harbour council backs lighthouse budget</h1><p>{STORY}</p>"
            f"<p>{SECOND}</p><p>{FUND}</p><p>{STORY}</p><p>{SECOND}</p>")
    item = page(f'<div class="masthead"><h1>Harbour Post</h1></div><div class="featured">'
                f'{teasers}</div><div class="columns"><div class="story-body">{body}</div>'
                f"{most_read(40)}</div>", "teasers.html")
    text = main_text(item)
    assert FUND in text and "summer timetable" not in text


def test_a_line_beside_the_title_is_no_lead_for_the_text_after_the_body():
    item = page('<div class="story"><h1>Harbour council backs lighthouse budget</h1>By Ann '
                f'Reporter, harbour correspondent<div class="columns"><div class="story-body">'
                f"<p>{STORY}</p><p>{SECOND}</p><p>{FUND}</p><p>{STORY}</p></div>{most_read()}"
                "</div>Reporting by the harbour desk; corrections to the editor please, by "
                "letter.</div>", "byline.html")
    text = main_text(item)
    assert FUND in text and "Ann Reporter" not in text


def test_a_listing_keeps_its_items():
    items = [("Lighthouse budget approved", "The council voted to repair the pier."),
             ("Ferry timetable changes", "Summer sailings start two weeks earlier."),
             ("New harbour master named", "A former skipper takes over in March."),
             ("Fish market reopens", "Traders return after the winter refit."),
             ("Sea wall survey begins", "Engineers will test the old stones.")]
    listing = ('<div id="content"><h1>Harbour news</h1><ul class="stories">' + "".join(
        f'<li class="story"><h2><a href="/s{i}">{title}</a></h2><p>{teaser} Read the full '
        f"report from our harbour correspondent.</p></li>"
        for i, (title, teaser) in enumerate(items)) + "</ul></div>")
    text = main_text(page(listing, "news.html"))
    assert all(title in text and teaser in text for title, teaser in items)


def test_a_forum_thread_keeps_its_replies():
    posts = ["Has anyone measured how much the pier moved in the January storm?",
             "Yes, the survey team said about four centimetres at the seaward end.",
             "Four centimetres sounds small but the mooring rings took the worst of it.",
             "The council report has the full numbers, page twelve if you want them."]
    thread = ('<div id="content"><h1>Pier movement after the storm</h1>' + "".join(
        f'<div class="post"><div class="postauthor"><a href="/u{i}">member{i}</a><br>Posts: '
        f'{10 * i + 3}</div><div class="postbody"><p>{text} I have been sailing out of this '
        f"harbour for twenty years and never seen it this bad.</p></div></div>"
        for i, text in enumerate(posts)) + "</div>")
    text = main_text(page(thread, "thread.html"))
    assert all(post in text for post in posts)


def test_content_spread_between_menus_is_kept_whole():
    """A service page: four sections, each a quarter of the text, with link lists
    between them; no one region holds the content, so none is chosen."""
    sections = [("Opening hours", "The harbour office is open from eight until six on "
                 "weekdays and from nine until one on Saturdays, closed on public holidays."),
                ("Mooring fees", "Visiting boats pay by the night and by length; a boat of "
                 "ten metres pays twenty-four pounds, with water and power included."),
                ("Slipway use", "The public slipway may be used at any state of the tide "
                 "except the two hours either side of low water springs."),
                ("Fuel berth", "Diesel and petrol are sold at the fuel berth by the north "
                 "wall, card payment only, from April to the end of October.")]
    menu = '<ul class="related">' + "".join(
        f'<li><a href="/r{i}">Related: harbour office notice number {i} for visiting '
        f"boat owners and crews</a></li>" for i in range(10)) + "</ul>"
    body = "".join(f'<div class="section"><h2>{title}</h2><p>{text} {text}</p></div>{menu}'
                   for title, text in sections)
    item = page(f'<div id="content">{body}</div>', "services.html")
    assert sum(text in main_text(item, spread=0.0, short=0) for _, text in sections) < 4
    kept = main_text(item)  # the shipped parameters
    assert all(text in kept for _, text in sections) and "Related" not in kept


def test_a_photo_caption_and_credit_are_not_the_article():
    figure = ('<figure><img src="/pier.jpg" alt=""><figcaption>The old stone pier at low '
              "tide. Photo: Harbour Camera Club</figcaption></figure>")
    item = page(f'<div id="content"><article><h1>Harbour council backs lighthouse '
                f"budget</h1><p>{STORY}</p>{figure}<p>{SECOND}</p></article></div>")
    assert "Camera Club" in main_text(item, captions=True)
    text = main_text(item)
    assert "Camera Club" not in text and STORY.strip() in text and SECOND.strip() in text


def test_a_caption_named_so_is_a_caption_without_figcaption():
    # WordPress and most news templates mark a caption or a photo credit by its class
    credit = ('<div class="wp-caption"><img src="/pier.jpg" alt=""><p class="wp-caption-text">'
              "The old stone pier at low tide, seen from the harbour wall on a calm morning. "
              'Photo: Harbour Camera Club</p></div><p class="photo-credit">Getty Images</p>')
    item = page(f'<div id="content"><article><h1>Harbour council backs lighthouse '
                f"budget</h1><p>{STORY}</p>{credit}<p>{SECOND}</p></article></div>")
    assert "Camera Club" in main_text(item, captions=True)
    text = main_text(item)
    assert STORY.strip() in text and SECOND.strip() in text
    assert "Camera Club" not in text and "Getty" not in text


def test_related_posts_and_tags_named_so_are_asides():
    # a box of related posts or tags that is a plain <div>, no <aside>: named by its class
    related = ('<div class="jp-relatedposts"><h3>Related</h3><p>The ferry operator will '
               "add two early crossings on weekdays from next month.</p></div>"
               '<div class="post-tags">Filed under harbour, council, lighthouse budget</div>')
    item = page(f'<div id="content"><article>{ARTICLE}{related}</article></div>')
    assert "crossings" in main_text(item, landmarks=())
    text = main_text(item)
    assert STORY.strip() in text and SECOND.strip() in text
    assert "crossings" not in text and "Filed under" not in text


def test_a_gallery_s_captions_are_its_text():
    slides = "".join(
        f'<div class="slide"><img src="/p{i}.jpg" alt=""><div class="caption">Slide {i}: '
        f"{STORY}</div></div>" for i in range(4))
    item = page(f'<div id="content"><h1>The harbour in pictures</h1>{slides}</div>')
    text = main_text(item)
    assert all(f"Slide {i}:" in text for i in range(4))


def test_a_heading_whose_section_went_is_dropped_with_it():
    related = ("<h3>Read more from the harbour</h3><ul>" + "".join(
        f'<li><a href="/story{i}">Council to review ferry timetable, part {i}</a></li>'
        for i in range(5)) + "</ul>")
    sections = (f"<h2>The vote</h2><p>{STORY * 2}</p>{related}<h3>The pier</h3>"
                f"<p>{SECOND * 2}</p><h2>Reactions</h2>")
    item = page(f'<div id="content"><article><h1>Harbour council backs lighthouse '
                f"budget</h1>{sections}</article></div>")
    assert "Read more from the harbour" in main_text(item, bare_headings=True)
    assert "Reactions" in main_text(item, bare_headings=True, tail=0)
    lines = main_text(item, tail=0).splitlines()
    assert "Read more from the harbour" not in lines and "Reactions" not in lines
    assert {"Harbour council backs lighthouse budget", "The vote", "The pier"} <= set(lines)


def test_the_short_lines_after_the_article_are_dropped():
    after = ("<p>Share this story:</p><p>Was this article useful?</p>"
             "<p>Source: harbour office</p>")
    item = page(f'<div id="content"><article>{ARTICLE}{after}</article></div>')
    assert "Was this article useful?" in main_text(item, tail=0)
    text = main_text(item)
    assert "waterline" in text and "useful" not in text and "Share" not in text


def test_short_items_that_are_most_of_the_text_are_not_a_tail():
    lines = "".join(f"<p>Mooring {i}: free from the first of May</p>" for i in range(12))
    item = page(f'<div id="content"><article><h1>Moorings</h1><p>{STORY}</p>{lines}'
                "</article></div>", "moorings.html")
    assert main_text(item).count("free from the first of May") == 12


@pytest.mark.parametrize("name", ["tail", "short"])
@pytest.mark.parametrize("value", [-1, 1.5, True])
def test_tail_and_short_are_counts_of_characters(name, value):
    with pytest.raises(ValueError, match=name):
        dataclasses.replace(default_extractor(), **{name: value})


def test_a_page_of_links_is_read_again_when_little_is_left():
    """A shop's category page: every item is a link, so the link-density step takes
    each for a menu and next to nothing is left; read again without that step, the
    page keeps its items."""
    items = ["Brass deck lantern with glass chimney, polished finish",
             "Galvanised mooring ring, forty millimetres, pack of two",
             "Hemp rope, twelve millimetres, sold by the metre",
             "Copper ship's bell with engraved bracket",
             "Oak tiller handle, varnished, for dinghies up to five metres",
             "Canvas kit bag with leather handles and brass eyelets"]
    grid = ('<div id="content"><h1>Chandlery</h1><p>Fittings for small boats.</p>'
            '<ul class="products">' + "".join(
        f'<li class="product"><a href="/p{i}">{name}</a></li>'
        for i, name in enumerate(items)) + "</ul></div>")
    item = page(grid, "chandlery.html")
    # The rule is what is tested, not the model's calibration on six toy items (their
    # scores lie between 0.55 and 0.68 about the shipped 0.65, and a retrained forest
    # moves some across it): at 0.7 the model takes every item for content. The intro
    # is what the first reading keeps (without it, nothing is left but links, and the
    # fallback, not the re-read, would keep them).
    # Without step 8, whose items reading would keep them too.
    before = sum(name in main_text(item, short=0, threshold=0.7, listing_model=None)
                 for name in items)
    after = sum(name in main_text(item, threshold=0.7, listing_model=None) for name in items)
    assert before <= 1 and after > before + 2


def test_a_listing_keeps_its_linked_titles_when_read_again():
    """Tiles with a linked title and a short teaser: the linked headings are items, not
    bare headings, in the first reading and in the short re-read alike."""
    tiles = [("Brass deck lantern", "Polished."), ("Mooring ring", "Galvanised."),
             ("Hemp rope", "By the metre."), ("Ship's bell", "Engraved."),
             ("Oak tiller", "Varnished."), ("Kit bag", "Canvas.")]
    grid = ('<div id="content"><h1>Chandlery</h1><div class="tiles">' + "".join(
        f'<div class="tile"><h3><a href="/p{i}">{name}</a></h3><p>{teaser}</p></div>'
        for i, (name, teaser) in enumerate(tiles)) + "</div></div>")
    item = page(grid, "tiles.html")
    kept = main_text(item)
    assert sum(name in kept for name, _ in tiles) >= sum(
        name in main_text(item, short=0) for name, _ in tiles)
    assert sum(name in main_text(item, bare_headings=True) for name, _ in tiles) == sum(
        name in kept for name, _ in tiles)


def test_a_short_listing_is_read_a_third_time_with_every_block_as_content():
    # Teaser cards (a linked title, a teaser, a byline) look like an article's related
    # stories: the models score some as boilerplate, both readings come to under
    # ``short`` characters, and the one without the link-density step gains the menu.
    items = [("Lighthouse budget approved by the council",
              "The council voted on Tuesday to repair the pier and the keeper's cottage."),
             ("Ferry timetable changes for the summer",
              "Summer sailings start two weeks earlier than last year, the operator said."),
             ("New harbour master named after long search",
              "A former skipper takes over in March from the retiring master."),
             ("Fish market reopens after the winter refit",
              "Traders return to the quay after three months of building work.")]
    cards = "".join(f'<div class="card"><a href="/s{i}"><h3>{title}</h3></a><p>{teaser}</p>'
                    f'<div class="byline"><a href="/author/ann">Ann Smith</a> {i + 1} days '
                    f"ago</div></div>" for i, (title, teaser) in enumerate(items))
    item = page(f'<div id="content"><h1>Harbour</h1><div class="related-stories">{cards}'
                "</div></div>", "topic.html")
    # step 7 alone: step 8's listing model takes the items reading of this page too
    assert len(main_text(item, short=0, listing_model=None)) < default_extractor().short
    text = main_text(item, listing_model=None)
    assert all(teaser in text for _, teaser in items) and "Sport" not in text
    assert all(teaser in main_text(item) for _, teaser in items)


def test_a_front_page_of_teasers_is_read_as_a_listing():
    # Each card a link holding its headline and teaser: the models drop the cards as an
    # article's "related stories" and keep the site's menu; the items reading keeps every
    # card and drops the menu's short links, and the listing model takes it (step 8).
    heads = ["Council backs lighthouse budget after long debate",
             "Ferry timetable changes for the summer season",
             "New harbour master named after a long search",
             "Fish market reopens after the winter refit",
             "Sea wall survey begins next week on the old stones",
             "Lifeboat crew rescues two sailors off the point",
             "Harbour festival returns with tall ships in June",
             "Storm damage repairs to cost more than planned",
             "Pier cafe wins award for its fish soup",
             "School pupils paint mural on the quay wall",
             "Marina berth fees to rise by five per cent",
             "Old customs house to become a museum"]
    cards = "".join(f'<div class="promo"><a href="/news/{i}"><h3>{head}</h3><p>Councillors '
                    f"and harbour users gave their views on the plans this week.</p></a></div>"
                    for i, head in enumerate(heads))
    item = page('<div id="main"><h1>Harbour news</h1><p>The latest stories from the harbour '
                f'and the coast, updated every morning.</p><div class="latest">{cards}</div>'
                '</div><div class="footer"><p>Harbour Gazette, 1 Quay Street.</p></div>',
                "index.html")
    article_reading = main_text(item, listing_model=None)
    assert heads[5] not in article_reading and "Sport" in article_reading
    text = main_text(item)
    assert all(head in text for head in heads) and "Sport" not in text


@pytest.mark.xfail(strict=True, reason="the first reading keeps the intro alone and the "
                   "items reading every card, but the listing model says article: a known "
                   "miss of step 8 (benchmarks/RESULTS.md, issue 33)")
def test_a_front_page_of_headlines_and_one_line_teasers_is_read_as_a_listing():
    heads = ["Council backs lighthouse budget after long debate",
             "Ferry timetable changes for the summer season",
             "New harbour master named after a long search",
             "Fish market reopens after the winter refit",
             "Sea wall survey begins next week on the old stones",
             "Lifeboat crew rescues two sailors off the point"]
    teasers = ["Councillors gave their views on the plans this week.",
               "The operator says the change follows a survey of passengers.",
               "The appointment ends a search that began last autumn.",
               "Traders say customers have waited long enough.",
               "Engineers will look for cracks left by the January storms.",
               "Both men were treated for cold and released."]
    pairs = enumerate(zip(heads, teasers, strict=True))
    cards = "".join(f'<div class="promo"><a href="/news/{i}"><h3>{head}</h3><p>{teaser}</p>'
                    "</a></div>" for i, (head, teaser) in pairs)
    item = page('<div id="main"><h1>Harbour news</h1><p>The latest stories from the harbour '
                f'and the coast, updated every morning.</p><div class="latest">{cards}</div>'
                '</div><div class="footer"><p>Harbour Gazette, 1 Quay Street.</p></div>',
                "front.html")
    assert all(teaser in main_text(item) for teaser in teasers)


@pytest.mark.xfail(strict=True, reason="a short page is read again without the link-density "
                   "step, and a menu the models score as content comes back with it; taking "
                   "the re-read only when it doubles the text measured no better "
                   "(benchmarks/RESULTS.md, issue 33)")
def test_a_short_article_is_not_read_again_into_its_menu():
    item = page(f'<div id="content"><article><h1>Harbour council backs lighthouse '
                f"budget</h1><p>{STORY}</p></article></div>", "brief.html")
    first = main_text(item, short=0)
    assert len(first) < default_extractor().short and STORY.strip() in first
    assert len(main_text(item)) >= len(first)
    assert "Sport" not in main_text(item) or "Sport" in first


def test_a_drop_down_archive_does_not_win_over_a_short_article():
    # A blog's archive as a drop-down of its months: read as text, its options outweigh
    # a short post (Dragnet's blogs). A drop-down shows one option; the parser drops it.
    months = "".join(f'<option value="/{y}/{m:02}">{m:02}/{y} ({m + y % 7})</option>'
                     for y in range(2004, 2013) for m in range(1, 13))
    archive = (f'<div class="sidebar"><h2>Blog Archive</h2><select name="archive">{months}'
               "</select></div>")
    text = main_text(page(f'<div class="post"><h3>Pier repairs</h3><p>{STORY}</p></div>'
                          f"{archive}"))
    assert STORY.strip() in text
    assert "2004" not in text and "Archive" not in text
    assert "2004" not in " ".join(parse_html(archive).itertext())


def test_an_ad_frame_s_script_is_not_the_page_s_text():
    # The parser reads an <iframe>'s content as text (a technology site's ad frames held
    # their scripts written out); no browser shows it, so the parser empties the frame.
    script = ("&lt;SCRIPT language='JavaScript1.1' SRC=\"https://ads.example.net/adj/site/"
              + ";".join(f"slot{n}=leaderboard{n}" for n in range(40)) + '"&gt;&lt;/SCRIPT&gt;')
    frame = f'<div class="ad"><iframe src="https://ads.example.net/f">{script}</iframe>after</div>'
    text = main_text(page(f'{frame}<div class="post"><h3>Pier repairs</h3><p>{STORY}</p></div>'))
    assert STORY.strip() in text and "SCRIPT" not in text
    assert " ".join(parse_html(frame).itertext()) == "after"


def test_a_form_field_s_value_is_not_the_page_s_text():
    # A <textarea> holds what a reader types or copies: a hidden one kept a search box's
    # HTML template (a news site's), an embed box its code. The parser empties it and
    # keeps a shown one's element, which the form step reads.
    template = "".join(f'&lt;li class="suggestion" data-type="C{n}"&gt;headline&lt;/li&gt;'
                       for n in range(30))
    box = (f'<form class="search"><textarea style="display:none">&lt;ul role="listbox"&gt;'
           f"{template}&lt;/ul&gt;</textarea></form>")
    embed = '<textarea readonly>&lt;iframe src="https://video.example.net/e/1"&gt;</textarea>'
    text = main_text(page(f'{box}<div class="post"><h3>Pier repairs</h3><p>{STORY}</p>'
                          f"{embed}</div>"))
    assert STORY.strip() in text and "listbox" not in text and "iframe" not in text
    tree = parse_html(f"{embed}<p>after</p>")
    assert " ".join(tree.itertext()) == "after" and len(tree.xpath("//textarea")) == 1
    # a tag in mixed case is the same element (no look at the bytes would find it)
    mixed = "<TextArea>Type your comment here</TextArea><IFrame>No frames</IFrame><p>after</p>"
    assert " ".join(parse_html(mixed).itertext()) == "after"


def test_a_form_to_write_in_is_not_the_article():
    reply = ('<div class="respond-area"><h3>Leave a reply</h3><form action="/post">'
             "<p>Your e-mail address will not be published. Required fields are marked.</p>"
             '<p><label>Name (required)</label><input name="author"></p><p><label>Comment'
             '</label><textarea name="comment"></textarea></p><input type="submit" '
             'value="Post comment"></form></div>')
    item = page(f'<div id="content"><article>{ARTICLE}{reply}</article></div>')
    # whatever the scores say of it (every block taken as content here)
    assert "e-mail address will not" in main_text(item, dialogs=False, related=False,
                                                    threshold=1.0)
    text = main_text(item, threshold=1.0)
    assert STORY.strip() in text and "e-mail address" not in text
    # an ASP.NET page lies inside its one form, a search box's text area too
    whole = page(f'<form id="aspnetForm"><textarea name="q"></textarea><div id="content">'
                 f"<article>{ARTICLE}</article></div></form>")
    assert STORY.strip() in main_text(whole)


def test_a_form_to_fill_in_is_not_the_article():
    # A sign-up box beside a short article: its labels and terms are no text of the page
    signup = ('<div class="box"><form action="/join"><h3>Register for free updates</h3>'
              "<p>Access our archive of articles from many countries and get a personalised "
              "e-mail of the topics you follow.</p><p><label>Email Address</label>"
              '<input type="EMAIL" name="e"></p><p><label>Password</label><input '
              'type="password" name="p"></p><p><label>Confirm Password</label><input '
              'type="password" name="q"></p><input type="submit" value="Join"></form></div>')
    item = page(f'<div id="content"><article>{ARTICLE}{signup}</article></div>')
    assert "personalised" in main_text(item, dialogs=False, threshold=1.0)
    text = main_text(item, threshold=1.0)
    assert STORY.strip() in text and "personalised" not in text and "Password" not in text
    # one field (a search box), or fields one does not type into (a shop's quick-buy
    # form of hidden inputs, a listing's filters of check boxes), make no form to fill in
    quick = "".join(f'<input type="hidden" name="h{n}" value="{n}">' for n in range(5))
    boxes = "".join(f'<input type="checkbox" name="c{n}">' for n in range(5))
    kept = (f'<form action="/cart">{quick}<p>Add the oak shelf to the basket: the quick-buy '
            f'form holds the offer.</p></form><form action="/f">{boxes}<p>Filter by the '
            'wood the shelves are made of.</p></form><form action="/s"><input type="search" '
            'name="q"><input name="near"><p>Search the whole catalogue of shelves.</p>'
            '</form><form action="/t"><input name="q"><p>Search this site for a word or a '
            'phrase.</p></form>')
    text = main_text(page(f'<div id="content"><article>{kept}{ARTICLE}</article></div>'),
                     threshold=1.0)
    assert "quick-buy" in text and "Filter by" in text and "whole catalogue" in text
    assert "word or a phrase" in text
    # an ASP.NET page lies inside its one form, its search and login boxes too
    whole = page('<form id="aspnetForm"><input name="q"><input type="password" name="p">'
                 f'<div id="content"><main><article>{ARTICLE}</article></main></div></form>')
    assert STORY.strip() in main_text(whole)


def test_a_drawing_s_text_is_not_the_page_s_text():
    # An icon sprite's symbol names came out as a line of words before a product's name
    # ("add arrow-down arrow-left ... youtube"); its elements stay, what SVG never draws
    # in place goes (titles, descriptions, symbols), what it draws stays
    sprite = ('<svg style="display:none">' + "".join(
        f'<symbol id="i{n}"><title>{name}</title><path d="M0 0h24v24H0z"/></symbol>'
        for n, name in enumerate(("add", "arrow-down", "checkmark", "youtube"))) + "</svg>")
    html = (f"<html><body>{sprite}<p>Shelf unit</p><svg><title>Prices</title><desc>A chart"
            "</desc><text>40%</text></svg>tail</body></html>")
    root = parse_html(html)
    assert " ".join(" ".join(root.itertext()).split()) == "Shelf unit 40% tail"  # drawn
    assert len(list(root.iter())) == len(list(parse_html(html, undrawn_text=True).iter()))
    text = main_text(page(f'{sprite}<div id="content"><article>{ARTICLE}</article></div>'))
    assert STORY.strip() in text and "arrow-down" not in text and "youtube" not in text


def test_a_most_popular_box_inside_the_article_is_not_the_article():
    popular = ('<aside class="most-popular"><h2>Most popular</h2><ol>' + "".join(
        f'<li><a href="/s{i}"><h3>Council to review the ferry timetable, part {i}</h3></a>'
        f"<p>The operator adds two early crossings on weekdays, number {i}.</p></li>"
        for i in range(3)) + "</ol></aside>")
    item = page(f'<div id="site"><article>{popular}{ARTICLE}</article></div>')
    text = main_text(item)
    assert STORY.strip() in text and SECOND.strip() in text and "crossings" not in text
    assert "crossings" in main_text(item, landmarks=())  # what the landmarks rule takes


def test_the_region_is_what_the_models_are_sure_of_not_the_most_text():
    # A blog's sidebar of legal prose outweighed a short post in characters and won the
    # one region (step 4), though the models called it likelier boilerplate than content:
    # the region counts each character by how sure the models are of it
    disclaimer = ("This blog links now and then to pages of other sites. I have no influence "
                  "over what those pages say and no control over changes made to them. ")
    archive = "".join(f'<li><a href="/{y}/{m}">{m} {y}</a></li>' for y in range(2012, 2020)
                      for m in ("January", "April", "July", "October"))
    features = extract(page(
        f'<div class="post"><p>{STORY}</p><p>{SECOND}</p></div><div class="sidebar">'
        f'<p>{disclaimer * 3}</p></div><ul class="archive">{archive}</ul>'))
    blocks = features.blocks

    def text(node: int) -> str:
        start, end = blocks.spans[node]
        return blocks.text[blocks.chunk_starts[start]:blocks.chunk_ends[end - 1]]

    # the models' probabilities of boilerplate: the post 0.1, the sidebar 0.6 (both under
    # the cut), the archive's links 0.9 (over it: with them, the body is no region)
    sure = {"The harbour": 0.1, "This blog": 0.6, "January": 0.9}
    raw = np.array([next((p for start, p in sure.items() if text(node).startswith(start)), 0.3)
                    for node in features.nodes.tolist()])
    assert len(disclaimer * 3) > len(STORY + SECOND)
    extractor = dataclasses.replace(default_extractor(), listing_model=None, short=0)

    def kept(classifier: np.ndarray) -> str:
        keep = extractor.kept(PageScores(features, classifier, raw, extractor.threshold))[0]
        return " ".join(blocks.text[a:b] for a, b in zip(
            blocks.chunk_starts[keep], blocks.chunk_ends[keep], strict=True))

    text_kept = kept(raw)
    assert STORY.strip() in text_kept and SECOND.strip() in text_kept
    assert "This blog" not in text_kept
    # a classifier sure to the last digit (a forest's 1.0) weighs kept text at 0: there is
    # still one region, not none (which kept both)
    text_kept = kept(np.ones(len(raw)))
    assert text_kept and not (STORY.strip() in text_kept and "This blog" in text_kept)


def test_an_article_s_own_footer_is_not_the_article():
    # A blog post's <footer> inside its <article>: the author's box, tags and related posts
    # are the site's, not the post's words.
    footer = ('<footer class="entry-meta"><div class="author-box"><h4>About the author</h4>'
              "<p>Mara Quill has covered the harbour, its council and its fishermen for the "
              "gazette since 2009, and writes a weekly column about life on the coast.</p>"
              '</div><p>Tags: <a href="/t/harbour">harbour</a>, <a href="/t/council">council'
              '</a></p><div class="related-posts"><h4>You might also like</h4><p>The ferry '
              "operator will add two early crossings on weekdays from next month.</p></div>"
              "</footer>")
    text = main_text(page(f'<div id="site"><article>{ARTICLE}{footer}</article></div>'))
    assert STORY.strip() in text and SECOND.strip() in text
    assert "Mara Quill" not in text and "crossings" not in text
    # a plain block named for the article's footer ("entry-footer", "article-copyright")
    # goes too; a column named for the content and a footer ("content has-footer", a post
    # whose category is "legal") holds the article, and stays
    named = ('<div class="entry-footer"><p>Copyright Harbour Gazette. Reproduction only '
             "with the written permission of the publisher and its photographers.</p></div>")
    item = page(f'<div id="site"><article>{ARTICLE}{named}</article></div>')
    assert "Reproduction" in main_text(item, furniture=(), threshold=1.0)
    text = main_text(item, threshold=1.0)
    assert STORY.strip() in text and "Reproduction" not in text
    column = page(f'<div id="site"><h1>Harbour council backs lighthouse budget</h1><div '
                  f'class="content has-footer"><p>{STORY}</p><p>{SECOND}</p></div><div '
                  f'class="sidebar"><p>{"Opening hours. " * 30}</p></div></div>')
    assert STORY.strip() in main_text(column, threshold=1.0)
    # a quote's attribution in a <footer> of its own is the article's
    quote = ("<blockquote><p>We have waited ten years for this vote.</p><footer>Ada Pike, "
             "harbour master</footer></blockquote>")
    text = main_text(page(f'<div id="site"><article><h1>Harbour council backs lighthouse '
                          f"budget</h1><p>{STORY}</p>{quote}<p>{SECOND}</p></article></div>"))
    assert "Ada Pike, harbour master" in text


@pytest.mark.corpus
def test_the_third_reading_never_replaces_the_first():
    # A documentation index page of one heading and one line: read with every block as
    # content, its copyright line (a plain <div>) won the region step; the third reading
    # is taken only when it keeps all the first reading kept.
    from corpora.locate import CorpusMissingError, corpus_path
    from denoise.reader import Skipped, read_pages

    try:
        archive = corpus_path("sites-dev-docs.tar.xz")
    except CorpusMissingError as missing:
        pytest.skip(str(missing))
    wanted = "flink.apache.org/documentation__flinkml-master__index.html"
    item = next(p for p in read_pages([archive])
                if not isinstance(p, Skipped) and p.id.endswith(wanted))
    text = main_text(item)
    assert "Flink ML documentation" in text and "trademarks" not in text


HEADLINES = ["Pier repairs begin after the council vote", "Lighthouse cottage reopens",
             "Storm season: how the harbour prepares", "Mooring rings replaced on the quay",
             "Fishermen's market returns on Saturdays", "The history of the old stone pier",
             "Ferry timetable changes for the winter", "Harbour festival draws record crowds",
             "New lifeboat station opens on the point", "Council funds the sea wall"]
TOPICS = "".join(f'<li><a href="/topic/{i}">Topic {i}</a></li>' for i in range(60))
LINKED = "".join(f'<li><a href="/{i}.html">{title}</a></li>' for i, title in enumerate(HEADLINES))


def test_a_short_post_is_not_read_again_into_a_box_of_popular_posts():
    # Step 7: a short post read again without the link-density step lost the region to
    # a box of linked titles beside it, which holds none of the post (Dragnet's blogs).
    popular = "".join(f'<li><a href="/{i}.html">{title}</a> <a href="/{i}.html#c">'
                      f"({i + 3} comments)</a></li>" for i, title in enumerate(HEADLINES))
    item = page(f'<div class="wrap"><div class="main"><div class="post"><h2>Pier repairs'
                f'</h2><p>{STORY}</p></div><div class="menu"><ul>{TOPICS}</ul></div></div>'
                f'</div><div class="popular"><h3>Most popular posts</h3><ul>{popular}</ul>'
                "</div>")
    text = main_text(item)
    assert STORY.strip() in text and "Most popular posts" not in text
    assert "Most popular posts" in main_text(item, short_holds=0.0)  # the re-read won


@pytest.mark.parametrize(("name", "replaced"), [("sidebar", True), ("box", False)])
def test_a_short_reading_in_a_sidebar_gives_way_to_the_re_read(name, replaced):
    # The short first reading is a blog's "about me" box (the post, a list of links, went
    # with the link-density step); read again, the post wins the region, and is taken
    # when the box is named as a sidebar.
    links = "".join(f'<p><a href="https://news.example.com/{i}.html">{title}</a></p>'
                    for i, title in enumerate(HEADLINES))
    item = page(f'<div class="main"><div class="post"><h2>Links of the week</h2>{links}'
                f'</div></div><div class="{name}"><h3>About me</h3><p>{SECOND}</p></div>'
                f'<div class="menu"><ul>{TOPICS}</ul></div>')
    text = main_text(item)
    assert ("Links of the week" in text) is replaced
    assert ("About me" in text) is not replaced


def test_a_short_post_is_not_read_again_into_the_site_s_menu():
    # Step 7's re-read exists for a listing's linked items; what it adds in a block named
    # as a menu is the site's menu (a wiki's tools, a blog's categories), not items.
    item = page(f'<div class="main"><div class="post"><h2>Pier repairs</h2><p>{STORY}</p>'
                f'</div><div class="menu"><ul>{LINKED}</ul></div></div>')
    text = main_text(item)
    assert STORY.strip() in text and HEADLINES[1] not in text
    assert HEADLINES[1] in main_text(item, short_menus=0.0)  # the re-read took the menu


def test_a_page_wrapped_in_a_block_named_for_its_menu_is_still_read_again():
    # A wrapper named "nav-offset" (pushed aside by an off-canvas menu) holds the short
    # reading and the items alike: the items the re-read adds are no more in "menus"
    # than the short reading is, and are taken.
    item = page(f'<div class="nav-offset"><div class="post"><h2>Pier repairs</h2>'
                f'<p>{STORY}</p></div><div class="latest"><ul>{LINKED}</ul></div></div>')
    assert HEADLINES[1] in main_text(item)


@pytest.mark.corpus
def test_a_short_post_is_not_read_again_into_a_list_of_popular_posts():
    # Dragnet's R722: a two-line craft post; read again without the link-density step,
    # the region step took the sidebar's "Most Popular Posts", which hold none of it.
    from corpora.content import iter_content_pages
    from corpora.locate import CorpusMissingError

    try:
        gold = next(p for p in iter_content_pages(["dragnet"]) if p.page_id == "R722")
    except CorpusMissingError as missing:
        pytest.skip(str(missing))
    item = Page(id="R722", html=gold.html, url=gold.url, site="dragnet.example")
    text = main_text(item)
    assert "Indian Corn Printing Craft" in text and "Most Popular Posts" not in text
    assert "Most Popular Posts" in main_text(item, short_holds=0.0)


def test_parameters_carry_over_to_another_extractor_without_its_models():
    shipped = default_extractor()
    other = dataclasses.replace(shipped, threshold=0.3, post_comments=False, content_model=None)
    params = shipped.parameters()
    assert not {"detector", "content_model", "listing_model"} & set(params)
    carried = dataclasses.replace(other, **params)
    assert carried.threshold == shipped.threshold and carried.post_comments
    assert carried.content_model is None  # the other's model stays


def _prose_reading(body: str, kept: str) -> tuple[str, str]:
    """Step 7's last reading of ``body``'s page whose reading kept the chunks holding
    ``kept`` (dialogs and forms left out, as the step reads them): what it gives, and
    the page's text."""
    features = extract(page(body, "prose.html"))
    blocks = features.blocks
    keep = np.array([kept in chunk for chunk in blocks.chunks])
    assert keep.any()
    out = _prose_instead(blocks, keep, ~_dialog_chunks(features))
    return block_lines(blocks, out), block_lines(blocks, np.ones_like(keep))


@pytest.mark.parametrize("story", [f"<p>{STORY}</p><p>{SECOND}</p>", f"<p>{STORY}{SECOND}</p>",
                                   f"<pre>{STORY}{SECOND}</pre>"])
def test_a_short_reading_of_menus_gives_way_to_the_page_s_paragraphs(story):
    # every model scored the story's paragraphs (or its one long paragraph) as
    # boilerplate: the reading was a menu
    assert len(STORY + SECOND) >= PROSE_ALONE
    text, _ = _prose_reading(f'<div class="story"><h1>Pier repairs</h1>{story}</div>'
                             f'<p class="note">{SHORT_POST}</p>', "Weather")
    assert STORY.strip() in text and SECOND.strip() in text and "Weather" not in text
    assert SHORT_POST not in text


@pytest.mark.parametrize("body", [
    # the reading holds prose: a short post, its sidebar's two paragraphs are no article
    f'<div class="post"><div>{SHORT_POST} {SHORT_POST}</div></div><div class="about">'
    f"<p>{STORY}</p><p>{SECOND}</p></div>",
    # one paragraph of prose is no article
    f'<div class="story"><p>{STORY}</p><p>The pier.</p></div>',
    # a form's messages are no article (the form holding under half the page's text)
    f'<form class="register"><input type="text" name="a"><input type="text" name="b"><p>'
    f'{STORY}</p><p>{SECOND}</p></form><ul class="videos">' + "".join(
        f'<li><a href="/video{i}">Harbour festival highlights, part {i} of the series</a>'
        f"</li>" for i in range(12)) + "</ul>"])
def test_a_short_reading_stays_when_the_page_has_no_other_article(body):
    kept = SHORT_POST if SHORT_POST in body else "Weather"
    text, whole = _prose_reading(body, kept)
    assert STORY.strip() in whole
    assert STORY.strip() not in text


def test_step_7_reads_the_paragraphs_every_model_scored_as_boilerplate():
    # the models' probabilities of boilerplate: a box of links 0.2, the rest (the story,
    # the body) 0.9: the reading falls back to the links, the prose step takes the story
    features = extract(page(f'<div class="story"><h1>Pier repairs</h1><p>{STORY}</p><p>'
                            f'{SECOND}</p></div><div class="links">' + "".join(
                                f'<a href="/t{i}">Tide table {i}</a> ' for i in range(6))
                            + "</div>", "scored.html"))
    blocks = features.blocks
    raw = np.array([0.2 if blocks.block_text(node).startswith("Tide table") else 0.9
                    for node in features.nodes.tolist()])
    extractor = dataclasses.replace(default_extractor(), listing_model=None)

    def kept(prose: bool) -> str:
        reader = dataclasses.replace(extractor, prose=prose)
        keep = reader.kept(PageScores(features, raw, raw, reader.threshold))[0]
        return block_lines(blocks, keep)

    assert STORY.strip() not in kept(False) and "Tide table" in kept(False)
    text = kept(True)
    assert STORY.strip() in text and SECOND.strip() in text and "Tide table" not in text


def test_the_paragraphs_under_the_body_come_without_its_menu_and_footer():
    body = (f'<p>{STORY}</p><p>{SECOND}</p><div class="footer"><p>Harbour Gazette, 1 Quay '
            f"Street</p></div>")
    text, whole = _prose_reading(body, "Weather")
    assert STORY.strip() in text and SECOND.strip() in text
    assert "Home" not in text and "Quay Street" not in text and "Quay Street" in whole


def test_a_licence_under_a_members_list_is_no_article():
    # a reference page of linked members whose reading kept the menu: its licence, one
    # paragraph of 300 characters, is not the article
    licence = ("\u00a9 2020 The Harbour Company Ltd. Documentation contributions included herein "
               "are the copyrights of their respective owners, and the documentation provided "
               "herein is licensed under the terms of the free documentation licence version "
               "1.3 as published by the foundation that wrote it, with no invariant sections.")
    assert len(licence) >= PROSE_ALONE
    members = "".join(f'<li><a href="/m{i}">member{i}()</a></li>' for i in range(12))
    text, whole = _prose_reading(f'<ul class="members">{members}</ul><div class="copy"><p>'
                                 f"{licence}</p></div>", "Weather")
    assert "Harbour Company" in whole and "Harbour Company" not in text
