"""Places in the repository that tests read, wherever the test file sits under tests/."""

from __future__ import annotations

from pathlib import Path

#: The repository's root (the folder holding tests/, examples/, benchmarks/).
ROOT = Path(__file__).resolve().parents[2]
#: The small shop's pages of the README's examples.
SHOP = ROOT / "examples" / "shop"
