"""The operator registry finds its formulas (analytic/ops/), refuses duplicates, names unmodelled kinds."""

import json
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from rooftop.analytic import registry
from rooftop.analytic.cost import OpCost
from rooftop.analytic.registry import OpKind, UnmodelledOp, cost, discover, formula, kinds, register
from rooftop.errors import RooftopError
from tests.conftest import REPO, SRC

OPS = SRC / "rooftop" / "analytic" / "ops"


@pytest.fixture
def scratch_registry(monkeypatch):
    """A copy of the registry that the test may add to; the real one is untouched afterwards."""
    kinds()  # discover the shipped formulas first
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_DISCOVERED", dict(registry._DISCOVERED))


def test_every_op_kind_has_its_formula():
    # ten transformer kinds + recurrent_state (gated DeltaNet, Mamba) + EP's all-to-all and PP's p2p send
    assert len(OpKind) == 13
    assert {kind.value for kind in OpKind} <= set(kinds())
    assert formula(OpKind.GEMM) is formula("gemm")


def test_discovery_imports_every_module_in_ops():
    on_disk = sorted(f"rooftop.analytic.ops.{p.stem}" for p in OPS.glob("*.py") if p.name != "__init__.py")
    assert on_disk == [
        "rooftop.analytic.ops.all_to_all",
        "rooftop.analytic.ops.attention",
        "rooftop.analytic.ops.collectives",
        "rooftop.analytic.ops.elementwise",
        "rooftop.analytic.ops.gemm",
        "rooftop.analytic.ops.p2p",
        "rooftop.analytic.ops.recurrent",
    ]
    assert sorted(discover()) == on_disk
    # every registered formula lives in one of them
    assert {formula(k).__module__ for k in kinds()} <= set(on_disk)


def test_op_kinds_print_as_bare_strings():
    assert json.dumps({"op": OpKind.GROUPED_GEMM}) == '{"op": "grouped_gemm"}'
    assert f"{OpKind.ALL_REDUCE}" == "all_reduce" and OpKind.GEMM == "gemm"


def test_unknown_kind_is_unmodelled_not_zero():
    with pytest.raises(UnmodelledOp, match="'rotary' has no formula") as err:
        cost("rotary", tokens=1)
    assert isinstance(err.value, RooftopError)


def test_duplicate_kind_names_both_formulas(scratch_registry):
    def gemm_again() -> OpCost:
        return OpCost()

    with pytest.raises(ValueError, match=r"duplicate .*'gemm': rooftop\.analytic\.ops\.gemm\.gemm and .*gemm_again"):
        register(OpKind.GEMM)(gemm_again)


def test_a_new_package_of_formulas_is_discovered(scratch_registry, tmp_path, monkeypatch):
    package = tmp_path / "probe_formulas"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "probe.py").write_text(
        textwrap.dedent(
            """
            from rooftop.analytic.cost import OpCost
            from rooftop.analytic.registry import register

            @register("probe")
            def probe(tokens: float) -> OpCost:
                return OpCost(flops=2.0 * tokens)
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert discover("probe_formulas") == ["probe_formulas.probe"]
    assert float(cost("probe", tokens=21).flops) == 42.0  # 2 x 21
    assert discover("probe_formulas") == ["probe_formulas.probe"]  # once: a second call imports nothing new
    # a second module registering the same kind is refused at discovery
    (package / "probe_again.py").write_text((package / "probe.py").read_text())
    monkeypatch.setattr(registry, "_DISCOVERED", {})
    with pytest.raises(ValueError, match="duplicate formula registration for operator kind 'probe'"):
        discover("probe_formulas")


def test_registry_and_cost_import_no_formula_module():
    # the formulas are found at first use, not imported by the registry: no import cycle
    code = (
        "import sys, rooftop.analytic.registry, rooftop.analytic.cost; "
        "print(sorted(m for m in sys.modules if m.startswith('rooftop.analytic.ops')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"PYTHONPATH": str(SRC)}
    )
    assert out.stdout.strip() == "[]"


def doc_files() -> dict[str, str]:
    """The files of the worked example in docs/analytic.md: path -> contents."""
    text = (REPO / "docs" / "analytic.md").read_text()
    return dict(re.findall(r"^`([\w/]+\.py)`:\n\n```python\n(.*?)^```", text, re.MULTILINE | re.DOTALL))


def test_the_documented_operator_is_one_file_plus_its_test(tmp_path):
    files = doc_files()
    assert sorted(files) == ["src/rooftop/analytic/ops/rotary.py", "tests/analytic/test_rotary.py"]
    shutil.copytree(SRC / "rooftop", tmp_path / "src" / "rooftop", ignore=shutil.ignore_patterns("__pycache__"))
    for path, body in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(body)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/analytic/test_rotary.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tmp_path / "src"), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert run.returncode == 0 and "2 passed" in run.stdout, run.stdout + run.stderr
