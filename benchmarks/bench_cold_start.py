"""Cold start: `rooftop import` of a small trace (< 1 MB) against HTA, each as a whole process, side by side.

What a user waits for from pressing Enter to the prompt coming back, start-up imports included:

* rooftop: ``rooftop import TRACE --json``, the console script beside this Python (output to
  /dev/null; ``python -m rooftop`` where it is not installed);
* HTA 0.5.0 (its own venv, ``bash benchmarks/setup_hta.sh``), twice, as a ``python -c`` that builds
  ``TraceAnalysis(trace_dir=FOLDER)`` and then
  - ``HTA``: its temporal breakdown only (busy, idle, compute time per step): the least HTA
    computes of what ``rooftop import`` reports, so the hardest comparison for rooftop;
  - ``HTA-same``: the five analyses that give what ``rooftop import`` reports of a trace: the
    temporal breakdown; the idle-time breakdown (rooftop: each gap's cause, host, copy, sync);
    the communication/computation overlap (rooftop: NCCL time and its overlap with compute);
    the GPU kernel breakdown (rooftop: time per kernel class, per stream); the CUDA launch
    statistics (rooftop: launch delay, kernels shorter than their launch). rooftop's roofline
    points (FLOPs and bytes per operator) have no HTA counterpart and are not asked of it.

hyperfine-like: ``--warmup`` runs of each first (default 2: the page cache and byte-code caches
are warm, as for a user's second run), then ``--runs`` (default 10) rounds of one run of each
tool, in a shuffled order each round (seeded), so all see the same machine load and none always
follows the same neighbour; mean ± standard deviation, min, and the ratio of means
with its 95 % bootstrap interval (pairs of interleaved runs resampled: the target is met when the
whole interval clears it; a machine whose speed drifts needs more runs to decide) and of minima
(the minimum is the least disturbed by other jobs on a shared machine), both for CPU time
(user + sys of the child, from the kernel's rusage: what a loaded machine disturbs least) and
for wall time (what a user waits for). rooftop's sources are byte-compiled first, as a wheel
install does. Target (issue 14): ≥ 5x faster. The summary gives each trace's file size and its
size as JSON, since a "< 1 MB" trace may mean either (a gzipped trace holds ~10x its size).

    .venv/bin/python benchmarks/bench_cold_start.py            # four traces, 25 kB to 750 kB, and a summary
    .venv/bin/python benchmarks/bench_cold_start.py --trace tests/data/hta-traces/alexnet_a100.json.gz --runs 20

The rooftop timed is the console script beside the Python that runs this file. Run it with the
Python of a plain install to time rooftop as ``pip install rooftop`` gives it, without the
development extras (msgspec imports typing_extensions when it is installed) or the editable
install's path entry (the sources are still the working tree's, through PYTHONPATH):

    python3 -m venv /tmp/rooftop-user && /tmp/rooftop-user/bin/pip install .
    env -u PYTHONDONTWRITEBYTECODE /tmp/rooftop-user/bin/python benchmarks/bench_cold_start.py --runs 20

The third row, ``floor``, is a Python that only imports numpy, click and msgspec (what rooftop is
built on): its ratio to HTA is the most any ``rooftop import`` could reach on this machine.

Find what start-up imports cost with ``python -X importtime -m rooftop import TRACE``.
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
DEFAULT_TRACES = [  # HTA reads each; 25 kB to 750 kB
    DATA / "hta-traces" / "alexnet_a100.json.gz",
    DATA / "hta-traces" / "sampled_rank-0.json.gz",
    DATA / "kineto-generations" / "torch19_resnet50_2steps.json.gz",
    DATA / "hta-traces" / "nccl_data.json.gz",
]
TARGET = 5.0  # issue 14: at least 5x faster than HTA as a whole process
HTA_PY = Path(os.environ.get("HTA_VENV", "/tmp/htavenv")) / "bin" / "python"
# What no `rooftop import` can start faster than: the interpreter and the libraries it is built on,
# imported as its CLI imports them (OpenBLAS held to one thread, as cli/main.py does for `import`).
FLOOR_CODE = "import numpy, click, msgspec"
HTA_CODE = (
    "import logging, sys; logging.disable(logging.CRITICAL)\n"
    "from hta.trace_analysis import TraceAnalysis\n"
    "TraceAnalysis(trace_dir=sys.argv[1]).get_temporal_breakdown(visualize=False)\n"
)
HTA_SAME_CODE = (  # what `rooftop import` reports of a trace's timeline, asked of HTA (the docstring's list)
    "import logging, sys, warnings; logging.disable(logging.CRITICAL); warnings.simplefilter('ignore')\n"
    "from hta.trace_analysis import TraceAnalysis\n"
    "analysis = TraceAnalysis(trace_dir=sys.argv[1])\n"
    "analysis.get_temporal_breakdown(visualize=False)\n"
    "analysis.get_idle_time_breakdown(visualize=False)\n"
    "analysis.get_comm_comp_overlap(visualize=False)\n"
    "analysis.get_gpu_kernel_breakdown(visualize=False)\n"
    "analysis.get_cuda_kernel_launch_stats(visualize=False)\n"
)
PEERS = ("HTA", "HTA-same")


def once(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall s, CPU s: user + sys of the child, minor page faults), from the kernel's rusage."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, timeout=600)
    took = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} failed: {proc.stderr.strip().splitlines()[-1:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu, after.ru_minflt - before.ru_minflt


def describe(name: str, xs: list[float]) -> str:
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return f"{name:8} {statistics.mean(xs) * 1e3:8.0f} ms ± {sd * 1e3:5.0f}   min {min(xs) * 1e3:6.0f} ms"


def measure(trace: Path, runs: int, warmup: int) -> dict[str, list[tuple[float, float, int]]]:
    """(wall, CPU, page faults) of each interleaved run of rooftop, both HTA runs and the floor on one trace."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="rooftop-cold-") as tmp:
        folder = Path(tmp)
        shutil.copy(trace, folder / trace.name)  # HTA reads folders of per-rank traces
        script = Path(sys.executable).with_name("rooftop")  # what users type; `-m` adds runpy's imports
        command = [str(script)] if script.exists() else [sys.executable, "-m", "rooftop"]
        argvs = {
            "rooftop": ([*command, "import", str(folder / trace.name), "--json"], env),
            "HTA": ([str(HTA_PY), "-c", HTA_CODE, str(folder)], dict(os.environ)),
            "HTA-same": ([str(HTA_PY), "-c", HTA_SAME_CODE, str(folder)], dict(os.environ)),
            "floor": ([sys.executable, "-c", FLOOR_CODE], {**env, "OPENBLAS_NUM_THREADS": "1"}),
        }
        for _ in range(warmup):
            for argv, tool_env in argvs.values():
                once(argv, tool_env)
        times: dict[str, list[tuple[float, float, int]]] = {tool: [] for tool in argvs}
        rng = random.Random(0)
        for _ in range(runs):
            order = list(argvs)
            rng.shuffle(order)  # no tool always runs after the same one (HTA leaves both cores warm)
            for tool in order:
                times[tool].append(once(*argvs[tool]))
    return times


