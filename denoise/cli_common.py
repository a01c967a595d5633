"""Small pieces every command line of the toolkit uses (denoise, kwx, mining): one plain
line on a console, the one-line error that ends a command, ``--version``, and how a
command's own process is set up (:func:`run`)."""

from __future__ import annotations

import signal
from typing import Annotated, NoReturn

import typer
from rich.console import Console


def say(console: Console, line: str) -> None:
    """One plain line on ``console``: no markup, no colours, no wrapping."""
    console.print(line, markup=False, highlight=False, soft_wrap=True)


def fail(err: Console, message: object, code: int = 2) -> typer.Exit:
    """Print ``error: message`` on ``err``; the exit to raise (2: unusable input or
    option, 1: nothing could be done)."""
    say(err, f"error: {message}")
    return typer.Exit(code)


def toolkit_version() -> str | None:
    """The installed distribution's version; None when run from a source tree."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("webdenoise")
    except PackageNotFoundError:
        return None


def _show_version(value: bool) -> None:
    if not value:
        return
    found = toolkit_version()
    if found is None:
        typer.echo("error: webdenoise is not installed, so it has no version "
                   "(pip install -e .)", err=True)
        raise typer.Exit(1)
    typer.echo(f"webdenoise {found}")
    raise typer.Exit()


VersionOption = Annotated[bool, typer.Option(
    "--version", callback=_show_version, is_eager=True,
    help="Print the toolkit's version and exit.")]


def version_command() -> None:
    """Print the toolkit's version."""
    _show_version(True)


def _terminated(signum: int, frame: object) -> NoReturn:
    raise KeyboardInterrupt


def run(app: typer.Typer) -> None:
    """Run ``app`` as a program (the console scripts' entry point): SIGTERM then ends a
    command as Ctrl-C does, so a batch keeps what it wrote (resumable) and shuts its
    workers down. Set here and not on import or in the apps themselves: the process
    is the command's own, never a program that embeds the library (or a test that
    invokes an app in-process)."""
    signal.signal(signal.SIGTERM, _terminated)
    app()
