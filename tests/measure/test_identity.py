import math

from rooftop.measure import identity


def test_cpu_identity_reads_model_flags_and_caches():
    cpu = identity.cpu_identity()
    assert cpu["cpu_count"] >= 1 and isinstance(cpu["cpu_model"], str) and cpu["cpu_model"]
    assert set(cpu["cpu_flags"]) <= set(identity.INTERESTING_FLAGS)
    for key in ("l1_bytes", "l2_bytes", "l3_bytes"):
        assert cpu.get(key, 1) > 0  # sysfs sizes like "32K" / "1024K" / "32768K" become bytes


def test_blas_is_named_from_torch_config():
    assert identity._blas("  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release") == "mkl"
    assert identity._blas("linked against OpenBLAS 0.3.27") == "OpenBLAS"
    assert identity._blas("nothing to see") == "unknown"


def test_contention_is_a_share_or_nan():
    share = identity.contention(sample_s=0.05)
    assert math.isnan(share) or 0.0 <= share <= 1.0


def test_nvidia_smi_absent_gives_nothing(monkeypatch):
    monkeypatch.setattr(identity.shutil, "which", lambda _name: None)
    assert identity.nvidia_smi() == {}


def test_nvidia_smi_fields_are_named(monkeypatch):
    class Done:
        stdout = "550.54.15, 1980, 1980, 2619, 700.00\n"

    monkeypatch.setattr(identity.shutil, "which", lambda _name: "/usr/bin/nvidia-smi")
    monkeypatch.setattr(identity.subprocess, "run", lambda *a, **k: Done())
    assert identity.nvidia_smi() == {
        "driver": "550.54.15",
        "sm_clock_mhz": "1980",
        "sm_clock_max_mhz": "1980",
        "mem_clock_mhz": "2619",
        "power_limit_w": "700.00",
    }


def test_identity_of_the_numpy_backend():
    ident = identity.identity("cpu", threads=1, backend="numpy")
    assert ident["device"] == "cpu" and ident["backend"] == "numpy" and ident["requested_threads"] == 1
    assert "numpy" in ident and "blas" in ident and "other_processes_cpu_share" in ident


def test_identity_of_the_torch_backend_names_threads_and_versions():
    import pytest

    torch = pytest.importorskip("torch")
    ident = identity.torch_identity("cpu")
    assert ident["torch"] == torch.__version__ and ident["threads"] == torch.get_num_threads()
