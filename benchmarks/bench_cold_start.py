"""Cold start: `rooftop import` of a small trace (< 1 MB) against HTA, each as a whole process, side by side.

What a user waits for from pressing Enter to the prompt coming back, start-up imports included:

* rooftop: ``rooftop import TRACE --json``, the console script beside this Python (output to
  /dev/null; ``python -m rooftop`` where it is not installed);
* HTA 0.5.0 (its own venv, ``bash benchmarks/setup_hta.sh``): a ``python -c`` that builds
  ``TraceAnalysis(trace_dir=FOLDER)`` and its temporal breakdown (what ``rooftop import`` reports).

hyperfine-like: ``--warmup`` runs of each first (default 2: the page cache and byte-code caches
are warm, as for a user's second run), then ``--runs`` (default 10) interleaved runs, rooftop then
HTA, so both see the same machine load; mean ± standard deviation, min, and the ratio of means
and of minima (the minimum is the least disturbed by other jobs on a shared machine), both for
CPU time (user + sys of the child, from the kernel's rusage: what a loaded machine disturbs
least, and the number the target is judged on) and for wall time. rooftop's
sources are byte-compiled first, as a wheel install does. Target (issue 14): ≥ 5x faster.

    .venv/bin/python benchmarks/bench_cold_start.py
    .venv/bin/python benchmarks/bench_cold_start.py --trace tests/data/hta-traces/alexnet_a100.json.gz --runs 20

The third row, ``floor``, is a Python that only imports numpy, click and msgspec (what rooftop is
built on): its ratio to HTA is the most any ``rooftop import`` could reach on this machine.

Find what start-up imports cost with ``python -X importtime -m rooftop import TRACE``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_TRACE = REPO / "tests" / "data" / "hta-traces" / "sampled_rank-0.json.gz"
HTA_PY = Path(os.environ.get("HTA_VENV", "/tmp/htavenv")) / "bin" / "python"
# What no `rooftop import` can start faster than: the interpreter and the libraries it is built on,
# imported as its CLI imports them (OpenBLAS held to one thread, as cli/main.py does for `import`).
FLOOR_CODE = "import numpy, click, msgspec"
HTA_CODE = (
    "import logging, sys; logging.disable(logging.CRITICAL)\n"
    "from hta.trace_analysis import TraceAnalysis\n"
    "TraceAnalysis(trace_dir=sys.argv[1]).get_temporal_breakdown(visualize=False)\n"
)


def once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s: user + sys of the child, from the kernel's rusage)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, timeout=600)
    took = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} failed: {proc.stderr.strip().splitlines()[-1:]}")
    return took, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def describe(name: str, xs: list[float]) -> str:
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return f"{name:8} {statistics.mean(xs) * 1e3:8.0f} ms ± {sd * 1e3:5.0f}   min {min(xs) * 1e3:6.0f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    args = ap.parse_args()
    size = args.trace.stat().st_size
    if size >= 1 << 20:
        print(f"note: {args.trace.name} is {size / 2**20:.1f} MiB (the target is about traces under 1 MB)")
    if not HTA_PY.exists():
        raise SystemExit(f"HTA venv missing at {HTA_PY}: bash benchmarks/setup_hta.sh")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "src")], check=False)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="rooftop-cold-") as tmp:
        folder = Path(tmp)
        shutil.copy(args.trace, folder / args.trace.name)  # HTA reads folders of per-rank traces
        script = Path(sys.executable).with_name("rooftop")  # what users type; `-m` adds runpy's imports
        command = [str(script)] if script.exists() else [sys.executable, "-m", "rooftop"]
        ours_argv = [*command, "import", str(folder / args.trace.name), "--json"]
        hta_argv = [str(HTA_PY), "-c", HTA_CODE, str(folder)]
        floor_argv = [sys.executable, "-c", FLOOR_CODE]
        floor_env = {**env, "OPENBLAS_NUM_THREADS": "1"}
        for _ in range(args.warmup):
            once(ours_argv, env)
            once(hta_argv, dict(os.environ))
        ours, hta, floor = [], [], []
        for _ in range(args.runs):
            ours.append(once(ours_argv, env))
            hta.append(once(hta_argv, dict(os.environ)))
            floor.append(once(floor_argv, floor_env))
    la = os.getloadavg()
    print(f"{args.trace.name} ({size / 1e3:.0f} kB), {args.runs} runs each, interleaved; "
          f"{os.cpu_count()} CPUs, load average {la[0]:.2f} {la[1]:.2f} {la[2]:.2f}")  # fmt: skip
    for i, what in ((1, "CPU (user + sys)"), (0, "wall")):
        print(f"{what}:")
        mine, theirs, least = [x[i] for x in ours], [x[i] for x in hta], [x[i] for x in floor]
        print(describe("rooftop", mine))
        print(describe("HTA", theirs))
        print(describe("floor", least))
        print(f"rooftop is {statistics.mean(theirs) / statistics.mean(mine):.1f}x faster (means), "
              f"{min(theirs) / min(mine):.1f}x (minima); target >= 5x; the floor alone: "
              f"{statistics.mean(theirs) / statistics.mean(least):.1f}x (means)")  # fmt: skip


if __name__ == "__main__":
    main()
