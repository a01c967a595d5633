"""Exceptions of the toolkit.

Exception tree::

    DenoiseError
    ├── PageError            one input page cannot be used (empty, binary, huge, ...)
    ├── StoreError           a fingerprint store is unreadable or was built differently
    ├── ModelError           a saved model, table or index cannot be used
    │                        (denoise.arrayfile)
    └── LabelFileError       a labels file is malformed (mining.labels)
"""

from __future__ import annotations


class DenoiseError(Exception):
    """Base class of every error the toolkit raises on purpose."""


class PageError(DenoiseError, ValueError):
    """One input page cannot be used; ``source`` names it, ``reason`` says why."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


class StoreError(DenoiseError):
    """A fingerprint store cannot be opened or does not match the current settings."""
