"""Helpers for tests of saved models and tables: take an .npz apart, change it, rebuild it."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import numpy as np


def arrays_of(path: Path) -> dict[str, np.ndarray]:
    """The members of an .npz file."""
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """An .npz file of ``arrays``, as bytes."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def header_of(arrays: dict[str, np.ndarray]) -> dict:
    """The JSON header member of a saved model or table."""
    return json.loads(arrays["header"].tobytes())


def with_header(path: Path, **changes: object) -> bytes:
    """The file at ``path`` with header entries changed."""
    arrays = arrays_of(path)
    header = {**header_of(arrays), **changes}
    arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    return npz_bytes(arrays)


def replaced(path: Path, name: str, value: np.ndarray | None) -> bytes:
    """The file at ``path`` with member ``name`` replaced (removed when None)."""
    arrays = arrays_of(path)
    if value is None:
        del arrays[name]
    else:
        arrays[name] = value
    return npz_bytes(arrays)


class Tripwire:
    """Unpickling this makes a directory: proof that a file was unpickled."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return os.mkdir, (self.path,)
