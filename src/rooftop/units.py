"""SI units: the only place where 1e9, 1e12 and 2**30 appear.

Inside rooftop every quantity is held in SI base units (FLOP, byte, second, FLOP/s, B/s) in a
float whose name carries the unit. TB/s and TFLOP/s are decimal (1e12); GiB is 2**30 and is
named so. Conversion happens here and at display only.
"""

from __future__ import annotations

import re

from rooftop.errors import WorkloadError

KILO = 1e3
MEGA = 1e6
GIGA = 1e9
TERA = 1e12
PETA = 1e15
KIB = 2**10
MIB = 2**20
GIB = 2**30
MICRO = 1e-6  # µs -> s (Kineto ts/dur)
NANO = 1e-9  # ns -> s (Nsight exports)

_PREFIX = {"": 1.0, "k": KILO, "K": KILO, "M": MEGA, "G": GIGA, "T": TERA, "P": PETA}
_BINARY = {"Ki": KIB, "Mi": MIB, "Gi": GIB, "Ti": 2.0**40}
_TIME = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "min": 60.0}
_QUANTITY = re.compile(r"^\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-zµ/]*)\s*$")
# Greatest accepted rates and durations: ~1,000x any device or run of today, far below overflow.
MAX_BYTES_PER_S = 1e18
MAX_FLOP_PER_S = 1e21
MAX_SECONDS = 1e9
MAX_TOKENS = 1 << 24  # sequences in a batch, tokens in a prompt or context: 16,777,216


def _positive(value: float, text: str, what: str, high: float) -> float:
    """``value`` if finite, > 0 and <= ``high``; else one-line WorkloadError naming the text."""
    if not 0 < value <= high:  # NaN and inf fail too
        raise WorkloadError(f"{what} {text!r}: must be a finite number > 0 and at most {high:g}")
    return value


def _split(text: str) -> tuple[float, str]:
    match = _QUANTITY.match(text)
    if not match:
        raise WorkloadError(f"not a quantity: {text!r}")
    return float(match.group(1)), match.group(2)


def parse_seconds(text: str) -> float:
    """Parse a duration with a unit: '500ms' -> 0.5, '2 s' -> 2.0. A bare number is refused."""
    value, unit = _split(text)
    if unit not in _TIME:
        raise WorkloadError(f"duration {text!r} needs a unit: one of {', '.join(_TIME)}")
    return _positive(value * _TIME[unit], text, "duration", MAX_SECONDS)


def parse_bytes_per_s(text: str) -> float:
    """Parse a bandwidth: '3.35TB/s' -> 3.35e12, '900 GB/s' -> 9e11, '2 TiB/s'. Bare number = TB/s."""
    value, unit = _split(text)
    if unit == "":
        return _positive(value * TERA, text, "bandwidth", MAX_BYTES_PER_S)
    m = re.fullmatch(r"(Ki|Mi|Gi|Ti|[kKMGTP]?)B/s", unit)
    if not m:
        raise WorkloadError(f"bandwidth {text!r}: unit must look like TB/s or GB/s")
    prefix = m.group(1)
    return _positive(
        value * (_BINARY[prefix] if prefix in _BINARY else _PREFIX[prefix]), text, "bandwidth", MAX_BYTES_PER_S
    )


def parse_flop_per_s(text: str) -> float:
    """Parse a compute rate: '989.4 TFLOP/s' -> 9.894e14, 'TFLOPS' too. Bare number = TFLOP/s."""
    value, unit = _split(text)
    if unit == "":
        return _positive(value * TERA, text, "compute rate", MAX_FLOP_PER_S)
    m = re.fullmatch(r"([kKMGTP]?)(FLOP/s|FLOPS|FLOPs|OPS|OP/s)", unit)
    if not m:
        raise WorkloadError(f"compute rate {text!r}: unit must look like TFLOP/s")
    return _positive(value * _PREFIX[m.group(1)], text, "compute rate", MAX_FLOP_PER_S)


def si(value: float, unit: str, digits: int = 3) -> str:
    """Format with a decimal SI prefix: si(3.35e12, 'B/s') -> '3.35 TB/s'."""
    if value != value:  # NaN
        return "—"
    if value == 0:
        return f"0 {unit}"
    rounds_up = 1 - 5 * 10.0 ** -(digits + 1)  # 999.5 G prints as 1 T, never '1e+03 G'
    for prefix, scale in (("P", PETA), ("T", TERA), ("G", GIGA), ("M", MEGA), ("k", KILO)):
        if abs(value) >= scale * rounds_up:
            return f"{value / scale:.{digits}g} {prefix}{unit}"
    if abs(value) < 1 and unit == "s":
        return seconds(value)
    return f"{value:.{digits}g} {unit}"


def seconds(value: float) -> str:
    """Format a duration: 0.0412 -> '41.2 ms'."""
    if value != value:
        return "—"
    for suffix, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if abs(value) >= scale * (1 - 5e-4):  # 999.7 µs prints as 1 ms, never '1e+03 µs'
            return f"{value / scale:.3g} {suffix}"
    return "0 s"


def gib(value_bytes: float) -> str:
    """Format a capacity in GiB (binary), named so."""
    return f"{value_bytes / GIB:.2f} GiB"
