"""`rooftop import` vs HolisticTraceAnalysis: parse + breakdown time and peak memory, and a 1 GB stream.

Set-up (once): ``bash benchmarks/setup_hta.sh`` puts ``holistictraceanalysis==0.5.0`` in its own
venv (``$HTA_VENV``, default /tmp/htavenv). Then::

    .venv/bin/python benchmarks/bench_import.py            # fixtures + synthetic 1 GB trace
    .venv/bin/python benchmarks/bench_import.py --no-big   # fixtures only
    .venv/bin/python benchmarks/bench_import.py --big-gb 0.2

Each measurement runs in a fresh subprocess that reports its wall time for the work (module imports
excluded, everything the call imports lazily included) and its peak RSS (``ru_maxrss``, imports
included: the memory the job needs); each is repeated ``--repeat`` times (default 3) and the minimum
kept (``--stat median`` for the median), the same for both tools: on a shared machine the other jobs
only ever add time. rooftop's sources are byte-compiled first (``compileall``), as a
wheel install does: with PYTHONDONTWRITEBYTECODE set, every lazily imported module would otherwise
be compiled from source inside the timed call (HTA's venv was byte-compiled by pip). HTA does
``TraceAnalysis(trace_dir)`` + ``get_temporal_breakdown`` + ``get_comm_comp_overlap``; rooftop does
``import_path`` (parse, joins, timeline, steps, points, findings). Targets (issue #5): ≥ 5× faster
and ≤ ½ the memory of HTA; the synthetic trace (written to /tmp, deleted after) streamed with a
peak RSS under 1 GB. The load average is printed before and after. No assertions: the script
prints the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "data" / "hta-traces"
HTA_PY = Path(os.environ.get("HTA_VENV", "/tmp/htavenv")) / "bin" / "python"
STAT = "min"  # --stat: min (default) or median of the repeated runs, the same for both tools

CHILD_PRELUDE = """
import json, resource, sys, time
def report(work):
    # cold: the first call in a fresh process (lazy imports included); peak RSS is read right after it.
    # warm: the same call again in the same process (one-time costs paid), unless argv[2] == "once".
    t0 = time.perf_counter()
    extra = work() or {}
    out = {"time_s": time.perf_counter() - t0,
           "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
    if sys.argv[2:] != ["once"]:
        t1 = time.perf_counter()
        work()
        out["warm_s"] = time.perf_counter() - t1
    print(json.dumps({**out, **extra}))
"""

ROOFTOP_CHILD = (
    CHILD_PRELUDE
    + """
from rooftop.api.ingest import import_path
def work():
    run = import_path(sys.argv[1])
    return {"kernels": sum(r.extra.get("timeline", {}).get("kernels", 0) for r in run.results)}
report(work)
"""
)

HTA_CHILD = (
    CHILD_PRELUDE
    + """
import logging
logging.disable(logging.CRITICAL)
from hta.trace_analysis import TraceAnalysis
def work():
    analyzer = TraceAnalysis(trace_dir=sys.argv[1])
    analyzer.get_temporal_breakdown(visualize=False)
    try:
        analyzer.get_comm_comp_overlap(visualize=False)
    except Exception:  # HTA 0.5.0 fails on single-rank folders whose rank is not 0
        pass
report(work)
"""
)


def measure(python: str, code: str, path: Path, env: dict[str, str] | None = None,
            repeat: int = 1, once: bool = False) -> dict[str, float] | str:  # fmt: skip
    """Time and peak RSS (each the min or median, --stat) of ``repeat`` fresh runs, or the first error text."""
    runs = []
    for _ in range(repeat):
        one = measure_once(python, code, path, env, once)
        if isinstance(one, str):
            return one
        runs.append(one)
    pick = (lambda xs: min(xs)) if STAT == "min" else (lambda xs: sorted(xs)[len(xs) // 2])
    return {key: pick([r[key] for r in runs]) for key in runs[0]}


def measure_once(python: str, code: str, path: Path, env: dict[str, str] | None = None,
                 once: bool = False) -> dict[str, float] | str:  # fmt: skip
    """Run ``code`` on ``path`` in a fresh interpreter; its JSON line, or the error text."""
    argv = [python, "-c", code, str(path), *(["once"] if once else [])]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=3600,
                          env={**os.environ, **(env or {})})  # fmt: skip
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        return lines[-1][:120] if lines else f"exit {proc.returncode}"
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def rooftop_env() -> dict[str, str]:
    return {"PYTHONPATH": str(REPO / "src")}


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} CPUs"


def fixtures(repeat: int) -> None:
    head = ("cold: ours", "HTA", "speed-up", "warm: ours", "HTA", "speed-up", "ours MB", "HTA MB", "mem ratio")
    print(f"{'fixture (seconds)':30} " + " ".join(f"{h:>10}" for h in head))
    cold, warm, memory = [], [], []
    for trace in sorted(FIXTURES.glob("*.json.gz")):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            shutil.copy(trace, folder / trace.name)  # HTA reads folders of per-rank traces
            ours = measure(sys.executable, ROOFTOP_CHILD, folder, rooftop_env(), repeat)
            theirs = measure(str(HTA_PY), HTA_CHILD, folder, repeat=repeat) if HTA_PY.exists() else "HTA venv missing"
        if isinstance(ours, str) or isinstance(theirs, str):
            print(f"{trace.name:30} failed: rooftop: {ours if isinstance(ours, str) else 'ok'}; HTA: {theirs}")
            continue
        c, w = theirs["time_s"] / ours["time_s"], theirs["warm_s"] / ours["warm_s"]
        m = ours["peak_rss_bytes"] / theirs["peak_rss_bytes"]
        cold.append(c)
        warm.append(w)
        memory.append(m)
        print(f"{trace.name:30} {ours['time_s']:10.3f} {theirs['time_s']:10.3f} {c:9.1f}x {ours['warm_s']:10.3f} "
              f"{theirs['warm_s']:10.3f} {w:9.1f}x {ours['peak_rss_bytes'] / 2**20:10.0f} "
              f"{theirs['peak_rss_bytes'] / 2**20:10.0f} {m:10.2f}")  # fmt: skip
    if cold:
        geo = lambda xs: float(__import__("math").prod(xs) ** (1 / len(xs)))  # noqa: E731
        print(f"geometric mean: rooftop is {geo(cold):.1f}x faster than HTA cold (slowest fixture {min(cold):.1f}x) "
              f"and {geo(warm):.1f}x warm (slowest {min(warm):.1f}x); target >= 5x")  # fmt: skip
        print(f"memory: {geo(memory):.2f} of HTA's peak RSS (geometric mean; largest {max(memory):.2f}); target <= 0.5")


KERNEL_NAMES = [
    "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(Params)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>(int)",
    "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>>(Params)",
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
]


def write_synthetic(path: Path, target_bytes: int) -> int:
    """A Kineto-shaped trace of ~target_bytes: per step, an op + launch + kernel triple, repeated."""
    kernels = 0
    with path.open("w") as f:
        f.write('{"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 8}, "traceEvents": [\n')
        ts, corr, written = 1_700_000_000_000.0, 0, 0
        while written < target_bytes:
            corr += 1
            name = KERNEL_NAMES[corr % len(KERNEL_NAMES)]
            dims = '"Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"], '
            chunk = (
                f'{{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, '
                f'"ts": {ts:.3f}, "dur": 12.5, '
                f'"args": {{"External id": {corr}, {dims}"Sequence number": {corr}}}}},\n'
                f'{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, '
                f'"ts": {ts + 2:.3f}, "dur": 5.25, '
                f'"args": {{"External id": {corr}, "cbid": 211, "correlation": {corr}}}}},\n'
                f'{{"ph": "s", "id": {corr}, "pid": 1, "tid": 1, "ts": {ts + 2:.3f}, "cat": "ac2g", "name": "ac2g"}},\n'
                f'{{"ph": "X", "cat": "kernel", "name": "{name}", "pid": 0, "tid": 7, '
                f'"ts": {ts + 9:.3f}, "dur": 7.125, '
                f'"args": {{"External id": {corr}, "queued": 0, "device": 0, "context": 1, "stream": 7, '
                f'"correlation": {corr}, "registers per thread": 168, "shared memory": 81920, "grid": [132, 1, 1], '
                f'"block": [256, 1, 1], "est. achieved occupancy %": 12}}}},\n'
            )  # fmt: skip
            f.write(chunk)
            written += len(chunk)
            kernels += 1
            ts += 20.0
        f.write('{"ph": "X", "cat": "Trace", "name": "end", "pid": "Spans", "tid": "x", "ts": 0, "dur": 1}\n]}\n')
    return kernels


def big(gigabytes: float) -> None:
    path = Path(tempfile.gettempdir()) / "rooftop_bench_synthetic_trace.json"
    try:
        kernels = write_synthetic(path, int(gigabytes * 1e9))
        size = path.stat().st_size
        ours = measure(sys.executable, ROOFTOP_CHILD, path, rooftop_env(), once=True)
        if isinstance(ours, str):
            print(f"synthetic trace: rooftop failed: {ours}")
            return
        print(f"synthetic trace {size / 1e9:.2f} GB, {kernels:,} kernels: {ours['time_s']:.1f} s "
              f"({size / 1e6 / ours['time_s']:.0f} MB/s), peak RSS {ours['peak_rss_bytes'] / 2**20:.0f} MiB = "
              f"{ours['peak_rss_bytes'] / size:.2f} x the file (target < 1 GB)")  # fmt: skip
    finally:
        path.unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-big", action="store_true", help="skip the synthetic trace")
    parser.add_argument("--big-gb", type=float, default=1.0, help="size of the synthetic trace (GB, decimal)")
    parser.add_argument("--repeat", type=int, default=3, help="fresh runs per measurement")
    parser.add_argument("--stat", choices=("min", "median"), default="min", help="statistic of the repeated runs")
    args = parser.parse_args()
    global STAT
    STAT = args.stat
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "src" / "rooftop")], check=True)
    print(f"{load_average()}; {args.stat} of {args.repeat} fresh runs per measurement")
    fixtures(args.repeat)
    if not args.no_big:
        big(args.big_gb)
    print(load_average())


if __name__ == "__main__":
    main()
