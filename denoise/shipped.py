"""What ships with the toolkit: the models and tables in one folder, ``denoise/models``,
and the installed version.

Every file there is listed in its ``manifest.json`` with what it is, what it was
trained or built on, the command that rebuilds it, and its SHA-256 (a test checks
that the two agree).
"""

from __future__ import annotations

import json
from pathlib import Path

#: The folder of the shipped models.
MODELS = Path(__file__).with_name("models")


def shipped(name: str) -> Path:
    """The path of the shipped model or table ``name`` (e.g. ``"kwx-ranker.npz"``)."""
    return MODELS / name


def manifest() -> dict[str, dict[str, str]]:
    """The manifest of the shipped models: file name -> what, trained_on, rebuild, sha256."""
    return json.loads((MODELS / "manifest.json").read_text(encoding="utf-8"))


def toolkit_version() -> str | None:
    """The installed distribution's version; None when run from a source tree."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("webdenoise")
    except PackageNotFoundError:
        return None
