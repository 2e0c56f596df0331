from rooftop.hardware.catalog import get_entry, get_roofs


def test_per_gpu_nic_roofs_with_sources():
    h100 = get_roofs("h100-sxm")
    assert h100.bandwidth("network") == 50e9  # 400 Gb/s ConnectX-7 per GPU / 8 bits
    assert "ConnectX-7" in h100.memory_roof("network").source
    assert get_roofs("a100-80gb-sxm").bandwidth("network") == 25e9  # 200 Gb/s HDR per GPU
    assert get_roofs("b200").bandwidth("network") == 50e9
    assert not get_roofs("l4").has_memory("network")  # no reference system: left blank
    assert get_entry("h200-sxm").fields["nic_source"].startswith("DGX H100/H200")
