"""The dtype table: bits and bytes per element, and which compute roof a dtype runs on.

int4 and fp4 are half a byte: bytes are floats here, never ``bits // 8``.
"""

from __future__ import annotations

import msgspec

from rooftop.errors import WorkloadError, did_you_mean, quoted


class DType(msgspec.Struct, frozen=True):
    """One numeric format: ``bits`` per element and the compute roof key it uses."""

    name: str
    bits: int
    compute_roof: str  # key into Roofs.compute; e.g. int4 weights dequantise to bf16 compute

    @property
    def bytes(self) -> float:
        """Bytes per element (0.5 for 4-bit formats)."""
        return self.bits / 8


DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        DType("fp64", 64, "fp64"),
        DType("fp32", 32, "fp32"),
        DType("tf32", 32, "tf32"),
        DType("bf16", 16, "bf16"),
        DType("fp16", 16, "fp16"),
        DType("fp8", 8, "fp8"),
        DType("fp8_e4m3", 8, "fp8"),
        DType("fp8_e5m2", 8, "fp8"),
        DType("int8", 8, "int8"),
        DType("int4", 4, "int4"),
        DType("fp4", 4, "fp4"),
    )
}
ALIASES = {
    "float32": "fp32",
    "float": "fp32",
    "bfloat16": "bf16",
    "float16": "fp16",
    "half": "fp16",
    "e4m3": "fp8_e4m3",
    "e5m2": "fp8_e5m2",
    "float8_e4m3fn": "fp8_e4m3",
    "float8_e5m2": "fp8_e5m2",
    "float64": "fp64",
}


def dtype(name: str) -> DType:
    """Look a dtype up by name or alias; unknown names raise WorkloadError with suggestions."""
    key = ALIASES.get(name.lower(), name.lower())
    if key not in DTYPES:
        raise WorkloadError(f"unknown dtype {quoted(name)}{did_you_mean(key, [*DTYPES, *ALIASES])}")
    return DTYPES[key]
