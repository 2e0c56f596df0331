"""api/rules: the cost polynomials behind the Prometheus rules, the rule file, two models in one file."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from rooftop.api.live_model import LiveModel, live_model
from rooftop.api.rules import model_costs, rule_set, rules_yaml
from rooftop.cli.rules import ENGINES
from rooftop.core.roofs import ComputeRoof, MemoryRoof, Roofs
from rooftop.core.workload import Workload
from rooftop.errors import RooftopError
from rooftop.models.spec import ModelSpec
from rooftop.serving.promql import CostPoly


@pytest.fixture
def tiny_live() -> LiveModel:
    # 2 layers, hidden 8, 2 query heads, 1 KV head of 4 dims, SwiGLU 16 wide, vocab 10 (bf16).
    spec = ModelSpec(name="tiny", layers=2, hidden=8, heads=2, kv_heads=1, head_dim=4, ffn=16, vocab=10)
    roofs = Roofs(
        name="toy",
        compute=(ComputeRoof("bf16", 1000.0), ComputeRoof("fp32", 100.0)),
        memory=(MemoryRoof("hbm", 10.0),),
        capacity_bytes=2.0**30,
    )
    return LiveModel(spec, roofs, Workload())


def test_tiny_flops_per_token_by_hand(tiny_live: LiveModel) -> None:
    costs = model_costs(tiny_live)
    # Matmul params per layer: q 8x8=64, k 8x4=32, v 32, o 64, gate/up/down 8x16=128 each -> 576; x2 layers = 1152;
    # 2 FLOPs each per token = 2304. lm_head 8x10 = 80 params: 160 FLOPs once per sequence.
    # Attention per layer and sequence: score + value = 2 x (2 FLOPs x 2 heads x 4 dims) = 32 per causal pair;
    # x 2 layers = 64 per pair. Decode at context C: C + 1 pairs per token.
    #   decode step of B sequences: B x (2304 + 160 + 64 (C + 1)) = 2528 B + 64 B C
    assert costs.decode["model_flops"] == CostPoly(0.0, 2528.0, 64.0)
    # Prefill of L tokens: 2304 L + 64 L (L + 1) / 2 + 160 = 160 + 2336 L + 32 L^2
    assert costs.prefill["model_flops"] == CostPoly(160.0, 2336.0, 32.0)
    # MBU bytes (bf16): weights 1152 x 2 + lm_head 80 x 2 + norm weights (2 per layer + final) 5 x 8 x 2 = 2544
    # per step; embedding rows 8 x 2 = 16 per token;
    # KV read per layer and sequence: K and V, 1 head x 4 dims x 2 B x (C + 1) = 16 (C + 1); x 2 layers = 32 (C + 1).
    assert costs.decode["useful_bytes"] == CostPoly(2544.0, 16.0 + 32.0, 32.0)
    # prefill: the same weights once, embedding 16 L, KV read 32 L (the L positions written this step)
    assert costs.prefill["useful_bytes"] == CostPoly(2544.0, 48.0, 0.0)
    assert (costs.peak_flop_per_s, costs.bandwidth_bytes_per_s, costs.moe_keep) == (1000.0, 10.0, 0.0)


def _per_token(p: CostPoly, x: float, y: float, r: float, prefill: bool) -> float:
    """What the PromQL of serving/promql.py computes: (c0 + cm (1 - r^x)) / x + c1 + c2 (L or C) + windows."""
    out = (p.c0 + p.cm * (1 - r**x)) / x + p.c1 + p.c2 * (x if prefill else y)
    for w, c in p.windows:  # prefill: the window's pairs m(m+1)/2 + (L - m) W per token; decode min(C + 1, W)
        m = min(x, w)
        out += c * (m * (m + 1) / 2 + (x - m) * w) / x if prefill else c * min(y + 1, w)
    for k, c in p.chunks:  # prefill: floor(L/K) K(K+1)/2 + (L mod K)(L mod K + 1)/2 per token; decode C mod K + 1
        rest = x % k
        out += c * ((x // k) * k * (k + 1) / 2 + rest * (rest + 1) / 2) / x if prefill else c * (y % k + 1)
    return out


CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"


@pytest.mark.parametrize(
    ("model", "tp"),
    [
        ("llama-3.1-8b", 1),
        ("mixtral-8x7b", 2),
        ("qwen3-30b-a3b", 1),
        # windows: Mistral-7B's 4096 on every layer, Gemma-2's 4096 on half, gpt-oss's 128 on half
        # (MoE), DeepSeek-V3.2's top-2048 keys (a window's pairs): refused as "not polynomial" before
        ("mistral-7b", 1),
        ("gemma-2-9b", 1),
        (str(CONFIGS / "gpt-oss-20b"), 1),
        ("deepseek-v3.2", 8),
        (str(CONFIGS / "llama-4-scout"), 1),  # 8192-token chunks on 3 of 4 layers: lengths 5000 and 9000
    ],
)
def test_rule_costs_equal_watch_per_token_costs(model: str, tp: int) -> None:
    live = live_model(model, "h100-sxm", "bf16", tp)
    assert live is not None
    costs = model_costs(live)
    for length in (1, 48, 333, 5000):
        pre = live.prefill(length)  # what watch prices a prompt token at
        for q, want in (("model_flops", pre.model_flops), ("useful_bytes", pre.useful_bytes), ("bytes", pre.bytes)):
            got = _per_token(costs.prefill[q], length, 0, costs.moe_keep, True)
            assert got == pytest.approx(want, rel=1e-9), (q, length)
    for batch, context in ((1, 0), (3, 55), (17, 1234), (128, 9000)):
        dec = live.decode(context, batch)
        for q, want in (("model_flops", dec.model_flops), ("useful_bytes", dec.useful_bytes), ("bytes", dec.bytes)):
            got = _per_token(costs.decode[q], batch, context, costs.moe_keep, False)
            assert got == pytest.approx(want, rel=1e-9), (q, batch, context)


def test_window_and_chunk_terms() -> None:
    live = live_model(str(CONFIGS / "gpt-oss-20b"), "h100-sxm")
    assert live is not None
    costs = model_costs(live)
    assert [w for w, _ in costs.decode["model_flops"].windows] == [128.0]
    # 12 sliding layers, 64 heads of 64: score + value 2 x 2 x 64 x 64 FLOPs a pair = 16,384 x 12
    assert costs.decode["model_flops"].windows[0][1] == 12 * 16384
    # Llama-4 Scout: 36 of its 48 layers attend within 8192-token chunks (40 heads of 128: 2 x 2 x 40 x
    # 128 FLOPs a pair); before this term its rules were fitted below the chunk and wrong past it
    scout = live_model(str(CONFIGS / "llama-4-scout"), "h100-sxm")
    assert scout is not None
    chunks = model_costs(scout).decode["model_flops"].chunks
    assert chunks == ((8192.0, 36 * 4 * 40 * 128),)


def test_mixtral_expert_term() -> None:
    live = live_model("mixtral-8x7b", "h100-sxm")
    assert live is not None
    costs = model_costs(live)
    assert costs.moe_keep == 0.75  # 1 - top_k / experts = 1 - 2/8
    # the expert weights: 32 layers x 8 experts x 3 matrices 4096 x 14336 x 2 B = 90,194,313,216 B when all are read
    assert costs.decode["useful_bytes"].cm == 32 * 8 * 3 * 4096 * 14336 * 2
    assert costs.decode["model_flops"].cm == 0.0  # FLOPs follow top_k, not the experts touched


def _references(expr: str) -> list[str]:
    return re.findall(r"(rooftop:[a-z_:]+)(\{[^}]*\})?", expr)  # type: ignore[return-value]


def test_yaml_structure_and_namespacing() -> None:
    doc = yaml.safe_load(rules_yaml([rule_set("llama-3.1-8b", "h100-sxm", "vllm", selector='job="a"')]))
    record, alerts = doc["groups"]
    assert record["name"] == "rooftop:llama-3.1-8b:h100-sxm:vllm:record"
    assert alerts["name"] == "rooftop:llama-3.1-8b:h100-sxm:vllm:alerts"
    names = {r["record"] for r in record["rules"]}
    assert {"rooftop:mfu", "rooftop:mbu", "rooftop:tokens_per_s", "rooftop:model_flop_per_s"} <= names
    assert all(n.startswith("rooftop:") for n in names)
    phases = {r["labels"].get("phase") for r in record["rules"] if r["record"] == "rooftop:mfu"}
    assert phases == {"prefill", "decode", "total"}
    for r in record["rules"] + alerts["rules"]:
        assert r["labels"]["model"] == "llama-3.1-8b" and r["labels"]["device"] == "h100-sxm"
        for name, matchers in _references(r["expr"]):
            assert 'model="llama-3.1-8b", device="h100-sxm"' in matchers, (name, r["expr"])
        for engine_series in re.findall(r"vllm:[a-z_]+(\{[^}]*\})?\[", r["expr"]):
            assert 'job="a"' in engine_series
    by_name = {a["alert"]: a for a in alerts["rules"]}
    assert set(by_name) == {
        "RooftopDecodeMemoryBound",
        "RooftopPrefillComputeBound",
        "RooftopUnderutilised",
        "RooftopUnderutilisedWithQueue",
        "RooftopKvCachePressure",
        "RooftopQueueGrowing",
    }
    a = by_name["RooftopDecodeMemoryBound"]
    assert "> 0.75" in a["expr"] and "< 0.05" in a["expr"] and a["for"] == "10m"
    assert a["annotations"]["remedy"].startswith("continuous batching")
    assert by_name["RooftopUnderutilised"]["labels"]["bottleneck"] == "launch"  # tp = 1: host bubbles, not links
    assert "lower max_num_seqs" in by_name["RooftopKvCachePressure"]["annotations"]["remedy"]


def test_two_models_in_one_file_do_not_collide() -> None:
    a = rule_set("llama-3.1-8b", "h100-sxm", "vllm", selector='job="llama"')
    b = rule_set("mixtral-8x7b", "h100-sxm", "vllm", selector='job="mixtral"', tp=2)
    doc = yaml.safe_load(rules_yaml([a, b]))
    groups = doc["groups"]
    assert len({g["name"] for g in groups}) == 4
    for group in groups:
        model = "llama-3.1-8b" if "llama" in group["name"] else "mixtral-8x7b"
        for r in group["rules"]:
            assert r["labels"]["model"] == model
            assert all(f'model="{model}"' in m for _, m in _references(r["expr"]))
    under = [r for g in groups for r in g["rules"] if r.get("alert") == "RooftopUnderutilised"]
    assert [r["labels"]["bottleneck"] for r in under] == ["launch", "communication"]  # mixtral at tp=2
    with pytest.raises(RooftopError, match="--name"):
        rules_yaml([a, a])


def test_engines_without_token_counters_get_capacity_rules_only() -> None:
    doc = yaml.safe_load(rules_yaml([rule_set("llama-3.1-8b", "h100-sxm", "triton")]))
    record, alerts = doc["groups"]
    assert "rooftop:mfu" not in {r["record"] for r in record["rules"]}
    assert {a["alert"] for a in alerts["rules"]} == {"RooftopKvCachePressure", "RooftopQueueGrowing"}
    kv = next(r for r in record["rules"] if r["record"] == "rooftop:kv_usage")
    assert 'kv_cache_block_type="fraction"' in kv["expr"]


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool absent (apt-get install prometheus)")
@pytest.mark.parametrize("engine", ENGINES)
def test_promtool_accepts_every_engine(engine: str, tmp_path: Path) -> None:
    path = tmp_path / "rules.yml"
    path.write_text(rules_yaml([rule_set("mixtral-8x7b", "h100-sxm", engine, tp=2, selector='job="x"')]))
    proc = subprocess.run(["promtool", "check", "rules", str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SUCCESS" in proc.stdout


@pytest.mark.parametrize("window", [1, 262144])
def test_extreme_windows_fit(window: int, tmp_path: Path) -> None:
    # the fit's extra shapes around a 1-token window were 0-token prompts (refused) before
    config = json.loads(
        (Path(__file__).resolve().parents[2] / "src/rooftop/models/presets/mistral-7b.json").read_text()
    )
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**config, "sliding_window": window}))
    live = live_model(str(path), "h100-sxm")
    assert live is not None
    assert [w for w, _ in model_costs(live).decode["model_flops"].windows] == [float(window)]
