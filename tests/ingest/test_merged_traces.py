"""Traces that hold several ranks or several GPUs: refused, or read per GPU; never silently merged.

No merged trace or single-process multi-GPU trace is among the real files here, so both are made
from real single-rank traces the way their writers make them: ``sglang_merge`` does what SGLang's
ProfileMerger (python/sglang/srt/utils/profile_merger.py, sgl-project/sglang @1a4eb3f) writes
for ``merge_profiles`` — every rank's events in one list, each pid prefixed with the rank's label,
the device properties concatenated, the other keys of the first rank kept.
"""

from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path

import pytest

from rooftop.api.ingest import import_path
from rooftop.errors import TraceFormatError
from rooftop.ingest.kineto import KERNEL, read_trace
from tests.conftest import data_path, run_cli

RANK0 = data_path("hta-traces", "sampled_rank-0.json.gz")  # 1,154 kernels (its README)
RANK1 = data_path("hta-traces", "alexnet_a100.json.gz")


def _load(path: Path) -> dict:
    return json.loads(gzip.decompress(path.read_bytes()))


def sglang_merge(ranks: dict[str, Path], out: Path) -> Path:
    merged: dict = {"traceEvents": []}
    properties: list = []
    for label, path in ranks.items():
        trace = _load(path)
        for event in trace["traceEvents"]:
            event["pid"] = f"[{label}] {event['pid']}"
        merged["traceEvents"] += trace.pop("traceEvents")
        properties += trace.pop("deviceProperties", [])
        for key, value in trace.items():
            merged.setdefault(key, value)
    if properties:
        merged["deviceProperties"] = properties
    out.write_bytes(gzip.compress(json.dumps(merged).encode()))
    return out


def test_a_merge_of_several_ranks_is_refused_in_one_line(tmp_path) -> None:
    merged = sglang_merge({"TP00": RANK0, "TP01": RANK1}, tmp_path / "merged-123.trace.json.gz")
    for fast in (True, False):  # the msgspec reader and the ijson one
        with pytest.raises(TraceFormatError, match=r"a merged trace of 2 ranks \(TP00, TP01; SGLang") as err:
            read_trace(merged, fast=fast)
        assert "per-rank *TP-*.trace.json.gz files" in str(err.value)
    proc = run_cli("import", str(merged))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_a_merge_of_one_rank_reads_as_that_rank(tmp_path) -> None:
    merged = read_trace(sglang_merge({"DP00-TP00": RANK0}, tmp_path / "merged-1.trace.json.gz"))
    plain = read_trace(RANK0)
    assert int((merged.gpu.kind == KERNEL).sum()) == int((plain.gpu.kind == KERNEL).sum()) == 1154
    assert (merged.gpu.dur_us == plain.gpu.dur_us).all() and merged.rank == plain.rank == 0


def test_a_folder_with_the_ranks_and_their_merge_reads_the_ranks(tmp_path) -> None:
    # SGLang keeps the per-rank files beside the merged one: the folder reads rank by rank
    for name, src in (
        ("p-TP-0.trace.json.gz", RANK0),
        ("p-TP-1.trace.json.gz", data_path("hta-traces", "a100x8_rank3_control.json.gz")),
    ):
        (tmp_path / name).write_bytes(src.read_bytes())
    sglang_merge({"TP00": RANK0, "TP01": RANK1}, tmp_path / "merged-p.trace.json.gz")
    proc = run_cli("import", str(tmp_path), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert {r["workload"]["rank"]: r["timeline"]["kernels"] for r in data["results"]} == {0: 1154, 3: 8568}
    assert "merged-p.trace.json.gz" in data["identity"]["skipped_files"]


def test_kernels_of_two_gpus_in_one_trace_read_per_gpu(tmp_path) -> None:
    # one process driving two GPUs (device_map="auto"): alexnet's kernels after the 10th moved to
    # device 1. Its 79 kernels: 10 on device 0 (2,200 µs) with its 16 copies and 3 memsets, 69 on
    # device 1 (8,492 µs); the launch calls and CPU ops are the process's, shared by both views
    trace = _load(RANK1)
    kernels = [e for e in trace["traceEvents"] if e.get("cat") == "kernel"]
    for event in kernels[10:]:
        event["args"]["device"] = 1
    path = tmp_path / "two_gpus.json.gz"
    path.write_bytes(gzip.compress(json.dumps(trace).encode()))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # split, so nothing to warn about
        run = import_path(path)
        whole = import_path(RANK1)
    gpu0, gpu1 = run.results
    assert [r.workload["device_index"] for r in run.results] == [0, 1]
    assert "device_index" not in whole.results[0].workload  # a process per GPU reads as before
    t0, t1 = gpu0.extra["timeline"], gpu1.extra["timeline"]
    assert (t0["kernels"], t0["memcpy"], t0["memset"]) == (10, 16, 3) and (t1["kernels"], t1["memcpy"]) == (69, 0)
    assert t0["unjoined_kernels"] == t1["unjoined_kernels"] == 0  # each kernel still finds its launch call

    # every GPU row lies in exactly one view: its points' occurrences, times and bytes add up to
    # the whole trace's (98 rows; alexnet records no shapes, so no FLOPs to add)
    def total(results, field):
        return sum(getattr(p, field) for r in results for p in r.points)

    assert total(run.results, "count") == total(whole.results, "count") == 79 + 16 + 3
    assert abs(total(run.results, "time_s") - total(whole.results, "time_s")) < 1e-12
    assert total(run.results, "bytes") == total(whole.results, "bytes") > 0
    assert gpu0.workload["events"] + 69 == gpu1.workload["events"] + 10 + 16 + 3 == whole.results[0].workload["events"]
    assert gpu0.workload["device"] == gpu1.workload["device"] == whole.results[0].workload["device"]
