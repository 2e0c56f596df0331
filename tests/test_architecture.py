"""Import contracts: `import rooftop` stays light, imports point down, no cycle, every module has its test.

The layers and the no-cycle rule are import-linter contracts (pyproject.toml, [tool.importlinter]),
checked by running `lint-imports`; grimp resolves relative imports, `from rooftop import cli`
and imports inside functions, which a name match on `rooftop.` misses. Eager heavy imports and
"a test imports its module" are AST checks below. Each check runs on a throwaway copy of the tree
with one known bypass injected (the negative controls) and must fail there.
"""

from __future__ import annotations

import ast
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rooftop.cli.main import COMMANDS
from tests.conftest import REPO, SRC

PACKAGE = SRC / "rooftop"
HEAVY = ("torch", "transformers", "matplotlib", "plotly", "httpx", "aiohttp", "prometheus_client", "pandas")


# ---- the checks ------------------------------------------------------------------------------
def lint_imports(src: Path, config: Path = REPO / "pyproject.toml") -> subprocess.CompletedProcess[str]:
    """Run import-linter's contracts from ``config`` on the `rooftop` package found under ``src``."""
    assert importlib.util.find_spec("importlinter"), "import-linter is missing: pip install -e '.[dev]'"
    # `lint-imports`, run by this interpreter (its script may not sit beside it)
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run(
        [sys.executable, "-c", code, str(config), "--no-cache", "--no-logo"],
        capture_output=True,
        text=True,
        cwd=src,
        env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )


def _eager_imports(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """Imports that run when the module is imported: at module level, in class bodies and in
    if/try/with blocks, but not inside functions or under `if TYPE_CHECKING:`."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            found += _eager_imports(node.orelse)
        else:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                for child in getattr(node, field, []):
                    found += _eager_imports(
                        child.body if isinstance(child, ast.excepthandler | ast.match_case) else [child]
                    )
    return found


def heavy_eager_imports(package: Path) -> list[str]:
    """'path:line name' for every heavy library imported when a module of ``package`` is imported."""
    bad = []
    for path in sorted(package.rglob("*.py")):
        for node in _eager_imports(ast.parse(path.read_text()).body):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            bad += [f"{path.relative_to(package)}:{node.lineno} {n}" for n in names if n.split(".")[0] in HEAVY]
    return bad


def _call(node: ast.AST, name: str) -> str | None:
    """The first argument of a call to ``name`` (a function or a method), when it is a string literal."""
    if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
        return None
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return str(node.args[0].value) if called == name else None


def imported_modules(path: Path) -> set[str]:
    """Dotted names a test file imports (anywhere in it): `import a.b`, `from a import b` (a and a.b),
    `from a.b import f` (a.b), `importlib.import_module("a.b")`, and the module of each CLI command
    it runs with `run_cli("<command>", ...)` (the command table of `rooftop.cli.main`)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif (module := _call(node, "import_module")) is not None:
            found.add(module)
        elif (command := _call(node, "run_cli")) in COMMANDS:
            found.add(COMMANDS[command].partition(":")[0])
    return found


def untested_modules(package: Path, tests: Path) -> list[str]:
    """Modules of ``package`` that no tests/**/test_*.py imports or runs (sharing a file name is not enough)."""
    imported: set[str] = set()
    for path in tests.rglob("test_*.py"):
        if path.name != Path(__file__).name:  # this file's own imports test nothing
            imported |= imported_modules(path)
    missing = []
    for path in sorted(package.rglob("*.py")):
        if path.name in ("__init__.py", "__main__.py"):
            continue
        dotted = ".".join((package.name, *path.relative_to(package).with_suffix("").parts))
        if dotted not in imported:
            missing.append(str(path.relative_to(package)))
    return missing


# ---- the real tree ---------------------------------------------------------------------------
def test_import_rooftop_is_light():
    code = (
        "import sys, rooftop, rooftop.api, rooftop.core.artifact; "
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
        check=True,
    ).stdout
    assert out.strip() == "[]"


def test_import_does_no_io(tmp_path):
    # importing from an empty working directory with no HOME must work and create nothing
    code = "import rooftop, rooftop.api, rooftop.cli.main"
    subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        check=True,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "nohome")},
    )
    assert list(tmp_path.iterdir()) == []


def test_layers_and_no_cycles_hold():
    run = lint_imports(SRC)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Contracts: 2 kept, 0 broken." in run.stdout


