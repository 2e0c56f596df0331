"""Every report kind in a real headless chromium (issue 10): screenshot it, check its parts are there.

Kinds: two analyze runs side by side, a sweep, a Kineto import, an nsys import (no FLOPs: the
kernel chart and the sentence why), a CPU profile (DRAM, not HBM) and a compare diff. Screenshots
go to $ROOFTOP_SCREENSHOTS when set (to look at them), else to the test's temp folder.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.conftest import data_path, run_cli
from tests.report.browser import chromium, console_errors

pytestmark = pytest.mark.slow

PARTS = """
return {
  h2: Array.from(document.querySelectorAll('h2')).map(function (h) { return h.innerText; }),
  h3: Array.from(document.querySelectorAll('h3')).map(function (h) { return h.innerText; }),
  legend: Array.from(document.querySelectorAll('.legendtext')).map(function (t) { return t.textContent; }),
  annotations: Array.from(document.querySelectorAll('.annotation-text')).map(function (t) { return t.textContent; }),
  yticks: Array.from(document.querySelectorAll('.ytick text')).map(function (t) { return t.textContent; }),
  bars: document.querySelectorAll('#kernels .bars path').length,
  text: document.body.innerText
};
"""


def _make(tmp: Path) -> dict[str, Path]:
    def cli(*args: str) -> None:
        p = run_cli(*args, cwd=tmp, timeout=300)
        assert p.returncode == 0, p.stderr

    cli("analyze", "--phase", "decode", "-b", "1,64", "-q", "-o", "before.json")
    cli("analyze", "--phase", "decode", "-b", "1,64", "--kv-dtype", "fp8", "-q", "-o", "after.json")
    cli("report", "before.json", "after.json", "-o", "analyze.html")
    cli("compare", "before.json", "after.json", "--report", "compare.html")
    cli("sweep", "-b", "1-64", "-c", "2048,8192", "--slo-tpot", "50ms", "-q", "--report", "sweep.html")
    shutil.copy(data_path("hta-traces", "sampled_rank-0.json.gz"), tmp / "trace.json.gz")
    cli("import", "trace.json.gz", "-H", "a100-80gb-sxm", "-q", "--report", "kineto.html")
    shutil.copy(data_path("nsys-csv-llm-perf-opt", "decode_cuda_gpu_kern_sum.csv"), tmp / "kern_sum.csv")
    cli("import", "kern_sum.csv", "-q", "--report", "nsys.html")
    cli("report", str(data_path("output", "profile-tiny.json")), "-o", "profile.html")
    return {k: tmp / f"{k}.html" for k in ("analyze", "compare", "sweep", "kineto", "nsys", "profile")}


def _look(driver, path: Path, shots: Path) -> dict:  # type: ignore[no-untyped-def]
    driver.get(path.resolve().as_uri())
    for _ in range(100):  # wait for plotly to draw (no timing assertion)
        if driver.execute_script("return !!document.querySelector('.main-svg')"):
            break
        time.sleep(0.1)
    time.sleep(0.5)
    height = min(int(driver.execute_script("return document.body.scrollHeight")), 6000)
    driver.set_window_size(1400, height)
    driver.save_screenshot(str(shots / f"{path.stem}.png"))
    parts = driver.execute_script(PARTS)
    parts["errors"] = console_errors(driver)
    return parts


def test_every_report_kind_in_chromium(tmp_path: Path) -> None:
    shots = Path(os.environ.get("ROOFTOP_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    reports = _make(tmp_path)
    with chromium() as driver:
        seen = {kind: _look(driver, path, shots) for kind, path in reports.items()}
    for kind, parts in seen.items():
        assert parts["errors"] == [], kind
        assert (shots / f"{kind}.png").stat().st_size > 10_000, kind
        assert "None" not in " ".join(parts["h2"] + parts["h3"]), (kind, parts["h2"], parts["h3"])
    a = seen["analyze"]
    # the runs are named by file, with one legend entry per result and the differing fields
    assert a["h3"][:2] == [h for h in a["h3"][:2] if h.startswith(("Run 1: before.json", "Run 2: after.json"))]
    assert "What differs between the results" in a["h3"]
    assert a["legend"] == ["run 1: decode b=1 c=2048", "run 1: decode b=64 c=2048", "run 2: decode b=1 c=2048",
                           "run 2: decode b=64 c=2048"]  # fmt: skip
    assert "bf16/fp16 989 TFLOP/s (datasheet)" in a["annotations"] and "HBM 3.35 TB/s (datasheet)" in a["annotations"]
    assert "1 PFLOP/s" in a["yticks"] and "12 points not on the chart (no FLOPs or no bytes" in a["text"]
    c = seen["compare"]
    assert "Compare before.json → after.json" in c["text"] and "memory:kv → memory:activations" in c["text"]
    k = seen["kineto"]
    assert {"Timeline", "Per step", "Collectives", "Kernel time by class"} <= set(k["h3"])
    n = seen["nsys"]
    assert "Kernels by time" in n["h2"] and n["bars"] >= 20
    assert "Nsight Systems gives kernel times, not FLOPs or bytes" in n["text"]
    assert "Kernel classes (46 names, 78,016 instances)" in n["h3"]
    p = seen["profile"]
    assert "DRAM 20 GB/s (measured)" in p["annotations"] and "arithmetic intensity (FLOP per DRAM byte)" in p["text"]
    assert any(h.startswith("Throughput vs TPOT") for h in seen["sweep"]["text"].splitlines()) or seen["sweep"]["h2"]
