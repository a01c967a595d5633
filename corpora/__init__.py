"""Manifests and loaders of the evaluation corpora, and the small tables that ship.

Third-party pages are never copied into the project: the loaders read them from
the shared corpora folder (``../shared/corpora`` beside the repository, or the
folder named by ``WEBDENOISE_CORPORA``).
"""

from corpora.locate import CorpusMissingError, corpus_path

__all__ = ["CorpusMissingError", "corpus_path"]
