"""The ``kwx`` command line (keyword extraction: its commands come with the kwx package)."""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Contextual-advertising keywords from web pages. Keyword extraction is not built "
    "yet: this release ships template detection (see `denoise --help`).",
    add_completion=False,
)


@app.command()
def version() -> None:
    """Print the toolkit's version."""
    from importlib.metadata import version as installed

    typer.echo(installed("webdenoise"))
