"""Cut a `rooftop profile` torch trace down to its first steps, for a test fixture.

    python scripts/trim_trace.py IN.json.gz OUT.json.gz [--decode-steps 2]

Keeps the metadata events and every event that starts between the prefill step's start and the
end of decode step N-1 (plus 5 ms, so the last step's kernels and their launches stay), with
the trace's top-level keys; the step ranges after the last one kept are dropped (their kernels
may stay). Events are copied, never rewritten.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

STEP = "rooftop::step::"


def _is_step(event: dict) -> bool:
    return str(event.get("name", "")).startswith(STEP)


def trim(trace: dict, decode_steps: int) -> dict:
    events = trace["traceEvents"]
    steps = {
        e["name"]: e for e in events if str(e.get("name", "")).startswith(STEP) and e.get("cat") == "user_annotation"
    }
    start = steps[f"{STEP}prefill::0"]["ts"]
    last = steps[f"{STEP}decode::{decode_steps - 1}"]
    end = last["ts"] + last["dur"] + 5000
    kept = [
        e
        for e in events
        if e.get("ph") == "M"
        or ("ts" in e and start <= float(e["ts"]) <= end and not (_is_step(e) and float(e["ts"]) > last["ts"]))
    ]
    return {**trace, "traceEvents": kept}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("src", type=Path)
    parser.add_argument("dst", type=Path)
    parser.add_argument("--decode-steps", type=int, default=2)
    args = parser.parse_args()
    with gzip.open(args.src, "rt", encoding="utf-8") as f:
        trace = json.load(f)
    out = trim(trace, args.decode_steps)
    with gzip.open(args.dst, "wt", encoding="utf-8") as f:
        json.dump(out, f, separators=(",", ":"))
    print(f"{args.dst}: {len(out['traceEvents']):,} of {len(trace['traceEvents']):,} events")


if __name__ == "__main__":
    main()
