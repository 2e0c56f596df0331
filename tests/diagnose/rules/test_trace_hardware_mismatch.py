"""A trace under another vendor's or another model's roofs warns (tests/data/hta-traces); ncu: tests/ingest/test_ncu_device.py."""

from __future__ import annotations

from rooftop.api.ingest import import_path
from rooftop.diagnose.rules.trace_hardware_mismatch import trace_hardware_mismatch
from rooftop.hardware.catalog import get_roofs
from tests.conftest import data_path


def codes(name: str, hardware: str) -> list[str]:
    run = import_path(data_path("hta-traces", name), get_roofs(hardware))
    return [f.code for f in run.results[0].findings]


def test_amd_trace_with_nvidia_roofs_warns() -> None:
    # MI250 (ROCm 6.2) trace: hipLaunchKernel calls, device "AMD Radeon Graphics". Before: no warning.
    run = import_path(data_path("hta-traces", "mi250_minitoy_rocm.json.gz"), get_roofs("h100-sxm"))
    (result,) = run.results
    assert result.workload["vendor"] == "AMD"
    (f,) = [f for f in result.findings if f.code == "hardware-mismatch"]
    assert f.evidence == {"trace_vendor": "AMD", "trace_device": "AMD Radeon Graphics", "roofs": "h100-sxm"}


def test_matching_vendor_is_quiet() -> None:
    assert "hardware-mismatch" not in codes("mi250_minitoy_rocm.json.gz", "mi250x")
    assert "hardware-mismatch" not in codes("alexnet_a100.json.gz", "a100-80gb-sxm")
    assert "hardware-mismatch" in codes("alexnet_a100.json.gz", "mi300x")
    assert trace_hardware_mismatch.__name__ == "trace_hardware_mismatch"


def test_another_model_of_the_same_vendor_warns() -> None:
    # Meta's alexnet trace ran on "NVIDIA A100-PG509-200": model word a100, which all three catalog A100s carry
    run = import_path(data_path("hta-traces", "alexnet_a100.json.gz"), get_roofs("h100-sxm"))
    (f,) = [f for f in run.results[0].findings if f.code == "hardware-mismatch"]
    assert f.title == (
        "this trace ran on NVIDIA A100-PG509-200 but the roofs are h100-sxm (H100 SXM5 80GB): "
        "pass -H a100-40gb-sxm or a100-80gb-pcie or a100-80gb-sxm"
    )
    assert "hardware-mismatch" not in codes("alexnet_a100.json.gz", "a100-80gb-pcie")  # a variant: not told apart
