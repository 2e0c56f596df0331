"""`bench --profile` against the stub: window bounds, window metrics, the three one-line errors, a full pass.

The full pass uses a real fixture trace (tests/data/hta-traces, recorded in 2023) dropped into the
profile folder when the stub is asked to stop: the imported rank is there, and the window record
says the trace does NOT lie inside the profiler calls — the containment check can fail.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from rooftop.api.bench_profile import window_bounds
from rooftop.api.bench_window import Edges, window_summary
from rooftop.core.slo import SLO
from rooftop.errors import WorkloadError
from rooftop.serving.loadgen.client import RequestRecord
from tests.conftest import data_path, run_cli
from tests.serving.stub_server import StubServer
from tests.serving.test_watch import vllm_text


def test_window_bounds_default_is_the_middle_half() -> None:
    # arrivals up to 8 s: the middle half is 2..6 s
    assert window_bounds(np.array([0.0, 1.0, 8.0]), None) == (2.0, 6.0)
    assert window_bounds(np.array([0.0, 8.0]), (1.0, 3.0)) == (1.0, 3.0)
    with pytest.raises(WorkloadError, match="START < END"):
        window_bounds(np.array([0.0, 8.0]), (5.0, 3.0))
    with pytest.raises(WorkloadError, match="finite rate"):
        window_bounds(np.array([0.0, 0.0]), None)


def _rec(i: int, sent: float, chunks: list[float]) -> RequestRecord:
    return RequestRecord(i, sent, sent, chunks, chunks[-1], 8, len(chunks))


def test_window_summary_counts_each_metric_when_the_engine_observes_it() -> None:
    # window 10..20 s after the load's origin (perf origin 100 → scrapes at 110 and 120)
    edges = Edges(prefix="p", before_perf_s=110.0, after_perf_s=120.0)
    records = (
        _rec(0, 5.0, [9.0, 11.0, 13.0]),  # first token before, finished inside: E2E 8 s, TPOT (13-9)/2 = 2 s
        _rec(1, 12.0, [14.0, 15.0, 21.0]),  # first token inside (TTFT 2 s), finished after
        _rec(2, 1.0, [2.0, 3.0]),  # all before
    )
    s = window_summary(records, 100.0, edges, SLO(ttft_s=5.0))
    assert s.completed == 1 and s.e2e_s["mean"] == 8.0 and s.tpot_s["mean"] == 2.0
    assert s.ttft_s["mean"] == 2.0  # request 1 only (request 0's first token came at 9 s)
    # gaps ending inside: r0 9→11 (2) and 11→13 (2), r1 14→15 (1); 15→21 ends outside
    assert s.itl_s["mean"] == pytest.approx(5 / 3)
    assert s.duration_s == 10.0 and s.request_throughput_rps == pytest.approx(0.1)
    assert s.goodput_rps == pytest.approx(0.1)  # request 0's TTFT 9 − 5 = 4 s meets 5 s: 1 request / 10 s


def _bench(url: str, folder: Path, *extra: str) -> tuple[int, str, str]:
    proc = run_cli(
        "bench", url, "--served-model", "m", "--rate", "20", "--requests", "20", "--prompt-len", "8",
        "--output-len", "4", "--profile-dir", str(folder), "--json", *extra, timeout=120,
    )  # fmt: skip
    return proc.returncode, proc.stdout, proc.stderr


def test_engine_without_profiling_says_which_flag(tmp_path: Path) -> None:
    stub = StubServer(metrics=vllm_text(1, 1)).start()
    stub.version = "0.32.0"
    try:
        code, out, err = _bench(stub.url, tmp_path, "--profile")
        assert code == 2 and out == "" and err.count("\n") == 1
        assert "started without profiling" in err and "--profiler-config" in err and "VLLM_TORCH_PROFILER_DIR" in err
        assert stub.requests == 0  # refused before any load
    finally:
        stub.stop()


def test_missing_endpoint_and_missing_trace_are_one_line(tmp_path: Path) -> None:
    stub = StubServer(metrics=vllm_text(1, 1)).start()
    try:
        code, _, err = _bench(stub.url, tmp_path, "--profile-window", "0:0.2")
        assert code == 2 and err.count("\n") == 1 and "/start_profile: HTTP 404: endpoint does not exist" in err
        stub.profiling = True
        code, _, err = _bench(stub.url, tmp_path, "--profile-window", "0:0.2", "--profile-timeout", "1")
        assert code == 2 and err.count("\n") == 1
        assert "no complete trace rooftop-" in err and "after 1 s" in err
        assert [c["path"] for c in stub.profile_calls] == ["/start_profile", "/stop_profile"]
    finally:
        stub.stop()
    code, _, err = _bench("http://127.0.0.1:9", tmp_path / "absent", "--profile")
    assert code == 2 and "no such folder" in err


# what each engine's rank writes when profiling stops (serving/profiler.py cites both engines' code);
# SGLang's merge_profiles also writes every rank again into merged-{profile_id}, which is not read
NAMES = {
    "vllm": ["{prefix}_rank0.1.pt.trace.json.gz"],
    "sglang": ["{prefix}-1764680000.25-TP-0.trace.json.gz", "merged-1764680000.25.trace.json.gz"],
}


def _drop_trace_on_stop(stub: StubServer, folder: Path, done: threading.Event, names: list[str]) -> None:
    while not done.is_set():
        stops = [c for c in stub.profile_calls if c["path"] == "/stop_profile"]
        if stops:
            prefix = stub.profile_calls[0]["profile_prefix"]
            for name in names:
                shutil.copy(data_path("hta-traces", "alexnet_a100.json.gz"), folder / name.format(prefix=prefix))
            return
        time.sleep(0.05)


@pytest.mark.parametrize("engine", sorted(NAMES))
def test_full_pass_with_a_fixture_trace(tmp_path: Path, engine: str) -> None:
    stub = StubServer(metrics=vllm_text(10, 5)).start()
    stub.profiling = True
    done = threading.Event()
    args = (stub, tmp_path, done, NAMES[engine])
    dropper = threading.Thread(target=_drop_trace_on_stop, args=args, daemon=True)
    dropper.start()
    try:
        code, out, err = _bench(stub.url, tmp_path, "--profile-window", "0.1:0.6", "-o", str(tmp_path / "run.json"))
    finally:
        done.set()
        stub.stop()
    assert code == 0, err
    window = json.loads(out)["profile_window"]
    rec = window["profile"]
    assert rec["window_s"] == [0.1, 0.6] and len(rec["traces"]) == 1  # not the merged file
    start = stub.profile_calls[0]  # SGLang's defaults are no shapes and Python stacks; vLLM ignores both
    assert start["record_shapes"] is True and start["with_stack"] is False and start["output_dir"] == str(tmp_path)
    assert not rec["contained"] and not rec["traces"][0]["within_profiler_calls"]  # a 2023 trace: not this window
    assert "same interval: NO" in err
    run = json.loads((tmp_path / "run.json").read_text())
    sources = [r["workload"].get("source") for r in run["results"]]
    assert sources[-1] == "trace" and run["results"][-1]["timeline"]["kernels"] > 0


def test_live_totals_read_back_with_nan_for_null() -> None:
    # a live window's Totals has hfu and the byte split unknown (NaN, JSON null); read back as NaN
    # so `rooftop report` of a bench or watch artifact can format them
    import math

    from rooftop.core.totals import Totals

    names = ("tokens", "flops", "model_flops", "bytes", "link_bytes", "mbu", "peak_flop_per_s", "bandwidth_bytes_per_s")
    data = {"phase": "live", "time_s": 2.0, "mfu": 0.5, "bound": "", **dict.fromkeys(names, 1.0)}
    data.update(dict.fromkeys(("hfu", "weight_bytes", "kv_read_bytes", "kv_write_bytes", "activation_bytes")))
    t = Totals.from_dict(data)
    assert math.isnan(t.hfu) and math.isnan(t.kv_read_bytes) and t.mfu == 0.5 and t.phase == "live"
    assert f"{t.hfu:.1%}" == "nan%"  # what the report's totals line formats
