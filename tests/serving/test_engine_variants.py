"""Engine metric variants on real /metrics text (tests/data/serving/README.md): Triton ensembles,
TensorRT-LLM backend naming generations, renamed metrics reported, user engine maps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rooftop.errors import TelemetryError
from rooftop.serving import engines
from rooftop.serving.engines import detect
from rooftop.serving.exposition import parse
from rooftop.serving.watch import observe
from tests.conftest import data_path, run_cli


def snap(name: str):
    path = data_path("serving", name)
    return parse(path.read_text(), time_s=0.0, source=str(path))


def test_trtllm_backend_2311_statistics_names() -> None:
    # Triton 23.11's README sample names the gauges nv_trt_llm_*_statistics (renamed *_metrics in 23.12).
    # Before: only requests_finished, inferences and queue_s_total were read; the KV blocks were lost.
    s = snap("triton_trtllm_backend_2311_readme.prom")
    m = detect(s)
    v = m.scalars(s)
    assert (v["kv_blocks_used"], v["kv_blocks_free"], v["kv_blocks_max"], v["kv_tokens_per_block"]) == (
        1,
        6239,
        6239,
        64,
    )
    assert v["requests_running"] == 0  # request_type="active"
    assert "kv_usage" not in v and "requests_waiting" not in v  # 23.11 had no "fraction" and no "waiting"
    assert m.deprecated_in_use(s) == [
        "nv_trt_llm_request_statistics → nv_trt_llm_request_metrics (deprecated in 23.12)",
        "nv_trt_llm_kv_cache_block_statistics → nv_trt_llm_kv_cache_block_metrics (deprecated in 23.12)",
    ]
    # the current generation (README @ 0b9d7d5) is still read by the first candidate name
    assert (
        detect(snap("triton_trtllm_backend_readme.prom")).deprecated_in_use(snap("triton_trtllm_backend_readme.prom"))
        == []
    )


def test_triton_ensemble_counted_once() -> None:
    # A real load test (A100, codegen-350M behind ensemble → preprocessing → model → postprocessing):
    # nv_inference_count is 391,768 on each of the 4 models. Before: summed over every model label,
    # 4 × 391,768 = 1,567,072 inferences. Client-facing: the ensemble's 391,768.
    s = snap("triton_ensemble_codegen_readme.prom")
    obs = observe(s, "dump")
    assert obs.scalars["inferences"] == 391_768
    assert obs.models == ("ensemble",)


def test_model_label_picks_one_model() -> None:
    s = snap("triton_ensemble_codegen_readme.prom")
    obs = observe(s, "dump", model_label="codegen-350M-mono-gptj")
    assert obs.scalars["inferences"] == 391_768 and obs.models == ("codegen-350M-mono-gptj",)
    with pytest.raises(TelemetryError, match="no model='nope'; present: codegen-350M-mono-gptj, ensemble"):
        observe(s, "dump", model_label="nope")
    with pytest.raises(TelemetryError, match="not vllm"):
        observe(snap("vllm_cpu_0.32_live.prom"), "dump", model_label="x")


def test_renamed_metrics_reported_in_text_json_and_log(tmp_path: Path) -> None:
    # The SGLang docs sample (a real saturated server) still exposes sglang:time_per_output_token_seconds,
    # renamed sglang:inter_token_latency_seconds; the Triton 23.11 sample the *_statistics gauges.
    # Before: read, never reported (docs/serving.md said they were).
    path = str(data_path("serving", "sglang_production_metrics_docs.prom"))
    rename = "sglang:time_per_output_token_seconds → sglang:inter_token_latency_seconds (deprecated in 0.5)"
    text = run_cli("watch", path, "--once")
    assert text.returncode == 0, text.stderr
    assert f"renamed metric in use: {rename}" in text.stderr
    out = run_cli("watch", path, "--once", "--json")
    assert json.loads(out.stdout)["renamed"] == [rename]
    log = tmp_path / "watch.jsonl"
    assert run_cli("watch", path, "--once", "--log", str(log)).returncode == 0
    (line,) = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    assert line["renamed"] == [rename]
    vllm = observe(snap("vllm_cpu_0.32_live.prom"), "dump")
    assert vllm.deprecated == ()  # vLLM 0.32 exposes only current names


def test_user_engine_maps_extend_and_replace(tmp_path: Path) -> None:
    # ROOFTOP_ENGINES: a folder of the user's maps; a known engine name replaces the shipped map.
    shipped = (Path(engines.__file__).parent / "triton.toml").read_text(encoding="utf-8")
    (tmp_path / "triton.toml").write_text(shipped.replace('client_facing = ["ensemble", ', "client_facing = ["))
    path = str(data_path("serving", "triton_ensemble_codegen_readme.prom"))
    out = run_cli("watch", path, "--once", "--json", env={"ROOFTOP_ENGINES": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    # without "ensemble" among the client-facing names, every non-composing model counts: ensemble + codegen
    assert json.loads(out.stdout)["samples"]["inferences"] == 2 * 391_768
    bad = run_cli("watch", path, "--once", env={"ROOFTOP_ENGINES": str(tmp_path / "missing")})
    assert bad.returncode == 2 and "ROOFTOP_ENGINES=" in bad.stderr and "Traceback" not in bad.stderr


@pytest.fixture
def user_maps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A ROOFTOP_ENGINES folder for this test, the map caches cleared before and after."""
    monkeypatch.setenv("ROOFTOP_ENGINES", str(tmp_path))
    engines.engine_maps.cache_clear()
    engines.read_names.cache_clear()
    yield tmp_path
    monkeypatch.delenv("ROOFTOP_ENGINES")
    engines.engine_maps.cache_clear()
    engines.read_names.cache_clear()


def test_a_map_on_a_base_map_reads_its_series_under_new_prefixes(user_maps: Path) -> None:
    # base + [rename_prefix]: every vllm: candidate becomes pre_vllm_… (and the renames with it)
    (user_maps / "pre.toml").write_text(
        'engine = "pre"\nprefixes = ["pre_vllm_"]\nbase = "vllm"\n[rename_prefix]\n"vllm:" = ["pre_vllm_"]\n'
    )
    text = data_path("serving", "vllm_v0_aibrix_docs_qwen25coder.prom").read_text()
    plain, pre = parse(text, 0.0), parse(text.replace("vllm:", "pre_vllm_"), 0.0)
    emap = detect(pre)
    assert emap.engine == "pre" and detect(plain).engine == "vllm"
    assert emap.scalars(pre) == engines.engine_map("vllm").scalars(plain)  # 148 prompt, 955 generated ...
    assert emap.scalars(pre)["generation_tokens"] == 955
    kv = next(m for m in emap.metrics if m.key == "kv_usage")
    assert kv.names == ("pre_vllm_kv_cache_usage_perc", "pre_vllm_gpu_cache_usage_perc") and kv.mean_over_replicas
    assert emap.deprecated_in_use(pre) == [
        "pre_vllm_gpu_cache_usage_perc → pre_vllm_kv_cache_usage_perc (deprecated in 0.9)"
    ]
    assert emap.replicas_label == "engine" and emap.prompt_tokens_include_cached  # inherited
    assert "pre_vllm_.*" in engines.engine_name_regex().split("|")


def test_a_map_on_an_unknown_base_is_one_error(user_maps: Path) -> None:
    (user_maps / "bad.toml").write_text('engine = "bad"\nprefixes = ["x_"]\nbase = "nope"\n[rename_prefix]\n')
    with pytest.raises(TelemetryError, match=r"bad\.toml: not an engine map \(ValueError: base 'nope' is not"):
        engines.engine_maps()
