"""The notebook API (issue 10): names or objects, a DataFrame, a short repr, HTML, and docs/api.md runs as printed."""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rooftop
from rooftop.api import notebook
from rooftop.core.frames import run_rows
from rooftop.errors import SpecError
from tests.conftest import REPO, SRC, data_path


def test_names_or_objects():
    # issue 10: rooftop.api.analyze("llama-3.1-8b", "h100-sxm") raised TypeError
    from rooftop import api

    run = api.analyze("llama-3.1-8b", "h100-sxm")
    assert [r.workload["batch"] for r in run.results] == [1, 64]
    nb = rooftop.analyze("llama-3.1-8b", "h100-sxm", phase="decode", batch=[1, 64])
    assert [r.totals for r in nb.results] == [r.totals for r in run.results]
    # decode b=1: 15.3 GB at 3.35 TB/s = 4.56 ms
    assert nb.results[0].totals.time_s == pytest.approx(4.56e-3, rel=1e-3)
    assert rooftop.analyze is notebook.analyze and rooftop.import_path is notebook.import_path
    both = rooftop.analyze("llama-3.1-8b", "h100-sxm", batch=8)
    assert [r.workload["phase"] for r in both.results] == ["prefill", "decode"]
    with pytest.raises(SpecError, match="did you mean"):
        rooftop.analyze("llama-3.1-9b")


def test_dataframe_one_row_per_point_with_workload_fields():
    run = rooftop.analyze("llama-3.1-8b", "h100-sxm", phase="decode", batch=[1, 64])
    df = run.to_dataframe()
    assert len(df) == 2 * 17  # 17 operators per decode step, two batches
    assert {"name", "flops", "bytes", "time_s", "intensity", "batch", "context", "model", "result"} <= set(df.columns)
    q = df[(df.batch == 64) & (df.name == "q_proj")].iloc[0]
    # q_proj at batch 64: 2 × 64 × 4096 × 4096 × 32 layers = 68.7 GFLOP
    assert q.flops == 2 * 64 * 4096 * 4096 * 32 and q.model == "llama-3.1-8b" and q.result == 1
    assert len(run_rows(run)) == len(df)


def test_repr_is_short_and_html_has_the_table():
    run = rooftop.analyze("llama-3.1-8b", "h100-sxm", phase="decode", batch=[1, 64])
    # issue 10: repr(run) was 46 KB
    assert repr(run) == (
        "<Run 'analyze' on h100-sxm, llama-3.1-8b: 2 result(s) [decode b=1 c=2048, decode b=64 c=2048], 34 points>"
    )
    html = run._repr_html_()
    assert "<table>" in html and "q_proj" in html and "MBU 99.9%" in html and "None" not in html
    # a small roofline drawn as inline SVG (no plotting library imported), and numbers in SI units
    assert html.count("<svg") == 1 and html.count("<circle") == 28 and "ridge 295" in html
    assert "<td>1.07 GFLOP</td>" in html and "e+0" not in html


def test_point_name_is_name_in_python_and_json():
    from rooftop.core.artifact import point_to_dict

    p = rooftop.analyze("gpt2", "h100-sxm", phase="decode", batch=1).results[0].points[0]
    assert p.name == point_to_dict(p)["name"] == "embed"


def test_import_rooftop_loads_no_pandas():
    code = "import sys, rooftop; rooftop.analyze; print([m for m in ('pandas', 'matplotlib', 'torch') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": str(SRC)})
    assert out.stdout.strip() == "[]", out.stderr


def test_docs_api_examples_run_as_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    pytest.importorskip("pandas")
    shutil.copy(data_path("nsys-csv-llm-perf-opt", "decode_cuda_gpu_kern_sum.csv"), tmp_path)
    monkeypatch.chdir(tmp_path)
    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    namespace: dict[str, object] = {}
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 4
    for block in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, "docs/api.md", "exec"), namespace)  # our own documentation, not user input
        expected = [line[2:] for line in block.splitlines() if line.startswith("# ")]
        assert out.getvalue().splitlines() == expected, block


def test_profile_and_import_take_names(monkeypatch: pytest.MonkeyPatch):
    import rooftop.api.profile as api_profile

    seen = {}
    monkeypatch.setattr(api_profile, "profile", lambda req: seen.setdefault("req", req))
    rooftop.profile("llama-cpu-small", "cpu", batch=4, trace_path="t.json.gz")
    req = seen["req"]
    assert (req.model, req.device, req.batch, str(req.trace_path)) == ("llama-cpu-small", "cpu", 4, "t.json.gz")
    run = rooftop.import_path(data_path("ncu-csv-llm-perf-opt", "kernel_0005.ncu.metrics.csv"), "H100-SXM")
    assert run.roofs.name == "h100-sxm" and run.results[0].points[0].dtype == "bf16"


def test_sweep_by_name():
    run = rooftop.sweep("llama-3.1-8b", "h100-sxm", batch=[1, 64], context=2048, slo_tpot_s=0.05)
    (result,) = run.results
    assert result.extra["operating_point"]["batch"] == 64 and len(result.extra["sweep"]["rows"]) == 2
