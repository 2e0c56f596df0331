"""Arrival processes: when each request is sent, as offsets in seconds from the start.

Gamma inter-arrivals follow ``vllm bench serve``: shape = burstiness b, scale = 1/(rate·b), so
b = 1 is Poisson, b → ∞ a constant interval and b < 1 burstier traffic; the gaps are then
rescaled so the schedule lasts exactly n/rate (no seed-to-seed drift in the offered load).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from rooftop.errors import WorkloadError

KINDS = ("poisson", "gamma", "constant")
MAX_SCHEDULE_S = 86400.0  # a schedule longer than a day is a typo (--rate 1e-9), not a benchmark


def check_schedule(offsets: NDArray[np.float64], where: str) -> NDArray[np.float64]:
    """Offsets must be finite, non-negative and end within MAX_SCHEDULE_S (the run would sleep for ever)."""
    if offsets.size and not (np.all(np.isfinite(offsets)) and offsets.min() >= 0):
        raise WorkloadError(f"{where}: send times must be finite and non-negative")
    if offsets.size and offsets.max() > MAX_SCHEDULE_S:
        raise WorkloadError(
            f"{where}: the last request would leave after {offsets.max():.3g} s "
            f"(at most {MAX_SCHEDULE_S:g} s = one day of schedule)"
        )
    return offsets


def arrivals(n: int, rate: float, kind: str = "poisson", burstiness: float = 1.0, seed: int = 0) -> NDArray[np.float64]:
    """Send offsets (s) of ``n`` requests at ``rate`` req/s; rate = inf sends all at t = 0."""
    if n < 1:
        raise WorkloadError(f"requests must be ≥ 1, got {n}")
    if not rate > 0:
        raise WorkloadError(f"rate must be > 0 req/s, got {rate}")
    if (n - 1) / rate > MAX_SCHEDULE_S:
        raise WorkloadError(
            f"rate {rate:g} req/s: {n} requests would take {(n - 1) / rate:.3g} s to send "
            f"(at most {MAX_SCHEDULE_S:g} s = one day)"
        )
    if kind not in KINDS:
        raise WorkloadError(f"arrival kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if math.isinf(rate):
        return np.zeros(n)
    if kind == "constant":
        return np.arange(n, dtype=np.float64) / rate
    shape = 1.0 if kind == "poisson" else burstiness
    if not 0 < shape < math.inf:
        raise WorkloadError(f"burstiness must be finite and > 0, got {burstiness}")
    gaps = np.random.default_rng(seed).gamma(shape, 1.0 / (rate * shape), size=n)
    gaps[0] = 0.0  # the first request goes at t = 0
    offsets = np.cumsum(gaps)
    if n > 1 and offsets[-1] > 0:
        offsets *= ((n - 1) / rate) / offsets[-1]
    return offsets


def from_trace(path: str | Path) -> NDArray[np.float64]:
    """Offsets from a trace file: one timestamp (s) per line, or JSONL with a 'timestamp' key."""
    p = Path(path)
    try:
        lines = [ln.strip() for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
    except OSError as exc:
        raise WorkloadError(f"{p}: cannot read trace: {exc.strerror}") from exc
    stamps = []
    for i, line in enumerate(lines, 1):
        try:
            value = json.loads(line)
            stamps.append(float(value["timestamp"] if isinstance(value, dict) else value))
        except (ValueError, KeyError, TypeError):
            raise WorkloadError(f"{p}:{i}: not a timestamp: {line[:60]!r}") from None
    if not stamps:
        raise WorkloadError(f"{p}: empty trace")
    arr = np.sort(np.asarray(stamps, dtype=np.float64))
    if not np.all(np.isfinite(arr)):
        raise WorkloadError(f"{p}: non-finite timestamp")
    out: NDArray[np.float64] = arr - arr[0]
    return check_schedule(out, str(p))
