"""The toolkit's file format for learned things: named numpy arrays plus a JSON header.

Every model and table the toolkit saves is one ``.npz`` (read with
``allow_pickle=False``, so a crafted file can hold numbers but never code) whose
``header`` member is UTF-8 JSON with a ``kind`` and a ``format_version``. A reader
names the kind and version it understands and gets a :class:`ModelError` naming the
file for anything else: a missing file, another kind, an old format, a broken zip.
What the arrays must look like is the reader's to check.
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib

import numpy as np

from denoise.errors import DenoiseError
from denoise.output import atomic_binary


class ModelError(DenoiseError):
    """A saved model or table cannot be used; the message names the file and the reason."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


def write_arrays(path: str | os.PathLike[str], header: dict[str, object],
                 arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` and ``header`` (which must hold ``kind`` and ``format_version``)
    to ``path`` atomically: an earlier file stays whole until the new one is."""
    if "kind" not in header or "format_version" not in header:
        raise ValueError("a header needs 'kind' and 'format_version'")
    if "header" in arrays:
        raise ValueError("'header' is reserved for the JSON header")
    members = {**arrays, "header": np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)}
    with atomic_binary(path) as handle:
        np.savez_compressed(handle, **members)


def read_arrays(path: str | os.PathLike[str], kind: str, version: int, *,
                what: str, rebuild: str) -> tuple[dict[str, object], dict[str, np.ndarray]]:
    """The header and arrays of a file written by :func:`write_arrays`.

    ``what`` names the kind for people ("template model"), ``rebuild`` says how to
    make a current one ("retrain with 'denoise train'").
    """
    source = str(path)
    try:
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ModelError(source, f"not a {what} file (a bare numpy array, not an .npz)")
        with data:
            arrays = {name: data[name] for name in data.files}
    except FileNotFoundError:
        raise ModelError(source, f"no such {what} file") from None
    except IsADirectoryError:
        raise ModelError(source, f"a folder, not a {what} file") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, zlib.error) as error:
        if "allow_pickle" in str(error):  # numpy's advice to unpickle: never taken here
            raise ModelError(source, f"not a readable {what} file (not an .npz of plain "
                             "arrays; pickled objects are never loaded)") from None
        raise ModelError(source, f"not a readable {what} file ({error})") from None
    if "header" not in arrays:
        raise ModelError(source, f"not a {what} file (no header)")
    # numpy hands back a zip member not named .npy as raw bytes, not as an array
    odd = sorted(name for name, value in arrays.items() if not isinstance(value, np.ndarray))
    if odd:
        raise ModelError(source, f"not a readable {what} file (member {odd[0]!r} is not a "
                         "numpy array)")
    try:
        header = json.loads(arrays.pop("header").tobytes().decode())
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: "[[[[..."
        raise ModelError(source, f"not a {what} file (no header)") from None
    if not isinstance(header, dict) or header.get("kind") != kind:
        found = header.get("kind") if isinstance(header, dict) else None
        raise ModelError(source, f"not a webdenoise {what}"
                         + (f" (it is a {found})" if isinstance(found, str) else ""))
    if header.get("format_version") != version:
        raise ModelError(source, f"{what} format {header.get('format_version')!r}; this "
                         f"version reads format {version}: {rebuild}")
    return header, arrays
