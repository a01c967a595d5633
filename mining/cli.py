"""The ``mining`` command line (near-duplicates and classification: commands come with them)."""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Near-duplicate detection and page classification. Neither is built "
    "yet: this release ships template detection (see `denoise --help`).",
    add_completion=False,
)


@app.command()
def version() -> None:
    """Print the toolkit's version."""
    from importlib.metadata import version as installed

    typer.echo(installed("webdenoise"))
