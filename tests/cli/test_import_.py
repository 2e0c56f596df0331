"""`rooftop import` end to end (real subprocess)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SRC, data_path, run_cli


def test_trace_json_has_the_documented_keys() -> None:
    proc = run_cli("import", str(data_path("hta-traces", "sampled_rank-0.json.gz")), "-H", "a100-80gb-sxm", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["schema"] == "rooftop.run/1" and data["hardware"]["name"] == "a100-80gb-sxm"
    tl = data["results"][0]["timeline"]
    assert tl["kernels"] == 1154 and round(tl["busy_s"] * 1e6) == 547_303
    assert tl["largest_gap_start_us"] == 1682725899072204
    assert data["results"][0]["steps"]["steps"][-1]["last"] is True


def test_ncu_points_per_kernel_and_level() -> None:
    proc = run_cli("import", str(data_path("ncu-csv-olajide-gpu-roofline-profiler", "saxpy.csv")), "--json")
    assert proc.returncode == 0, proc.stderr
    (op,) = json.loads(proc.stdout)["results"][0]["ops"]
    assert (op["source"], op["level"], op["bytes"]) == ("ncu", "hbm", 177_852_672)
    assert abs(op["time_s"] - 292.928e-6) < 1e-12 and op["flops"] == 0


def test_tables_and_findings() -> None:
    proc = run_cli("import", str(data_path("hta-traces", "alexnet_a100.json.gz")), "-H", "a100-80gb-sxm")
    assert proc.returncode == 0, proc.stderr
    assert "span / busy / idle" in proc.stdout and "GPU idle" in proc.stdout


def test_help_teaches() -> None:
    proc = run_cli("import", "--help")
    assert proc.returncode == 0 and "Examples:" in proc.stdout and "--page raw" in proc.stdout


def test_unknown_hardware_is_one_line() -> None:
    proc = run_cli("import", str(data_path("hta-traces", "triton_example.json.gz")), "-H", "a100")
    assert proc.returncode == 2 and proc.stderr.startswith("rooftop: error: unknown hardware")


def test_trace_tables_show_the_timeline_steps_and_points() -> None:
    proc = run_cli("import", str(data_path("hta-traces", "sampled_rank-0.json.gz")), "-H", "a100-80gb-sxm")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    # README: 1,154 kernels on 4 streams, 40 memcpy, 10 memset; idle 675,515 of 1,222,818 µs = 55.2 %
    assert "1,154 on 4 stream(s); 40 memcpy, 10 memset" in out
    assert "(55.2% idle)" in out
    assert "ProfilerStep#551" in out and "ProfilerStep#552 (last)" in out
    assert "roofs: a100-80gb-sxm" in out and "points by time" in out


def test_top_limits_the_points_table() -> None:
    path = str(data_path("hta-traces", "sampled_rank-0.json.gz"))
    proc = run_cli("import", path, "--top", "3")
    assert proc.returncode == 0, proc.stderr
    assert "top 3 of " in proc.stdout
    assert "top 15 of " in run_cli("import", path).stdout  # the default


def test_json_keys_and_output_file(tmp_path) -> None:
    out = tmp_path / "run.json"
    proc = run_cli("import", str(data_path("hta-traces", "nccl_data.json.gz")), "--json", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert json.loads(out.read_text()) == data and "wrote" in proc.stderr
    assert set(data) >= {"schema", "hardware", "results"}
    (result,) = data["results"]
    assert {"workload", "ops", "timeline", "steps", "findings"} <= set(result)
    tl = result["timeline"]
    assert {"kernels", "busy_s", "idle_s", "span_s", "largest_gap_s", "largest_gap_start_us", "nccl_kernels",
            "nccl_s", "comm_compute_overlap_s", "unjoined_kernels"} <= set(tl)  # fmt: skip
    # README: 2,700 kernels, 21 NCCL kernels, comm union 46,876.49 µs of which 7,317.03 µs under compute
    assert tl["kernels"] == 2700 and tl["nccl_kernels"] == 21
    assert abs(tl["nccl_s"] * 1e6 - 46_876.49) < 0.01 and abs(tl["comm_compute_overlap_s"] * 1e6 - 7_317.03) < 0.01
    assert {op["source"] for op in result["ops"]} == {"trace"}
    assert [s["last"] for s in result["steps"]["steps"]] == [False, False, True]  # steps #4, #5, #6 (kept)


def test_folder_of_ranks(tmp_path) -> None:
    for name in ("sampled_rank-0.json.gz", "a100x8_rank3_control.json.gz"):
        (tmp_path / name).write_bytes(data_path("hta-traces", name).read_bytes())
    (tmp_path / "README.md").write_text("# not a trace\n")
    proc = run_cli("import", str(tmp_path), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    ranks = {r["workload"]["rank"]: r["timeline"]["kernels"] for r in data["results"]}
    assert ranks == {0: 1154, 3: 8568}  # README kernel counts of each rank
    tables = run_cli("import", str(tmp_path))
    assert tables.returncode == 0, tables.stderr
    assert "rank 0" in tables.stdout and "rank 3" in tables.stdout and "skipped README.md" in tables.stdout


def test_bad_file_is_one_line_exit_2(tmp_path) -> None:
    path = tmp_path / "trace.json"
    path.write_text('{"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1, "dur": 2}')  # cut short
    proc = run_cli("import", str(path))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"rooftop: error: {path}: truncated or malformed trace after 1 events")
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_no_kernels_is_one_line_exit_2(tmp_path) -> None:
    path = tmp_path / "cpu_only.json"
    path.write_text(json.dumps({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2}]}))
    proc = run_cli("import", str(path))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "no GPU kernel events (cat=kernel) among 1 events" in proc.stderr


def test_overrides_need_hardware() -> None:
    proc = run_cli("import", str(data_path("hta-traces", "triton_example.json.gz")), "--bandwidth", "3 TB/s")
    assert proc.returncode == 2 and "pass --hardware too" in proc.stderr


def test_jobs_reads_ranks_in_parallel_with_the_same_result(tmp_path) -> None:
    for name in ("sampled_rank-0.json.gz", "a100x8_rank3_control.json.gz", "alexnet_a100.json.gz"):
        (tmp_path / name).write_bytes(data_path("hta-traces", name).read_bytes())
    (tmp_path / "broken.json").write_text('{"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1, "dur": 2}')
    one = run_cli("import", str(tmp_path), "--json")
    three = run_cli("import", str(tmp_path), "--json", "--jobs", "3")
    assert one.returncode == 0 and three.returncode == 0, three.stderr
    a, b = json.loads(one.stdout), json.loads(three.stdout)
    for doc in (a, b):
        doc["identity"].pop("created", None)
        doc["identity"].pop("command_line", None)  # the command as typed: --jobs differs
    assert a == b  # same results, same order (folder order), the broken file skipped by both
    kernels = {Path(r["workload"]["file"]).name: r["timeline"]["kernels"] for r in b["results"]}
    assert kernels["sampled_rank-0.json.gz"] == 1154 and kernels["a100x8_rank3_control.json.gz"] == 8568
    assert list(kernels) == sorted(kernels) and len(kernels) == 3
    assert "broken.json" in b["identity"]["skipped_files"]


@pytest.mark.parametrize(
    "trace",
    [
        ("hta-traces", "triton_example.json.gz"),
        ("hta-traces", "alexnet_a100.json.gz"),  # with the next three, benchmarks/bench_cold_start.py's traces
        ("hta-traces", "sampled_rank-0.json.gz"),
        ("kineto-generations", "torch19_resnet50_2steps.json.gz"),
        ("hta-traces", "nccl_data.json.gz"),
    ],
    ids=lambda trace: trace[1],
)
def test_json_import_starts_without_rich_or_the_analytic_engine(trace: tuple[str, str]) -> None:
    # start-up imports cut for the cold start (benchmarks/bench_cold_start.py): a --json run into a pipe
    proc = run_cli("import", str(data_path(*trace)), "--json", env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert proc.returncode == 0, proc.stderr[-500:]
    loaded = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "rooftop.ingest.kineto" in loaded  # the reader did load
    assert not {m for m in loaded if m.split(".")[0] == "rich"} and "rooftop.analytic.engine" not in loaded
    assert "rooftop.hardware.catalog" not in loaded and "rooftop.core.totals" not in loaded  # tables only / read back
    assert "rooftop.core.workload" not in loaded  # the option types take MAX_TOKENS from units
    assert {m for m in loaded if m.startswith("rooftop.diagnose.evidence.")} == {"rooftop.diagnose.evidence.timeline"}
    # the records are msgspec Structs: Python 3.11 compiled ~1.5 ms of generated methods per frozen
    # dataclass, 21 of them (29 ms) on this path; nothing on it may bring the module back
    assert "dataclasses" not in loaded
    # a plain np.unique (or np.median, np.percentile) imports numpy.ma at its first call: ~10 ms
    assert "numpy.ma" not in loaded
    # the array aliases are written out (np.ndarray[Any, np.dtype[...]]): numpy.typing ran its
    # docstring additions at import for annotations alone
    assert "numpy.typing" not in loaded
    assert "heapq" not in loaded  # Counter.most_common imports it (~0.4 ms): the run's dtype is a max()


def test_json_analyze_makes_no_dataclass() -> None:
    # 46 frozen dataclasses were 74 ms of a 314 ms `rooftop analyze --json` (docs/import.md, Cold start)
    proc = run_cli("analyze", "--json", env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert proc.returncode == 0, proc.stderr[-500:]
    loaded = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "rooftop.analytic.engine" in loaded and "dataclasses" not in loaded
    # the presets and the catalog are read beside their modules: importlib.resources brought in
    # zipfile, tempfile, shutil, bz2 and lzma (~20 M instructions, 3.5 % of the command)
    assert not {"importlib.resources", "zipfile", "tempfile"} & loaded
    assert "pkgutil" not in loaded  # the formulas' folder is listed as the rules' is (core.packaged.import_modules)


def test_json_import_with_roofs_reads_the_catalog_as_a_file() -> None:
    trace = str(data_path("hta-traces", "alexnet_a100.json.gz"))
    proc = run_cli("import", trace, "-H", "a100-40gb-sxm", "--json", env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert proc.returncode == 0, proc.stderr[-500:]
    loaded = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "rooftop.hardware.catalog" in loaded
    assert not {"importlib.resources", "zipfile", "tempfile"} & loaded


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace (scripts/setup-e2e installs it)")
def test_import_does_not_thrash_the_interpreters_frame_stack(tmp_path) -> None:
    # CPython 3.11/3.12 map and unmap a 16 KiB frame-stack chunk at every call that crosses a chunk
    # boundary (CPython gh-142183). numpy imported at the bottom of the command's import chain did so
    # ~400-1,400 times (its typing modules); cli/main.py imports it first. Counted with strace: 1 chunk now.
    log = tmp_path / "mmap.log"
    trace = str(data_path("hta-traces", "triton_example.json.gz"))
    env = {**os.environ, "PYTHONPATH": str(SRC), "OPENBLAS_NUM_THREADS": "1"}
    rooftop = [sys.executable, "-m", "rooftop", "import", trace, "--json"]
    proc = subprocess.run(
        ["strace", "-f", "-e", "trace=mmap", "-o", str(log), *rooftop],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    if proc.returncode != 0 and "ptrace" in proc.stderr:
        pytest.skip(f"strace cannot trace here: {proc.stderr.strip()[:200]}")
    assert proc.returncode == 0, proc.stderr[-500:]
    chunks = [line for line in log.read_text().splitlines() if "mmap(NULL, 16384, PROT_READ|PROT_WRITE" in line]
    assert len(chunks) < 20, f"{len(chunks)} frame-stack chunks mapped"


def test_api_analyze_default_matches_the_analytic_one() -> None:
    from rooftop.analytic.memory import DEFAULT_MEMORY_UTILIZATION as analytic
    from rooftop.api.analysis import DEFAULT_MEMORY_UTILIZATION as api

    assert api == analytic == 0.9


def test_profiler_output_without_data_is_one_line_in_its_words() -> None:
    # before: 'not a Kineto trace ..., Nsight Compute CSV (--csv ...) or nsys kernel summary': the command they ran
    path = data_path("ncu-csv-swordfish", "8b-b1.ncu.csv")
    proc = run_cli("import", str(path))
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f'rooftop: error: {path}: Nsight Compute profiled no kernel: "==ERROR== An error')
    assert "driver resource was unavailable" in proc.stderr and "Traceback" not in proc.stderr
