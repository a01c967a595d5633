"""Small pieces every command line of the toolkit uses (denoise, kwx, mining): one plain
line on a console, and the one-line error that ends a command."""

from __future__ import annotations

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
