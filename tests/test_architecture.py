"""Import contracts: `import rooftop` stays light, imports point down, every module has its test file."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, SRC

PACKAGE = SRC / "rooftop"
# Lower number = lower layer. A module may import only from its own layer's package or lower layers.
LAYERS = {
    "units": 0,
    "dtypes": 0,
    "errors": 0,
    "core": 1,
    "models": 2,
    "hardware": 2,
    "torchops": 2,
    "analytic": 3,
    "measure": 3,
    "ingest": 3,
    "serving": 3,
    "diagnose": 4,
    "api": 5,
    "report": 6,
    "cli": 7,
    "__main__": 7,
}
SOURCES = {"analytic", "measure", "ingest", "serving"}  # siblings that never import each other
HEAVY = ("torch", "transformers", "matplotlib", "plotly", "httpx", "aiohttp", "prometheus_client", "pandas")


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py"))


def top(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0].removesuffix(".py")


def imports(path: Path) -> list[tuple[str, bool]]:
    """(imported rooftop top-level package, whether at module level) for every rooftop import."""
    tree = ast.parse(path.read_text())
    found = []
    module_level = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rooftop"):
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.startswith("rooftop")]
        for name in names:
            parts = name.split(".")
            if len(parts) > 1:
                found.append((parts[1], id(node) in module_level))
    return found


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


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path):
    here = top(path)
    if here == "__init__":
        return
    for target, _ in imports(path):
        if target == here or target == "__init__":
            continue
        assert target in LAYERS, f"{path}: unknown layer {target}"
        assert LAYERS[target] <= LAYERS[here], f"{path} ({here}) imports {target}, a higher layer"
        if here in SOURCES and target in SOURCES:
            pytest.fail(f"{path}: source {here} imports sibling source {target}")


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_heavy_imports_are_lazy(path):
    tree = ast.parse(path.read_text())
    for node in tree.body:
        names = []
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module.split(".")[0]]
        for name in names:
            assert name not in HEAVY, f"{path} imports {name} at module level"


def test_every_module_has_a_test_module():
    """Each module has tests/**/test_<name>.py, or a test that imports it by its dotted name."""
    test_files = list((REPO / "tests").rglob("test_*.py"))
    tested = {p.name for p in test_files}
    test_text = "\n".join(p.read_text() for p in test_files)
    missing = []
    for path in modules():
        if path.name in ("__init__.py", "__main__.py"):
            continue
        dotted = ".".join(("rooftop", *path.relative_to(PACKAGE).with_suffix("").parts))
        parent, _, leaf = dotted.rpartition(".")
        imported = dotted in test_text or f"from {parent} import {leaf}" in test_text
        if f"test_{path.stem}.py" not in tested and not imported:
            missing.append(str(path.relative_to(PACKAGE)))
    assert not missing, f"modules without tests/**/test_<name>.py: {missing}"
