"""The layers of the toolkit, read from the source tree: every import runs downward.

    commands   the command lines (Typer), over the engine and the library
    engine     batch and Spark runs of library functions over many pages
    kwx        keywords          mining   near-duplicates, classes
    denoise    pages, blocks, scores; ``denoise.clean``, the one de-noising step
               (:mod:`denoise.cleaning`)

``kwx`` and ``mining`` sit side by side and reach ``denoise`` through its public step
and types only; no package reaches into another's private modules (``_compiled``,
``_kernels``); ``corpora`` (benchmark builders) is never imported by the runtime.
Every import counts: at the top of a module, inside a function, or for type checking.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUNTIME = ("denoise", "kwx", "mining", "engine", "commands")
#: What each top-level package may import of the toolkit's packages.
ALLOWED = {
    "denoise": {"denoise"},
    "kwx": {"denoise", "kwx"},
    "mining": {"denoise", "mining"},
    "engine": {"denoise", "kwx", "mining", "engine"},
    "commands": {"denoise", "kwx", "mining", "engine", "commands"},
}
#: The modules of ``denoise`` that ``kwx`` and ``mining`` may import: the de-noising
#: step and the types it hands over, the readers, and shared array and file helpers
#: (a forest as arrays among them: the keyword ranker keeps one), and a text's language.
#: Parsing, segmentation, features, models and the site-level methods stay below.
DENOISE_PUBLIC = {
    "denoise", "denoise.cleaning", "denoise.page", "denoise.errors", "denoise.arguments",
    "denoise.reader", "denoise.decode", "denoise.detector", "denoise.main_content",
    "denoise.blocks", "denoise.steps", "denoise.arrays", "denoise.arrayfile",
    "denoise.output", "denoise.validation", "denoise.shipped", "denoise.forest",
    "denoise.language",
}


def _modules(package: str, root: Path = ROOT) -> list[Path]:
    return sorted((root / package).rglob("*.py"))


def _imports(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """Every module ``path`` imports, absolute, with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.append((node.lineno, base))
            # ``from denoise import features`` (or ``_compiled``) names a module too
            folder = root.joinpath(*base.split("."))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names
                      if (folder / f"{alias.name}.py").is_file()
                      or (folder / alias.name).is_dir()
                      or (alias.name.startswith("_") and not alias.name.startswith("__"))]
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and getattr(node.func, "attr", getattr(node.func, "id", None)) in (
                  "import_module", "__import__")):
            found.append((node.lineno, node.args[0].value))  # importlib's imports too
    return found


def _violations(package: str, root: Path = ROOT) -> list[str]:
    bad = []
    for path in _modules(package, root):
        where = path.relative_to(root)
        for line, module in _imports(path, root):
            top = module.split(".")[0]
            if top not in (*RUNTIME, "corpora"):
                continue
            if top not in ALLOWED[package]:
                bad.append(f"{where}:{line} imports {module} ({package} may not import {top})")
            elif any(part.startswith("_") and not part.startswith("__")
                     for part in module.split(".")[1:]) and top != package:
                bad.append(f"{where}:{line} imports {module}, private to {top}")
            elif package in ("kwx", "mining") and top == "denoise" and module not in (
                    DENOISE_PUBLIC):
                bad.append(f"{where}:{line} imports {module}, below denoise.cleaning")
    return bad


@pytest.mark.parametrize("package", RUNTIME)
def test_imports_run_downward_only(package):
    assert _violations(package) == []


def test_the_library_never_imports_a_command_line_or_the_engine():
    # the same rule, said plainly for the domain packages
    for package in ("denoise", "kwx", "mining"):
        for path in _modules(package):
            for line, module in _imports(path):
                assert module.split(".")[0] not in ("commands", "engine", "corpora"), (
                    f"{path.relative_to(ROOT)}:{line} imports {module}")


def test_command_lines_share_helpers_through_commands_common_only():
    # a command module imports no other command module but the common one and the
    # Typer app its subcommands join
    apps = {"commands.denoise", "commands.mining"}
    for path in _modules("commands"):
        me = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for line, module in _imports(path):
            if module.startswith("commands") and module not in ("commands", "commands.common"):
                owner = "commands.denoise" if me == "commands.denoise_page" else (
                    "commands.mining" if me.startswith("commands.mining_") else None)
                subcommands = module.split(".")[-1]
                assert module == owner or (me in apps and module in (
                    "commands", f"commands.{subcommands}")), (
                    f"{path.relative_to(ROOT)}:{line} imports {module}")


def test_the_check_sees_each_kind_of_violation(tmp_path):
    # the checker itself, on a made-up tree: upward, private and below-the-step imports
    for package, source in (
            ("denoise", "def f():\n    from engine.batch import map_pages\n"
                        "    importlib.import_module('commands.common')\n"),
            ("kwx", "from mining import _kernels\nfrom denoise.features import extract\n"
                    "from denoise import html\n")):
        (tmp_path / package).mkdir()
        (tmp_path / package / "bad.py").write_text(source)
    (tmp_path / "denoise" / "html.py").write_text("")
    assert _violations("denoise", tmp_path) == [
        "denoise/bad.py:2 imports engine.batch (denoise may not import engine)",
        "denoise/bad.py:3 imports commands.common (denoise may not import commands)"]
    assert _violations("kwx", tmp_path) == [
        "kwx/bad.py:1 imports mining (kwx may not import mining)",
        "kwx/bad.py:1 imports mining._kernels (kwx may not import mining)",
        "kwx/bad.py:2 imports denoise.features, below denoise.cleaning",
        "kwx/bad.py:3 imports denoise.html, below denoise.cleaning"]
