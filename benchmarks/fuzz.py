"""The fuzz campaign of issue 11: mutate the real files in tests/data/ and drive every surface through the CLI.

Usage:
    python benchmarks/fuzz.py                  # bounded: 200 inputs per surface (what CI runs, smaller)
    python benchmarks/fuzz.py --long           # >= 10,000 inputs per surface
    python benchmarks/fuzz.py --surface trace --surface csv -n 500 --seed 3 --subprocess-every 50

Prints, per surface: inputs tried and the ok / unclear / crash / hang / wrong counts, then
examples of every class but ok (the arguments to reproduce them). Exit code 1 when any run
crashed, hung or gave a wrong result. Run from the repository root with src/ on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tests.fuzz.campaign import details, run, summary, table
from tests.fuzz.surfaces import SURFACES


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", action="store_true", help="10,000 inputs per surface")
    parser.add_argument("-n", type=int, help="inputs per surface (default 200; --long: 10000)")
    parser.add_argument("--surface", action="append", choices=sorted(SURFACES), help="only these surfaces")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--subprocess-every", type=int, default=0, help="also run every K-th input in a subprocess")
    parser.add_argument("--max-minutes", type=float, help="stop each surface after this long")
    parser.add_argument("--json", action="store_true", help="print the tallies as JSON")
    parser.add_argument("--progress", action="store_true", help="one line per non-ok input on stderr")
    opts = parser.parse_args()
    n = opts.n or (10_000 if opts.long else 200)
    surfaces = opts.surface or list(SURFACES)

    def report(surface: str, i: int, kind: str, reason: str, outcome: object) -> None:
        if opts.progress and (kind != "ok" or i % 500 == 0):
            print(f"{time.strftime('%H:%M:%S')} {surface} #{i}: {kind} {reason[:200]}", file=sys.stderr, flush=True)

    tallies = run(surfaces, n, opts.seed, opts.subprocess_every, report,
                  opts.max_minutes * 60 if opts.max_minutes else None)  # fmt: skip
    if opts.json:
        print(json.dumps(summary(tallies), indent=1))
    else:
        print(table(tallies))
        extra = details(tallies)
        if extra:
            print("\n" + extra)
    bad = sum(t.counts.get(c, 0) for t in tallies.values() for c in ("crash", "hang", "wrong"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
