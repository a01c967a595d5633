"""Where the shared corpora are."""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "WEBDENOISE_CORPORA"


class CorpusMissingError(FileNotFoundError):
    """A corpus file is not where the loaders look for it."""


def corpus_path(name: str) -> Path:
    """Path of the shared corpus file ``name`` (e.g. ``sites-dev-docs.tar.xz``)."""
    roots = []
    if os.environ.get(ENV_VAR):
        roots.append(Path(os.environ[ENV_VAR]))
    repo = Path(__file__).resolve().parent.parent
    roots += [repo.parent / "shared" / "corpora", Path.cwd().parent / "shared" / "corpora"]
    for root in roots:
        if (root / name).exists():
            return root / name
    raise CorpusMissingError(
        f"{name} not found in {', '.join(map(str, roots))}; set {ENV_VAR} to the corpora folder"
    )
