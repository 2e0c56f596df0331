"""The ``rooftop.run/1`` artifact as typed, constrained structures, checked before it is read back.

``report``, ``compare`` and ``show`` take artifacts that may come from anywhere. An artifact with
the right schema tag but a wrong type inside (``Infinity`` where a number belongs, a number where
an object is expected, an op that is a string) is refused here in one line naming the file, the
field path and the value, instead of failing deep inside a renderer. The writer emits
non-finite numbers as null, so a null is accepted wherever a number may be undefined.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from rooftop.core.enums import Bound, Severity
from rooftop.core.schema import Count, Finite, FiniteNonNegative, FinitePositive, ShortText, convert
from rooftop.errors import RooftopError

Name = Annotated[str, msgspec.Meta(max_length=4096)]
Number = FiniteNonNegative | None  # null: undefined (no time, no bytes)
RoofKindName = Literal["datasheet", "theoretical", "measured"]
PhaseName = Literal["prefill", "decode", "mixed", "unknown"]
SourceName = Literal["analytic", "measured", "trace", "ncu", "nsys", "microbench", "live"]


class RoofsDoc(msgspec.Struct, forbid_unknown_fields=False):
    """``hardware`` and each ``extra_roofs`` entry."""

    name: Name
    compute: dict[Name, FinitePositive]  # empty: an import without --hardware
    memory: dict[Name, FinitePositive]
    vendor: ShortText = ""
    capacity_bytes: Number = None
    kind: dict[Name, RoofKindName] = {}
    source: dict[Name, ShortText] = {}
    identity: dict[Name, Any] = {}


class OpDoc(msgspec.Struct, forbid_unknown_fields=False):
    """One entry of a result's ``ops``."""

    name: Name
    flops: FiniteNonNegative
    bytes: FiniteNonNegative
    op: Name = ""
    phase: PhaseName = "unknown"
    source: SourceName = "analytic"
    count: Count = 1
    level: Name = "hbm"
    weight_bytes: Number = None
    act_in_bytes: Number = None
    act_out_bytes: Number = None
    kv_read_bytes: Number = None
    kv_write_bytes: Number = None
    link_bytes: Number = None
    time_s: Number = None
    dtype: Name = ""
    bound: Bound = Bound.NONE
    provenance: dict[Name, Any] = {}


class TotalsDoc(msgspec.Struct, forbid_unknown_fields=False):
    """A result's ``totals``: every number finite and >= 0, or null."""

    phase: Name
    bound: Bound = Bound.NONE
    time_s: Number = None
    tokens: Number = None
    flops: Number = None
    model_flops: Number = None
    bytes: Number = None
    weight_bytes: Number = None
    kv_read_bytes: Number = None
    kv_write_bytes: Number = None
    activation_bytes: Number = None
    link_bytes: Number = None
    mfu: Number = None
    hfu: Number = None
    mbu: Number = None
    peak_flop_per_s: Number = None
    bandwidth_bytes_per_s: Number = None


class RemedyDoc(msgspec.Struct, forbid_unknown_fields=False):
    """One remedy of a finding."""

    action: ShortText
    side_effects: ShortText


class FindingDoc(msgspec.Struct, forbid_unknown_fields=False):
    """One entry of a result's ``findings``."""

    code: Name
    severity: Severity
    title: ShortText
    bottleneck: Name = ""
    evidence: dict[Name, Any] = {}
    check_first: ShortText = ""
    remedies: list[RemedyDoc] = []


class WorkloadDoc(msgspec.Struct, forbid_unknown_fields=False):
    """The workload keys that renderers print as numbers or names; others pass untouched."""

    model: Name | None = None
    hardware: Name | None = None
    phase: Name | None = None
    batch: Count | list[Count] | None = None  # a sweep holds its grid's axis
    prompt: Count | list[Count] | None = None
    context: Count | list[Count] | None = None
    tp: Count | None = None


class MemoryDoc(msgspec.Struct, forbid_unknown_fields=False):
    """A result's ``memory`` budget when present (renderers print each of these)."""

    weights_bytes: Number
    kv_cache_bytes: Number
    activation_bytes: Number
    free_bytes: Finite | None  # negative when the model does not fit
    usable_bytes: Number
    max_batch: Number = None  # an int, or a float from numpy


class SweepDoc(msgspec.Struct, forbid_unknown_fields=False):
    """A sweep result's grid: ``rows`` of values under ``columns`` (checked row by row below)."""

    columns: list[Name]
    rows: Annotated[list[list[Any]], msgspec.Meta(max_length=1 << 20)]


class SweepRowDoc(msgspec.Struct, forbid_unknown_fields=False):
    """One cell of a sweep, as the renderers read it."""

    phase: Name
    batch: Count
    context: Count
    tpot_s: Number
    tokens_per_s: Number
    goodput_tokens_per_s: Number
    fits: bool
    bound: Bound
    ttft_s: Number = None
    max_batch: Number = None  # written as a float
    slo_met: bool | None = None


class OperatingPointDoc(msgspec.Struct, forbid_unknown_fields=False):
    """The sweep cell chosen under the SLO."""

    batch: Count
    context: Count


class SloDoc(msgspec.Struct, forbid_unknown_fields=False):
    """A sweep's objectives."""

    ttft_s: Number = None
    tpot_s: Number = None


class ResultDoc(msgspec.Struct, forbid_unknown_fields=False):
    """One entry of ``results``."""

    workload: WorkloadDoc
    ops: list[OpDoc]
    totals: TotalsDoc | None = None
    memory: dict[Name, Any] = {}
    findings: list[FindingDoc] = []
    sweep: SweepDoc | None = None
    slo: SloDoc | None = None
    operating_point: OperatingPointDoc | None = None


class ArtifactDoc(msgspec.Struct, forbid_unknown_fields=False):
    """A whole ``rooftop.run/1`` artifact."""

    schema: Literal["rooftop.run/1"]
    hardware: RoofsDoc
    results: list[ResultDoc]
    command: Name = ""
    identity: dict[Name, Any] = {}
    extra_roofs: list[RoofsDoc] = []


def check_sections(data: dict[str, Any], where: str, error: type[RooftopError]) -> None:
    """Check what one struct cannot say, on ``data`` that passed ArtifactDoc.

    A non-empty memory budget is whole, sweep rows match their columns and types, and the
    operating point is a cell of the sweep.
    """
    for i, result in enumerate(data["results"]):
        at = f"{where}: results[{i}]"
        if result.get("memory"):
            convert(result["memory"], MemoryDoc, f"{at}.memory", error)
        table = result.get("sweep")
        if not table:
            continue
        width = len(table["columns"])
        for j, row in enumerate(table["rows"]):
            if len(row) != width:
                raise error(f"{at}.sweep.rows[{j}]: {len(row)} values under {width} columns")
        cells = convert(
            [dict(zip(table["columns"], row)) for row in table["rows"]], list[SweepRowDoc], f"{at}.sweep.rows", error
        )
        op = result.get("operating_point")
        if op and not any(c.batch == op["batch"] and c.context == op["context"] for c in cells):
            raise error(f"{at}.operating_point = {op!r}: not a cell of the sweep")
