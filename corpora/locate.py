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


def builder_logging(verbose: bool) -> None:
    """Logging for a benchmark builder's command line: what it leaves out, one line each
    with ``verbose``, else warnings only (and content-dev's per-page skips not at all)."""
    import logging

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not verbose:
        logging.getLogger("corpora.content").setLevel(logging.ERROR)
