"""The ``mining`` command line: near-duplicate detection, page classification and
search, each able to remove templates first (``--denoise none | site | page | main``)."""

from __future__ import annotations

import typer

from commands.common import VersionOption, run, version_command

app = typer.Typer(
    help="Near-duplicate detection, page classification and search, with templates removed "
    "first.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
)


@app.callback()
def _main(version: VersionOption = False) -> None:
    """Near-duplicate detection, page classification and search, with templates removed
    first."""


def main() -> None:
    """The ``mining`` program."""
    run(app)


# `mining dedup` lives in its own module; importing it registers it.
from commands import mining_dedup  # noqa: E402, F401

app.command("version")(version_command)


# The classification and search commands live in modules of their own; importing them
# registers them.
from commands import mining_classify, mining_search  # noqa: E402, F401
