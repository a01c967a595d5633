"""The toolkit without its compiled kernels: the same output, from the Python twins.

Every compiled kernel has a Python twin in its module, used where the extension could
not be built (no C compiler) and compared with the kernel in the tests. This runs whole
commands in a process where no extension can be imported, against the same commands
with them.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from sitegen import article_page

EXTENSIONS = ("denoise._compiled", "denoise._isotonic", "kwx._kernels", "mining._kernels",
              "engine._kernels")
_WITHOUT = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in EXTENSIONS)


def _run(program: str, args: list[str], *, compiled: bool) -> str:
    blocked = "" if compiled else _WITHOUT
    check = ("import importlib\n"
             f"built = [m for m in {EXTENSIONS!r} if importlib.util.find_spec(m)]\n"
             "assert not built, built\n"
             if not compiled else "")
    code = (f"{blocked}{check}from commands.{program} import main\n"
            f"sys.argv = ['{program}', *{args!r}]\nmain()\n")
    done = subprocess.run([sys.executable, "-c", "import sys\n" + code], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_commands_give_the_same_output_without_the_compiled_kernels(tmp_path):
    pytest.importorskip("denoise._compiled")  # the comparison needs both sides
    for site, names in (("a.com", [f"p{i}" for i in range(6)]), ("b.com", ["p0", "p1"])):
        (tmp_path / site).mkdir()
        for i, name in enumerate(names):
            other = {} if site == "a.com" else {"nav": "<div><a href='/'>Elsewhere</a></div>",
                                                 "footer": "<p>Another site's footer.</p>"}
            page = article_page(i, seed=4, **other)
            (tmp_path / site / f"{name}.html").write_text(page.html, encoding="utf-8")
    for program, args in (("kwx", ["extract", "--json", "--jobs", "1", str(tmp_path)]),
                          ("denoise", ["apply", "--format", "main", "--jobs", "1",
                                       str(tmp_path)]),
                          ("mining", ["dedup", "--pairs", "--jobs", "1", str(tmp_path)])):
        compiled = _run(program, args, compiled=True)
        assert compiled.strip(), program
        assert _run(program, args, compiled=False) == compiled, program
