"""Check saved profile runs the way issue 15 asks, and print the roofs beside a datasheet.

    python benchmarks/gpu_verify.py roofs.json --datasheet h200-sxm
    python benchmarks/gpu_verify.py profile-1b.json profile-8b.json

For every result of every run: matmul FLOPs from shapes / FlopCounterMode's (must be 1.0000),
the share of the step accounted by named operators + gaps (must be >= 90 %), and every measured
point whose achieved rate is above its roof at its intensity by more than that roof's measured
spread (must be none). Exit 1 when a check fails, so the device script can say so in its log.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def roof_at(hw: dict[str, Any], op: dict[str, Any]) -> tuple[float, str]:
    """The attainable rate (FLOP/s, or B/s for ops with no FLOPs) of ``op`` and the roof that sets it."""
    bw = hw["memory"].get(op.get("level") or "hbm") or hw["memory"]["hbm"]
    level = op.get("level") or "hbm"
    if not op["flops"]:
        return bw, f"memory.{level}"
    peak = hw["compute"].get(op.get("dtype") or "") or max(hw["compute"].values())
    intensity = op["flops"] / op["bytes"] if op["bytes"] else float("inf")
    if bw * intensity < peak:
        return bw * intensity, f"memory.{level}"
    return peak, f"compute.{op.get('dtype')}"


def check_run(path: Path) -> list[str]:
    """Print one line per result and per point above its roof; return the failures."""
    run = json.loads(path.read_text())
    hw = run["hardware"]
    failures: list[str] = []
    for result in run["results"]:
        wl, prof = result["workload"], result.get("profile") or {}
        spread = prof.get("roof_spread") or hw.get("identity", {}).get("spread") or {}
        label = f"{path.name} {wl.get('phase')} b{wl.get('batch')}"
        ratio, accounted = prof.get("flop_counter_ratio"), prof.get("accounted_share")
        print(
            f"{label}: step {prof.get('step_time_s', 0) * 1e3:.3f} ms, gaps {prof.get('gap_share', 0):.1%}, "
            f"accounted {accounted:.1%}, matmul FLOPs / FlopCounterMode = {ratio:.4f}"
        )
        if ratio is None or abs(ratio - 1) > 1e-4:
            failures.append(f"{label}: FLOP ratio {ratio}")
        if accounted is None or accounted < 0.90:
            failures.append(f"{label}: accounted {accounted}")
        for op in result["ops"]:
            if op.get("source") != "measured" or not op.get("time_s") or not op["bytes"]:
                continue
            roof, which = roof_at(hw, op)
            achieved = (op["flops"] or op["bytes"]) / op["time_s"]
            limit = 1 + float(spread.get(which) or 0)
            if achieved / roof > limit:
                failures.append(
                    f"{label}: {op['name']} at {achieved / roof:.0%} of {which} "
                    f"(spread {limit - 1:.1%}, {op['bytes']:.3g} B, {op['time_s'] * 1e6:.1f} us)"
                )
    return failures


def datasheet(roofs_path: Path, device: str) -> None:
    """Measured roofs beside the catalog's datasheet peaks for ``device``."""
    from rooftop.hardware.catalog import get_roofs

    measured = json.loads(roofs_path.read_text())
    sheet = get_roofs(device)
    peaks = {
        "compute": {r.dtype: r.flop_per_s for r in sheet.compute},
        "memory": {r.level: r.bytes_per_s for r in sheet.memory},
    }
    print(f"{'roof':14} {'measured':>14} {'datasheet':>14} {'ratio':>7}  spread")
    spread = measured.get("identity", {}).get("spread", {})
    for group, unit in (("compute", 1e12), ("memory", 1e12)):
        for name, value in measured[group].items():
            ref = peaks[group].get(name)
            ratio = f"{value / ref:.2f}" if ref else "—"
            ref_text = f"{ref / unit:.1f}" if ref else "—"
            tag = "TFLOP/s" if group == "compute" else "TB/s"
            print(
                f"{group}.{name:8} {value / unit:9.1f} {tag:4} {ref_text:>9} {tag:4} {ratio:>6}  "
                f"{spread.get(f'{group}.{name}', 0):.1%}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--datasheet", help="treat the one path as `rooftop roofs measure --json` of this device")
    args = parser.parse_args()
    if args.datasheet:
        datasheet(args.runs[0], args.datasheet)
        return 0
    failures = [f for path in args.runs for f in check_run(path)]
    for f in failures:
        print(f"FAIL {f}")
    print("all checks passed" if not failures else f"{len(failures)} check(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
