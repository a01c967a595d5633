"""A change's effect on a batch command: the working tree against a base revision, run in
turns on the same pages, with whether the two write the same bytes.

Run (from the repository root; needs git and the shared corpora):

    python benchmarks/ab.py --base REV [--commands kwx,apply] [--size 10000]
                            [--rounds 3] [--jobs 1] [--work DIR] [--markdown FILE]

One run of a command on this shared machine varies by 5-10% from the next (RESULTS.md,
"Crawl scale"), as much as most single changes gain, and two runs side by side on its
two cores share its caches. So a change is measured against its base in the same session,
one run at a time and in turns (base then head, then head then base, and so on), on the
input ``scale.py --distinct`` makes (its first ``--size`` pages; with ``--work`` the file
scale.py wrote there is reused). The base is checked out into a temporary git worktree
and its compiled extension built there; the head is this checkout as it is, its built
extension included. Each run is measured as scale.py measures it (``scale_probe.py``:
CPU seconds of the command's process tree). Printed for each command: each round's CPU
seconds and head / base ratio, the median ratio, and whether all runs of both wrote
the same bytes (a speed change should not change the output). ``--jobs`` runs each
command with that many worker processes (CPU seconds are still summed over its tree).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for folder in (ROOT, HERE):  # run as `python benchmarks/ab.py` without installing
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from benchmarks_common import emit, load_pages  # noqa: E402
from scale import COMMANDS, SEED, make_input, run_command  # noqa: E402


def base_tree(git: str, revision: str, folder: Path) -> Path:
    """``revision`` checked out into ``folder`` (a git worktree), its extension built."""
    added = subprocess.run([git, "-C", str(ROOT), "worktree", "add", "--detach", str(folder),
                            revision], capture_output=True, text=True)
    if added.returncode != 0:
        sys.exit(f"error: cannot check out {revision}: {added.stderr.strip()}")
    built = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"],
                           cwd=folder, capture_output=True, text=True)
    if built.returncode != 0:
        sys.exit(f"error: the base's extension did not build:\n{built.stderr[-2000:]}")
    return folder


def drop_tree(git: str, folder: Path) -> None:
    """Remove the worktree :func:`base_tree` made (nothing to do when it made none)."""
    subprocess.run([git, "-C", str(ROOT), "worktree", "remove", "--force", str(folder)],
                   capture_output=True, check=False)


def with_path(tree: Path) -> dict[str, str]:
    """The environment that imports the toolkit from ``tree``. PYTHONSAFEPATH keeps
    ``python -c`` from putting the current folder before it: run from the repository
    root, that imported the head's code on both sides."""
    return {**os.environ, "PYTHONSAFEPATH": "1", "PYTHONPATH": os.pathsep.join(
        [str(tree), *filter(None, [os.environ.get("PYTHONPATH")])])}


def check_imports(trees: dict[str, Path]) -> None:
    """Exit unless each side imports the toolkit, compiled extension included, from its
    own tree."""
    for side, tree in trees.items():
        found = subprocess.run(
            [sys.executable, "-c", "import kwx, denoise._compiled as c; print(kwx.__file__); "
             "print(c.__file__)"], env=with_path(tree), capture_output=True, text=True)
        paths = found.stdout.split()
        if found.returncode != 0 or len(paths) != 2 or not all(
                Path(p).resolve().is_relative_to(tree.resolve()) for p in paths):
            sys.exit(f"error: the {side} does not import its own code from {tree}: "
                     f"{found.stdout.strip() or found.stderr.strip()[-500:]}")


def compare(work: Path, key: str, source: Path, size: int, trees: dict[str, Path],
            rounds: int, jobs: int = 1) -> list[str]:
    """Run ``key`` on ``source`` with both trees in turns; the report's lines."""
    cpu: dict[str, list[float]] = {"base": [], "head": []}
    digests, busy = set(), 0.0
    for turn in range(rounds):
        for side in ("base", "head") if turn % 2 == 0 else ("head", "base"):
            data = run_command(work, COMMANDS[key], size, source, with_path(trees[side]),
                               jobs=jobs, tag=f"-{side}-{turn}")
            if data["code"] != 0:
                sys.exit(f"error: {side}'s {key} failed: {data['last_line']}")
            cpu[side].append(data["cpu"])
            digests.add(data["digest"])
            busy = max(busy, data["others"])
    ratios = [h / b for h, b in zip(cpu["head"], cpu["base"], strict=True)]
    lines = [f"### {COMMANDS[key].title}, {size:,} pages, {rounds} rounds, --jobs {jobs}",
             "| round | base CPU s | head CPU s | head / base |", "|---:|---:|---:|---:|"]
    lines += [f"| {turn + 1} | {b:.1f} | {h:.1f} | {r:.3f} |" for turn, (b, h, r) in
              enumerate(zip(cpu["base"], cpu["head"], ratios, strict=True))]
    lines += ["", f"Median head / base: **{statistics.median(ratios):.3f}** "
              f"(from {min(ratios):.3f} to {max(ratios):.3f}); outputs "
              f"{'the same bytes' if len(digests) == 1 else 'DIFFER'}; other processes kept "
              f"at most {busy:.2f} cores busy.", ""]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the revision to compare against")
    parser.add_argument("--commands", default="kwx", help=f"of {','.join(COMMANDS)}")
    parser.add_argument("--size", type=int, default=10_000, help="pages")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each side")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes of each run")
    parser.add_argument("--work", type=Path, default=None,
                        help="folder for the input (kept; scale.py's is reused)")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args()
    keys = [k.strip() for k in args.commands.split(",") if k.strip()]
    unknown = [k for k in keys if k not in COMMANDS]
    if unknown or args.size < 1 or args.rounds < 1 or args.jobs < 1:
        parser.error(f"unknown command(s) {unknown}" if unknown
                     else "--size, --rounds and --jobs must be positive")
    git = shutil.which("git")
    if git is None:
        parser.error("git is needed to check the base out")
    scratch = Path(tempfile.mkdtemp(prefix="ab-"))
    work = args.work or scratch
    work.mkdir(parents=True, exist_ok=True)
    try:
        trees = {"base": base_tree(git, args.base, scratch / "base"), "head": ROOT}
        check_imports(trees)
        pages = load_pages()
        order = list(range(len(pages)))
        random.Random(SEED).shuffle(order)  # noqa: S311 - scale.py's fixed order
        source = make_input(work, pages, order, args.size, "jsonl", True)
        print(f"{args.base} (base) against the working tree (head); input {source}",
              flush=True)
        lines = [f"## {args.base} against the working tree", ""]
        for key in keys:
            lines += compare(work, key, source, args.size, trees, args.rounds, args.jobs)
        emit("\n".join(lines), args.markdown)
    finally:
        drop_tree(git, scratch / "base")
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