def test_heavy_imports_are_lazy():
    assert heavy_eager_imports(PACKAGE) == []


def test_every_module_is_imported_by_a_test():
    assert untested_modules(PACKAGE, REPO / "tests") == []


# ---- negative controls: a copy of the tree with one bypass each --------------------------------
@pytest.fixture
def tree(tmp_path) -> Path:
    """A throwaway copy of src/ (the `rooftop` package) and of the tests' Python files."""
    shutil.copytree(PACKAGE, tmp_path / "src" / "rooftop", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "tests", tmp_path / "tests", ignore=shutil.ignore_patterns("__pycache__", "data"))
    return tmp_path


def inject(tree: Path, module: str, text: str) -> None:
    """Append ``text`` to src/rooftop/<module> (a new module when there is none)."""
    path = tree / "src" / "rooftop" / module
    path.write_text((path.read_text() if path.exists() else "") + "\n" + text + "\n")


def test_the_copy_passes_every_check(tree):
    # the controls below fail because of what they inject, not because the copy differs
    assert lint_imports(tree / "src").returncode == 0
    assert heavy_eager_imports(tree / "src" / "rooftop") == []
    assert untested_modules(tree / "src" / "rooftop", tree / "tests") == []


LAYER_BYPASSES = {
    "relative import upward": ("core/points.py", "from ..report import html", "rooftop.core.points -> rooftop.report"),
    "parent-package import": ("core/points.py", "from rooftop import cli", "rooftop.core.points -> rooftop.cli"),
    "lazy import upward": (
        "models/spec.py",
        "def _late():\n    from rooftop.api import analyze",
        "rooftop.models.spec -> rooftop.api",
    ),
    "sibling sources": ("measure/attribution.py", "from rooftop.ingest import kineto", "rooftop.measure.attribution"),
    "import cycle in a package": ("analytic/cost.py", "from rooftop.analytic import registry", "rooftop.analytic"),
    "package without a layer": ("extra.py", "", "rooftop.extra"),
}


@pytest.mark.parametrize("bypass", LAYER_BYPASSES, ids=lambda b: b.replace(" ", "-"))
def test_import_linter_catches(tree, bypass):
    module, text, named = LAYER_BYPASSES[bypass]
    inject(tree, module, text)
    run = lint_imports(tree / "src")
    assert run.returncode != 0
    assert "BROKEN" in run.stdout and named in run.stdout, run.stdout


HEAVY_BYPASSES = {
    "module level": "import torch",
    "class body": "class _Probe:\n    import torch",
    "module-level try": "try:\n    import torch\nexcept ImportError:\n    torch = None",
    "module-level if": "if True:\n    from matplotlib import pyplot",
    "with block": "import contextlib\nwith contextlib.suppress(ImportError):\n    import plotly.graph_objects",
}


@pytest.mark.parametrize("bypass", HEAVY_BYPASSES, ids=lambda b: b.replace(" ", "-"))
def test_heavy_check_catches(tree, bypass):
    inject(tree, "core/points.py", HEAVY_BYPASSES[bypass])
    bad = heavy_eager_imports(tree / "src" / "rooftop")
    assert len(bad) == 1 and bad[0].startswith("core/points.py:"), bad


def test_heavy_check_allows_function_and_type_checking_imports(tree):
    text = "def _late():\n    import torch\n\nimport typing\nif typing.TYPE_CHECKING:\n    import torch"
    inject(tree, "core/points.py", text)
    assert heavy_eager_imports(tree / "src" / "rooftop") == []


def test_test_check_wants_an_import_not_a_file_name(tree):
    # core/lonely.py has tests/core/test_lonely.py, which never imports it: untested
    (tree / "src" / "rooftop" / "core" / "lonely.py").write_text('"""Nobody imports me."""\n')
    (tree / "tests" / "core").mkdir(exist_ok=True)
    (tree / "tests" / "core" / "test_lonely.py").write_text("def test_nothing():\n    assert 1 + 1 == 2\n")
    assert untested_modules(tree / "src" / "rooftop", tree / "tests") == ["core/lonely.py"]
    # the same test importing it (from-import of the module) makes it tested
    (tree / "tests" / "core" / "test_lonely.py").write_text("from rooftop.core import lonely\n")
    assert untested_modules(tree / "src" / "rooftop", tree / "tests") == []
