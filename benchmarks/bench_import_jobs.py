"""`rooftop import FOLDER --jobs N` on 64 synthetic ranks: wall time against 1 job and against HTA.

The 64 ranks are one real fixture trace (tests/data/hta-traces/, default sampled_rank-0.json.gz)
copied 64 times with its ``distributedInfo`` rank changed to 0..63 (world size 64), written to a
temporary folder and deleted after. Each tool runs as a whole process (start-up included), the
way a user runs it, ``--repeat`` times (default 3), minimum kept (on a shared machine the other
jobs only ever add time):

* rooftop: ``python -m rooftop import FOLDER --jobs N --json`` (parse, joins, timeline, steps,
  points, findings of every rank), for N in ``--jobs`` (default 1,2,4,8);
* HTA 0.5.0 (its own venv, ``bash benchmarks/setup_hta.sh``): ``TraceAnalysis(trace_dir=FOLDER)``
  (which parses the ranks with its own process pool) + ``get_temporal_breakdown``.

    .venv/bin/python benchmarks/bench_import_jobs.py
    .venv/bin/python benchmarks/bench_import_jobs.py --ranks 16 --jobs 1,2 --repeat 1

No assertions: the script prints the times and the ratios, with the load average and CPU count.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "data" / "hta-traces"
HTA_PY = Path(os.environ.get("HTA_VENV", "/tmp/htavenv")) / "bin" / "python"
HTA_CODE = (
    "import logging, sys; logging.disable(logging.CRITICAL)\n"
    "from hta.trace_analysis import TraceAnalysis\n"
    "TraceAnalysis(trace_dir=sys.argv[1]).get_temporal_breakdown(visualize=False)\n"
)


def make_ranks(fixture: Path, folder: Path, ranks: int) -> None:
    """``ranks`` copies of ``fixture``, rank ids 0..ranks-1."""
    with gzip.open(fixture, "rt", encoding="utf-8") as fh:
        trace = json.load(fh)
    for rank in range(ranks):
        info = dict(trace.get("distributedInfo") or {})
        info.update(rank=rank, world_size=ranks)
        trace["distributedInfo"] = info
        with gzip.open(folder / f"rank-{rank}.json.gz", "wt", encoding="utf-8", compresslevel=1) as out:
            json.dump(trace, out)


def wall(argv: list[str], env: dict[str, str] | None, repeat: int) -> float | str:
    """Minimum wall time of ``repeat`` whole-process runs, or the error's last line."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=3600)
        took = time.perf_counter() - t0
        if proc.returncode != 0:
            lines = proc.stderr.strip().splitlines()
            return lines[-1][:120] if lines else f"exit {proc.returncode}"
        best = min(best, took)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixture", default="sampled_rank-0.json.gz")
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--jobs", default="1,2,4,8")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-hta", action="store_true")
    args = ap.parse_args()
    la = os.getloadavg()
    print(f"{args.ranks} ranks of {args.fixture}; {os.cpu_count()} CPUs; load average {la[0]:.2f} {la[1]:.2f}")
    with tempfile.TemporaryDirectory(prefix="rooftop-ranks-") as tmp:
        folder = Path(tmp)
        make_ranks(FIXTURES / args.fixture, folder, args.ranks)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "src")], check=False)
        env = {"PYTHONPATH": str(REPO / "src")}
        times: dict[int, float] = {}
        for jobs in (int(j) for j in args.jobs.split(",")):
            argv = [sys.executable, "-m", "rooftop", "import", str(folder), "--jobs", str(jobs), "--json"]
            got = wall(argv, env, args.repeat)
            if isinstance(got, str):
                print(f"rooftop --jobs {jobs}: failed: {got}")
                continue
            times[jobs] = got
            speed = f"  {times[min(times)] / got:.2f}x vs --jobs {min(times)}" if jobs != min(times) else ""
            print(f"rooftop import --jobs {jobs:<3} {got:8.2f} s{speed}")
        if args.no_hta or not HTA_PY.exists():
            print("HTA: skipped (bash benchmarks/setup_hta.sh)")
            return
        hta = wall([str(HTA_PY), "-c", HTA_CODE, str(folder)], None, args.repeat)
        if isinstance(hta, str):
            print(f"HTA: failed: {hta}")
            return
        print(f"HTA TraceAnalysis + temporal breakdown {hta:8.2f} s")
        for jobs, t in times.items():
            print(f"  rooftop --jobs {jobs}: {hta / t:.1f}x faster than HTA")
    la = os.getloadavg()
    print(f"load average after: {la[0]:.2f} {la[1]:.2f}")


if __name__ == "__main__":
    main()
