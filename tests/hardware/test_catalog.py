import pytest

from rooftop.errors import CatalogError
from rooftop.hardware.catalog import devices_named, get_entry, get_roofs, layer_paths, load_catalog


def test_all_31_devices_load_with_sources():
    catalog = load_catalog()
    assert len(catalog) == 31
    for entry in catalog.values():
        roofs = entry.roofs()
        for roof in (*roofs.compute, *roofs.memory):
            assert roof.source, f"{entry.id} {roof} has no source"
            assert roof.kind.value == "datasheet"


def test_dense_peaks_and_units():
    r = get_roofs("h100-sxm")
    assert r.peak("bf16") == 989.4e12  # dense, not the 1,979 sparse headline
    assert r.peak("fp8") == 1978.9e12
    assert r.bandwidth("hbm") == 3.35e12  # decimal TB/s
    assert r.bandwidth("link") == 450e9  # 900 GB/s bidirectional -> 450 each way
    assert r.capacity_bytes == 80 * 2**30
    for entry in load_catalog().values():  # dense <= sparse: bf16 never above fp8 where both exist
        rr = entry.roofs()
        if rr.has_compute("bf16") and rr.has_compute("fp8"):
            assert rr.peak("bf16") <= rr.peak("fp8")


def test_blank_numbers_stay_blank():
    a10g = get_roofs("a10g")
    assert not a10g.has_memory("hbm")
    assert not get_roofs("apple-m3-max").compute  # Apple publishes no TFLOP/s figure: no compute roof
    with pytest.raises(CatalogError):
        a10g.bandwidth("hbm")


def test_unknown_device_suggests():
    with pytest.raises(CatalogError, match="did you mean: h100-sxm"):
        get_entry("h100-sx")


def test_user_layer_overrides(tmp_path, monkeypatch):
    layer = tmp_path / "hw.toml"
    layer.write_text(
        '[[device]]\nid = "h100-sxm"\nhbm_bandwidth_tb_s = 3.0\n\n'
        '[[device]]\nid = "my-npu"\nname = "My NPU"\nmemory_gib = 64\nhbm_bandwidth_tb_s = 1.0\n'
        'bf16_tflops = 100\nsource_urls = "lab notebook p. 12"\n'
    )
    monkeypatch.setenv("ROOFTOP_HARDWARE", str(layer))
    assert layer_paths()[-1] == layer
    h = get_entry("h100-sxm")
    assert h.roofs().bandwidth("hbm") == 3.0e12 and h.roofs().peak("bf16") == 989.4e12
    assert h.origin["hbm_bandwidth_tb_s"] == str(layer)
    mine = get_roofs("my-npu")
    assert mine.ridge("bf16") == pytest.approx(100.0)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("not toml [", "not valid TOML"),
        ('[[device]]\nname="x"\n', "each with an id"),
        ('[[device]]\nid="x"\nbf16_tflops="fast"\n', "not a number"),
    ],
)
def test_bad_layers(tmp_path, text, match):
    layer = tmp_path / "bad.toml"
    layer.write_text(text)
    with pytest.raises(CatalogError, match=match):
        load_catalog(layer)


def test_missing_layer_file(tmp_path):
    with pytest.raises(CatalogError, match="not found"):
        load_catalog(tmp_path / "nope.toml")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("nan", "device[1].hbm_bandwidth_tb_s = nan: not a finite number"),
        ("inf", "device[1].hbm_bandwidth_tb_s = inf: not a finite number"),
        ("0", "device[1].hbm_bandwidth_tb_s = 0: must be > 0"),
        ("-1", "device[1].hbm_bandwidth_tb_s = -1: must be > 0"),
        ("1e5", "device[1].hbm_bandwidth_tb_s = 100000.0: must be ≤ 10,000"),
        ('"3"', "device[1].hbm_bandwidth_tb_s = '3': not a number"),
    ],
)
def test_layer_numbers_are_finite_positive_and_bounded(tmp_path, value, message):
    # issue 11: nan, inf, 0 and -1 were accepted (0 then divided by zero in `analyze`)
    layer = tmp_path / "hw.toml"
    layer.write_text(f'[[device]]\nid = "a"\n\n[[device]]\nid = "b"\nhbm_bandwidth_tb_s = {value}\n')
    with pytest.raises(CatalogError) as info:
        load_catalog(layer)
    assert str(info.value) == f"{layer}: {message}"


def test_layer_nested_too_deep_is_one_line(tmp_path):
    layer = tmp_path / "deep.toml"
    layer.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")  # was a RecursionError in tomllib
    with pytest.raises(CatalogError, match=r"deep.toml: nested deeper than 64 levels$"):
        load_catalog(layer)


@pytest.mark.parametrize(
    ("reported", "ids"),
    [
        ("NVIDIA A100-SXM4-80GB", ["a100-80gb-sxm"]),  # tests/data/hta-traces/a100x16_rank0
        ("NVIDIA H200", ["h200-nvl", "h200-sxm"]),  # tests/data/gpu: the name does not tell SXM from NVL
        ("NVIDIA A100-PG509-200", ["a100-40gb-sxm", "a100-80gb-pcie", "a100-80gb-sxm"]),  # Meta's A100 board
        ("NVIDIA H200 NVL", ["h200-nvl"]),
        ("NVIDIA A10", ["a10"]),  # not the A10G
        ("NVIDIA RTX 6000 Ada Generation", ["rtx-6000-ada"]),
        ("AMD Instinct MI300X", ["mi300x"]),
        ("AMD Radeon Graphics", []),  # ROCm's name of an MI250 (tests/data/hta-traces/mi250_minitoy_rocm)
        ("Tesla V100-DGXS-32GB", []),  # tests/data/kineto-generations: no V100 in the catalog
        ("", []),
    ],
)
def test_a_reported_gpu_name_points_to_catalog_devices(reported, ids):
    assert devices_named(reported) == ids
