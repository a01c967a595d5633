"""``mining classify train / predict / evaluate``: Naive Bayes page classification."""

from __future__ import annotations

import typer

from mining.cli import app

classify_app = typer.Typer(help="Naive Bayes page classification.", no_args_is_help=True,
                           rich_markup_mode="markdown")
app.add_typer(classify_app, name="classify")
