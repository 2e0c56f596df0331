import pytest

from rooftop.api.techniques import Techniques, analyze_techniques, ep_memory
from rooftop.api.whatif import Options
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset


def test_ep_reshapes_the_points_and_the_memory():
    spec, roofs = load_preset("deepseek-v3"), get_roofs("h200-sxm")
    w = Workload(phase=Phase.DECODE, batch=32, context=4096, weight_dtype="fp8")
    run = analyze_techniques(spec, roofs, [w], Techniques(Options(ep=8), ep=True))
    r = run.results[0]
    labels = [p.label for p in r.points]
    assert "ep_dispatch" in labels and "ep_combine" in labels
    section = r.extra["expert_parallel"]
    assert section["dispatch_bytes"] == 59_136 and section["combine_bytes"] == 114_688
    # per step: 32 tokens × (51,744 + 100,352) B × 58 MoE layers over 450 GB/s NVLink
    assert section["all_to_all_s"] == pytest.approx(32 * 152_096 * 58 / 450e9)
    assert r.memory["fits"] is True and r.memory["weights_bytes"] == pytest.approx(section["weights_bytes_per_gpu"])


def test_ep_memory_follows_the_weights():
    memory = {
        "weights_bytes": 100.0,
        "free_bytes": -10.0,
        "usable_bytes": 120.0,
        "kv_cache_bytes": 20.0,
        "activation_bytes": 10.0,
        "max_batch": 0,
    }
    out = ep_memory(memory, 40.0, batch=2)
    assert out["free_bytes"] == 50.0 and out["fits"] is True  # −10 + 100 − 40
    assert out["max_batch"] == 5  # (120 − 40) // 15 B per sequence


def test_sections_only_when_asked():
    spec, roofs = load_preset("llama-3.1-8b"), get_roofs("h100-sxm")
    w = Workload(phase=Phase.DECODE, batch=1, context=2048)
    plain = analyze_techniques(spec, roofs, [w], Techniques(Options()))
    assert not {"speculative", "chunked", "pipeline", "disaggregation", "what_if"} & set(plain.results[0].extra)
    asked = analyze_techniques(spec, roofs, [w], Techniques(Options(spec_k=3), speculative=True, what_if=True))
    extra = asked.results[0].extra
    assert extra["speculative"]["k"] == 3 and "what_if" in extra
    assert extra["speculative"]["ridge_table"][0]["new_tokens"] == 1