def ratio_interval(mine: list[float], theirs: list[float], draws: int = 2000) -> tuple[float, float]:
    """95 % bootstrap interval of mean(theirs) / mean(mine), resampling the interleaved runs in pairs.

    Run i of each tool ran in the same round, under the same load, so a pair is resampled whole
    (fixed seed: the same runs give the same interval).
    """
    rng = random.Random(0)
    n = len(mine)
    pairs = list(zip(mine, theirs, strict=True))
    found = []
    for _ in range(draws):
        sample = rng.choices(pairs, k=n)
        found.append(sum(t for _, t in sample) / sum(m for m, _ in sample))
    found.sort()
    return found[int(0.025 * draws)], found[int(0.975 * draws) - 1]


def verdict(low: float, high: float, target: float = TARGET) -> str:
    """Whether the interval clears the target: met, not met, or not decided at this noise."""
    if low >= target:
        return f"target >= {target:g}x met"
    if high < target:
        return f"target >= {target:g}x not met"
    return f"target >= {target:g}x within the noise (more --runs)"


Ratio = tuple[float, float, float]  # a peer's mean / rooftop's, and its 95 % interval


def report(trace: Path, runs: int, times: dict[str, list[tuple[float, float, int]]]) -> dict[str, tuple[Ratio, Ratio]]:
    """Print one trace's numbers; per HTA run, its (CPU, wall) ratios of means to rooftop's, with intervals."""
    la = os.getloadavg()
    print(f"{trace.name} ({trace.stat().st_size / 1e3:.0f} kB; {text_size(trace) / 1e6:.2f} MB of JSON)")
    print(f"{runs} runs each, interleaved in shuffled order; {os.cpu_count()} CPUs, "
          f"load average {la[0]:.2f} {la[1]:.2f} {la[2]:.2f}")  # fmt: skip
    ratios: dict[str, list[Ratio]] = {peer: [] for peer in PEERS}
    for i, what in ((1, "CPU (user + sys)"), (0, "wall")):
        print(f"{what}:")
        column = {tool: [x[i] for x in runs_] for tool, runs_ in times.items()}
        for tool in ("rooftop", *PEERS, "floor"):
            print(describe(tool, column[tool]))
        mine = column["rooftop"]
        for peer in PEERS:
            theirs = column[peer]
            ratio, (low, high) = statistics.mean(theirs) / statistics.mean(mine), ratio_interval(mine, theirs)
            ratios[peer].append((ratio, low, high))
            print(f"{peer} / rooftop: {ratio:.1f}x (means; 95% interval {low:.1f}-{high:.1f}x)")
            print(f"  {verdict(low, high)}; {min(theirs) / min(mine):.1f}x (minima)")
        least = statistics.mean(column["floor"])
        print(f"  the floor alone: {statistics.mean(column['HTA']) / least:.1f}x HTA (means)")
    # Page faults are system time; a jump here is memory touched anew (CPython's frame-stack chunks
    # mapped and unmapped at a boundary were 1,440 of them: docs/import.md).
    faults = {tool: statistics.median(x[2] for x in times[tool]) for tool in times}
    print("minor faults (medians): " + ", ".join(f"{tool} {n:,.0f}" for tool, n in faults.items()))
    return {peer: (cpu, wall) for peer, (cpu, wall) in ratios.items()}


