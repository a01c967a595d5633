"""The sketches of a ``mining dedup`` run, saved as they are made, so ``--resume`` goes on
where an interrupted run stopped instead of parsing every page again.

Sketching (parse, de-noise, shingle, MinHash) is nearly all of a run's work; matching
the sketches happens at the end and is redone. The state lives in a folder of its own
(``mining dedup``'s is ``OUT.sketches/``, beside its output): one ``part-NNNNNN.npz``
per checkpoint holding the pages sketched since the last one (their ids in the header,
their sketches as an array), and ``progress.json`` saying how many parts and input
items are done, how many pages were short, the skips counted by reason, and the run's
settings (which must match on resume). Parts are written before the progress that
names them, each atomically, so a run killed at any moment leaves a state that resumes
to the same output; a part the progress does not name is ignored and written again.
Appending parts keeps the cost linear: nothing already saved is written twice. Only
the pages since the last save are held in memory, and a resumed run reads the saved
parts back one at a time.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from denoise.arrayfile import ModelError, read_arrays, write_arrays
from denoise.errors import ResumeError
from denoise.output import atomic_text

KIND = "dedup sketch checkpoint"
FORMAT_VERSION = 1
#: Pages sketched between two checkpoints.
CHECKPOINT_PAGES = 2000


#: Where restored pages go, part by part: their ids and sketches.
PartSink = Callable[[list[str], np.ndarray], None]


@dataclass
class SketchState:
    """What a run has done so far (the pages it sketched are in its sketch files)."""

    pages: int = 0  # pages sketched
    items: int = 0  # input items done: pages sketched and items skipped
    short: int = 0  # pages shorter than a shingle
    skipped: Counter[str] = field(default_factory=Counter)


def checkpoint_beside(out: Path) -> Path:
    """The checkpoint folder of a run writing to ``out``: ``OUT.sketches/``."""
    return out.with_name(out.name + ".sketches")


class SketchCheckpoint:
    """A folder (``mining dedup``'s: :func:`checkpoint_beside` its output) where a run's
    sketches are saved, and read back on resume."""

    def __init__(self, folder: Path, settings: dict[str, object], *, resume: bool) -> None:
        self.folder = folder
        self.progress = self.folder / "progress.json"
        self.settings = settings
        self.saved_parts = 0  # part files on disk
        self._fresh_ids: list[str] = []  # pages sketched since the last save
        self._fresh: list[np.ndarray] = []  # and their sketches
        if not resume:
            shutil.rmtree(self.folder, ignore_errors=True)  # an older run's, now superseded

    def restore(self, sink: PartSink) -> SketchState:
        """The state an interrupted run saved, its pages given to ``sink`` part by part
        (ResumeError when there is none to use)."""
        try:
            state = json.loads(self.progress.read_text(encoding="utf-8"))
            parts, items, short = int(state["parts"]), int(state["items"]), int(state["short"])
            skipped = Counter({str(k): int(v) for k, v in state["skipped"].items()})
        except FileNotFoundError:
            raise ResumeError(f"{self.folder}: nothing to resume (no {self.progress.name}); "
                              "run without --resume") from None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise ResumeError(f"{self.progress}: unreadable progress file ({error})") from None
        if state.get("settings") != self.settings:
            raise ResumeError(f"{self.folder}: the interrupted run had other inputs or "
                              "options; resume with the same ones, or run without --resume")
        restored = SketchState(items=items, short=short, skipped=skipped)
        for number in range(parts):  # one part in memory at a time
            try:
                header, arrays = read_arrays(self._part(number), KIND, FORMAT_VERSION,
                                             what="dedup checkpoint",
                                             rebuild="run without --resume")
                ids, sketches = header["ids"], arrays["sketches"]
            except (ModelError, KeyError) as error:
                raise ResumeError(f"{self._part(number)}: unusable checkpoint part "
                                  f"({error}); run without --resume") from None
            if not isinstance(ids, list) or len(ids) != len(sketches):
                raise ResumeError(f"{self._part(number)}: ids and sketches disagree; "
                                  "run without --resume")
            sink([str(i) for i in ids], sketches)
            restored.pages += len(ids)
        self.saved_parts = parts
        return restored

    def add(self, ids: list[str], sketches: np.ndarray) -> None:
        """Pages sketched since the last save, to go in the next part."""
        if len(sketches) != len(ids):
            raise ValueError(f"{len(ids)} new ids for {len(sketches)} new sketches")
        self._fresh_ids += ids
        self._fresh.append(sketches)

    @property
    def unsaved(self) -> int:
        """Pages sketched since the last save."""
        return len(self._fresh_ids)

    def save(self, state: SketchState) -> None:
        """Save the pages added since the last save as one new part, then the progress."""
        self.folder.mkdir(parents=True, exist_ok=True)
        if self._fresh_ids:
            write_arrays(self._part(self.saved_parts),
                         {"kind": KIND, "format_version": FORMAT_VERSION,
                          "ids": self._fresh_ids}, {"sketches": np.concatenate(self._fresh)})
            self.saved_parts += 1
            self._fresh_ids, self._fresh = [], []
        with atomic_text(self.progress) as stream:
            json.dump({"settings": self.settings, "parts": self.saved_parts,
                       "items": state.items, "short": state.short,
                       "skipped": dict(state.skipped)}, stream)

    def finish(self) -> None:
        """The output is complete: the saved state is no longer needed."""
        shutil.rmtree(self.folder, ignore_errors=True)

    def _part(self, number: int) -> Path:
        return self.folder / f"part-{number:06d}.npz"
