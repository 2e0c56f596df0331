"""A trace or ncu export under another GPU's roofs (an AMD trace with -H h100-sxm, a B200 export with -H h100-sxm).

Two checks, in order: the vendors differ (the trace's launch calls or device name; Nsight Compute
profiles NVIDIA GPUs only), or the reported GPU's model word (B200, A100, MI300X) is not in the
name of the catalog device the roofs come from while the catalog has that model. Variants of one
model (an H100 PCIe export with -H h100-sxm) are not told apart; a GPU the catalog lacks (GH200,
V100) and roofs that are not a catalog device's (ncu's theoretical roofs, measured roofs) are not
compared by name.
"""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.hardware.names import model_word, words


def _what(workload: dict[str, object]) -> str:
    source = str(workload.get("source") or "trace")
    return "this trace" if source == "trace" else f"this {source} export"


def _other_model(ev: Evidence, device: str) -> Finding | None:
    model, catalog_name = model_word(device), str(ev.roofs.identity.get("name") or "")
    if not model or not catalog_name or model in words(ev.roofs.name) + words(catalog_name):
        return None
    from rooftop.hardware.catalog import devices_named  # loaded already: the roofs came from it

    ids = " or ".join(devices_named(device))
    if not ids:  # a GPU the catalog lacks (a GH200, a V100): the nearest device is the user's best choice
        return None
    return Finding(
        code="hardware-mismatch",
        severity=Severity.WARN,
        title=f"{_what(ev.workload)} ran on {device} but the roofs are {ev.roofs.name} ({catalog_name}): pass -H {ids}",
        bottleneck="input",
        evidence={"trace_device": device, "roofs": ev.roofs.name, "roofs_device": catalog_name},
    )


@rule
def trace_hardware_mismatch(ev: Evidence) -> list[Finding]:
    """Warn when the trace's GPU vendor, or its model, differs from the ``--hardware`` device's."""
    traced = str(ev.workload.get("vendor") or "")
    chosen = ev.roofs.vendor
    device = str(ev.workload.get("device") or "")
    if not traced or not chosen or traced.lower() == chosen.lower():
        other = _other_model(ev, device) if device and (ev.roofs.compute or ev.roofs.memory) else None
        return [other] if other else []
    return [
        Finding(
            code="hardware-mismatch",
            severity=Severity.WARN,
            title=(
                f"{_what(ev.workload)} ran on an {traced} GPU ({device or 'its GPU'}) but the roofs are {chosen} "
                f"{ev.roofs.name}: pass the --hardware it ran on (rooftop hardware list)"
            ),
            bottleneck="input",
            evidence={"trace_vendor": traced, "trace_device": ev.workload.get("device", ""), "roofs": ev.roofs.name},
        )
    ]