def text_size(trace: Path) -> int:
    """Bytes of JSON in ``trace`` (decompressed when gzipped): "< 1 MB" may mean either size."""
    if trace.suffix != ".gz":
        return trace.stat().st_size
    with gzip.open(trace) as f:
        return sum(len(block) for block in iter(lambda: f.read(1 << 20), b""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trace", type=Path, action="append", help="a trace (repeat for several; default: four)")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    args = ap.parse_args()
    traces = args.trace or DEFAULT_TRACES
    for trace in traces:
        if trace.stat().st_size >= 1 << 20:
            print(f"note: {trace.name} is {trace.stat().st_size / 2**20:.1f} MiB (the target is about < 1 MB)")
    if not HTA_PY.exists():
        raise SystemExit(f"HTA venv missing at {HTA_PY}: bash benchmarks/setup_hta.sh")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "src")], check=False)
    summary = []
    for trace in traces:
        summary.append((trace, report(trace, args.runs, measure(trace, args.runs, args.warmup))))
        print()
    for peer in PEERS:
        print(f"{peer} / rooftop, means and 95% intervals (target >= {TARGET:g}x); file and JSON sizes")
        print(f"{'trace':26} {'file':>6} {'JSON':>7}  {'CPU ratio':>16}  {'wall ratio':>16}")
        for trace, ratios in summary:
            cells = [f"{r:.1f}x ({lo:.1f}-{hi:.1f})" for r, lo, hi in ratios[peer]]
            name = trace.name.removesuffix(".gz").removesuffix(".json")[:26]
            print(f"{name:26} {trace.stat().st_size / 1e3:3.0f} kB {text_size(trace) / 1e6:4.1f} MB"
                  f"  {cells[0]:>16}  {cells[1]:>16}")  # fmt: skip
        print()


if __name__ == "__main__":
    main()
