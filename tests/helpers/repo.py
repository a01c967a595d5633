"""Places in the repository that tests read, wherever the test file sits under tests/."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

#: The repository's root (the folder holding tests/, examples/, benchmarks/).
ROOT = Path(__file__).resolve().parents[2]
#: The small shop's pages of the README's examples.
SHOP = ROOT / "examples" / "shop"


def load_benchmark(script: str, name: str) -> ModuleType:
    """``benchmarks/<script>.py`` imported as module ``name``: benchmarks/ is a folder of
    scripts that import each other by name, not a package."""
    folder = str(ROOT / "benchmarks")
    sys.path.insert(0, folder)
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{script}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(folder)
    return module
