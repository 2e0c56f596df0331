import pytest

from rooftop.core.roofs import RoofKind
from rooftop.errors import MeasurementError
from rooftop.measure import roofs as roofs_mod


def test_unknown_device_is_refused():
    with pytest.raises(MeasurementError, match="unknown device"):
        roofs_mod.check_device("tpu")


def test_roofs_on_small_sizes(monkeypatch):
    pytest.importorskip("torch")
    tiny = roofs_mod.Plan((64, 128), 32, 4 * 2**20, 64 * 1024, (256, 256), 0.01)
    monkeypatch.setattr(roofs_mod, "plan_for", lambda device, quick, llc: tiny)
    measured = roofs_mod.measure_roofs("cpu", threads=1, quick=True)
    assert measured.compute_roof("fp32").kind is RoofKind.MEASURED
    assert measured.peak("fp32") > 0 and measured.bandwidth("hbm") > 0
    assert "best of copy/triad/read/GEMV" in measured.memory_roof("hbm").source
    names = {b["name"] for b in measured.identity["benchmarks"]}
    assert {"gemm_fp32", "copy", "triad", "read", "gemv_fp32", "l2_triad"} <= names
    assert set(measured.identity["spread"]) >= {"compute.fp32", "memory.hbm"}
    # the roof is the best benchmark: no stream is above it
    assert all(
        b["bytes_per_s"] <= measured.bandwidth("hbm")
        for b in measured.identity["benchmarks"]
        if b["name"] in ("copy", "triad", "read", "gemv_fp32")
    )


def test_numpy_path_when_torch_is_absent(monkeypatch):
    tiny = roofs_mod.Plan((64,), 32, 2 * 2**20, 64 * 1024, (256, 256), 0.01)
    monkeypatch.setattr(roofs_mod, "plan_for", lambda device, quick, llc: tiny)
    monkeypatch.setattr(roofs_mod, "has_torch", lambda: False)
    measured = roofs_mod.measure_roofs("cpu", threads=1, quick=True)
    assert measured.identity["backend"] == "numpy" and measured.peak("fp32") > 0


def test_auto_device_is_the_cpu_without_cuda():
    from rooftop.measure.roofs import resolve_device

    torch = pytest.importorskip("torch")
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert resolve_device("auto") == expected
    assert resolve_device("cpu") == "cpu" and resolve_device("cuda") == "cuda"


def test_cuda_plan_sizes_the_l2_arrays_from_the_gpus_l2():
    # an H200 reports 60 MB of L2 (62,914,560 B): triad arrays in half of it, 30 MiB, where the
    # eager-vs-graph probe on an H200 plateaued (6.2 TB/s at 24-32 MiB; 4.2 TB/s at 48 MiB)
    from rooftop.measure.roofs import plan_for

    assert plan_for("cuda", False, 62_914_560).l2_bytes == 31_457_280
    assert plan_for("cpu", False, 32 * 2**20).l2_bytes == 256 * 1024  # the CPU plan is unchanged
    # what the H200 run recorded: its L2, and the L2 triad over 3 arrays of 31,457,280 / 12 elements
    import json

    from tests.conftest import data_path

    recorded = json.loads(data_path("gpu", "roofs-h200.json").read_text())["identity"]
    assert recorded["gpu_l2_bytes"] == 62_914_560
    (l2,) = [b for b in recorded["benchmarks"] if b["name"] == "l2_triad"]
    assert l2["shape"] == f"{31_457_280 // 12:,} fp32" and l2["bytes_per_s"] > recorded_hbm(recorded)


def recorded_hbm(identity):
    """The best HBM stream the H200 run recorded (triad, 4.29 TB/s): the L2 roof must beat it."""
    return max(b["bytes_per_s"] for b in identity["benchmarks"] if b["name"] in ("copy", "triad", "read"))


@pytest.mark.parametrize(
    ("flags", "converted"),
    [([], {"bf16", "fp16"}), (["avx512_bf16"], {"fp16"}), (["amx_bf16", "amx_fp16"], set())],
)
def test_a_dtype_the_cpu_converts_says_so_in_its_roof(flags, converted):
    # an AVX512-BF16 EPYC without AVX512-FP16 measured fp16 at 3.2 GFLOP/s next to 105 for fp32
    from rooftop.measure.kernels import Kernel
    from rooftop.measure.timing import Samples

    def bench(name, flops, bytes_, seconds):
        return Kernel(name, lambda: None, flops, bytes_, "n"), Samples((seconds, seconds))

    results = [bench(f"gemm_{d}", 2e9, 0.0, 0.02) for d in ("fp32", "bf16", "fp16")]  # 100 GFLOP/s each
    results += [bench("copy", 0.0, 1e9, 0.1)]  # 10 GB/s
    ident = {"backend": "torch", "cpu_flags": flags}
    measured = roofs_mod.assemble("cpu", ident, results, quick=True, threads=2)
    assert measured.peak("fp32") == pytest.approx(1e11)  # 2e9 FLOP / 0.02 s
    for dtype in ("fp32", "bf16", "fp16"):
        says = "no " + dtype + " matmul instructions" in measured.compute_roof(dtype).source
        assert says == (dtype in converted)
        assert roofs_mod.converted_on_cpu(dtype, ident) == (dtype in converted)
