"""Hand-made pages for the keyword-extraction tests: a small garden shop whose pages share
a navigation menu and a footer, each labelled with the keywords a person would pick."""

from __future__ import annotations

from pathlib import Path

from denoise.page import Page

NAV = (
    '<div class="nav"><ul>'
    '<li><a href="/">Home of the garden shop</a></li>'
    '<li><a href="/tools">All our garden tools and supplies</a></li>'
    '<li><a href="/contact">Contact customer service today</a></li>'
    "</ul></div>"
)
FOOTER = ('<div class="foot"><p>Copyright 2024 Greenleaf Gardens. All rights reserved '
          "worldwide.</p></div>")

#: (title, keywords, article text) of each page.
GARDEN = (
    ("Copper watering jug", ("watering jug", "Copper"),
     "A copper watering jug holds five litres. The copper watering jug has a long spout "
     "for seedlings."),
    ("Oak raised bed", ("raised bed", "Oak"),
     "This oak raised bed is easy to assemble. Fill the raised bed with compost and soil."),
    ("Steel garden fork", ("garden fork", "Steel"),
     "A steel garden fork turns heavy clay soil. Our garden fork has an ash handle."),
    ("Bamboo plant stakes", ("plant stakes", "Bamboo"),
     "Bamboo plant stakes support tomatoes and beans. Each pack holds twenty plant stakes."),
    ("Wicker log basket", ("log basket", "Wicker"),
     "The wicker log basket sits beside the stove. A log basket keeps the hearth tidy."),
    ("Clay herb pots", ("herb pots", "Clay"),
     "Clay herb pots drain well on a sunny windowsill. Grow basil in herb pots all year."),
)


def garden_html(index: int) -> str:
    title, _, article = GARDEN[index]
    return (f"<html><head><title>{title} | Greenleaf</title></head><body>{NAV}"
            f'<div class="main"><h1>{title}</h1><p>{article}</p></div>{FOOTER}</body></html>')


def garden_page(index: int) -> Page:
    return Page(id=f"p{index}.html", html=garden_html(index), site="greenleaf")


def write_labelled(folder: Path, indices: range | tuple[int, ...] = range(len(GARDEN))) -> Path:
    """``NAME.html`` beside ``NAME.key`` for the garden pages ``indices``."""
    folder.mkdir(parents=True, exist_ok=True)
    for index in indices:
        (folder / f"p{index}.html").write_text(garden_html(index), encoding="utf-8")
        (folder / f"p{index}.key").write_text("\n".join(GARDEN[index][1]) + "\n",
                                              encoding="utf-8")
    return folder
