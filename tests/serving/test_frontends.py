"""Frontends in front of vLLM/SGLang engines (tests/data/serving/README.md gives each page's origin).

Each is told apart from the engine behind it, read as its own map says, and gets rules promtool accepts.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from rooftop.api.rules import rule_set, rules_yaml
from rooftop.serving.engines import detect, engine_name_regex
from rooftop.serving.exposition import parse
from rooftop.serving.sources import read_file
from rooftop.serving.watch import families, observe
from tests.conftest import data_path, run_cli

DYNAMO = "dynamo_frontend_metrics_examples.prom"
NIM = "nim_llama31_8b_datadog.prom"
VLLM = "vllm_cpu_0.32_live.prom"
RAY_232 = "ray_vllm_2.32_datadog_excerpt.prom"  # a real Ray 2.32 node page (excerpt)
# Ray's labels on a vLLM series, as a Ray 2.52 node page shows them (vllm-project/vllm#24267, its test result)
RAY_LABELS = (
    'Component="core_worker",NodeAddress="10.1.113.171",ReplicaId="3r4e76ag",'
    'SessionName="session_2025-12-01_11-05-34_460418_3579",Version="2.52.0",'
    'WorkerId="6f8b9bc4ba0fda1ef6769ce262129be2b522f90a31a593ec37379267"'
)
SAMPLE = re.compile(r"vllm:(\S+?)(?:\{(.*)\})? (\S+)")


def ray_page(name: str, prefix: str = "ray_vllm_", workers: tuple[str, ...] = ("",)) -> str:
    """A real vLLM page as Ray's metrics agent re-exports it (no real Ray page with ray_vllm_* names was found).

    vllm:x becomes ``prefix``x; every vLLM sample carries Ray's labels, once per replica: each of
    ``workers`` is a suffix of the quoted page's ReplicaId and WorkerId ("": the quoted ones).
    """
    out = []
    for line in data_path("serving", name).read_text().splitlines():
        m = SAMPLE.fullmatch(line)
        if line.startswith("#"):
            out.append(line.replace(" vllm:", f" {prefix}"))
        elif m is None:
            out.append(line)
        else:
            for w in workers:
                ray = re.sub(r'(ReplicaId|WorkerId)="([^"]*)"', rf'\1="\2{w}"', RAY_LABELS)
                labels = ray + (f",{m.group(2)}" if m.group(2) else "")
                out.append(f"{prefix}{m.group(1)}{{{labels}}} {m.group(3)}")
    return "\n".join(out) + "\n"


VLLM_UNDER_DYNAMO = "vllm_v1_dynamo_excerpt.prom"  # a Dynamo worker's page: vllm:* beside dynamo_component_*


def _path(name: str) -> str:
    return str(data_path("serving", name))


def _records(engine: str) -> dict[str, str]:
    doc = yaml.safe_load(rules_yaml([rule_set("llama-3.1-8b", "h100-sxm", engine, selector='job="x"')]))
    return {r["record"] + json.dumps(r["labels"].get("phase", "")): r["expr"] for r in doc["groups"][0]["rules"]}


def _promtool(engine: str, tmp_path: Path) -> None:
    path = tmp_path / f"{engine}.yml"
    path.write_text(rules_yaml([rule_set("mixtral-8x7b", "h100-sxm", engine, tp=2, selector='job="x"')]))
    proc = subprocess.run(["promtool", "check", "rules", str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "SUCCESS" in proc.stdout, proc.stdout + proc.stderr


def test_dynamo_frontend_is_detected_and_read() -> None:
    snap = read_file(_path(DYNAMO))
    assert detect(snap).engine == "dynamo"
    assert detect(read_file(_path(VLLM_UNDER_DYNAMO))).engine == "vllm"  # its worker stays a vLLM page
    obs = observe(snap, "fe")
    # one chat request of 33 prompt tokens (dynamo_frontend_input_sequence_tokens_sum) and 300 output tokens
    # (dynamo_frontend_output_tokens_total; the output-length histogram's _sum says 300 too), status="success"
    assert obs.scalars == {
        "prompt_tokens": 33.0,
        "generation_tokens": 300.0,
        "requests_finished": 1.0,
        "requests_running": 0.0,  # dynamo_frontend_inflight_requests
        "requests_waiting": 0.0,  # dynamo_frontend_queued_requests
    }
    h = obs.histograms
    assert h["ttft_s"].mean == pytest.approx(1.5625701570000001)  # one request: its TTFT, 1.56 s
    assert h["itl_s"].count == 299 and h["itl_s"].mean == pytest.approx(0.6126917290 / 299)  # 2.05 ms
    assert h["e2e_s"].mean == pytest.approx(2.177646729)
    assert (h["prompt_len"].mean, h["output_len"].mean) == (33.0, 300.0)
    assert "kv_usage" not in obs.scalars and "queue_s" not in h and "tpot_s" not in h  # not on the frontend
    assert obs.replicas == 1 and obs.deprecated == ()
    # a watch narrowed to the map's families reads the same (the token totals are histogram _sum series)
    text = data_path("serving", DYNAMO).read_text()
    assert observe(parse(text, snap.time_s, "fe", families("dynamo")), "fe") == obs


def test_dynamo_frontend_under_its_first_prefix() -> None:
    # Dynamo's frontend first wrote nv_llm_http_service_* (DYN_METRICS_PREFIX still sets it): the same names
    text = data_path("serving", DYNAMO).read_text().replace("dynamo_frontend_", "nv_llm_http_service_")
    snap = parse(text, 0.0, "old")
    assert detect(snap).engine == "dynamo"
    assert observe(snap, "old").scalars == observe(read_file(_path(DYNAMO)), "old").scalars
    assert {"dynamo_frontend_.*", "nv_llm_http_service_.*"} <= set(engine_name_regex().split("|"))


def test_dynamo_frontend_watch_and_rules() -> None:
    out = run_cli("watch", _path(DYNAMO), "--once", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["engine"] == "dynamo" and doc["samples"]["generation_tokens"] == 300.0
    records = _records("dynamo")
    # token counters: MFU/MBU rules; the request counter is read for status="success" only
    assert 'rooftop:mfu"total"' in records and 'rooftop:mbu"decode"' in records
    assert 'dynamo_frontend_requests_total{job="x",status="success"}' in records['rooftop:requests_finished:rate""']
    assert "dynamo_frontend_input_sequence_tokens_sum{" in records['rooftop:prompt_tokens:rate""']
    assert "rooftop:kv_usage" not in records and 'rooftop:replicas""' not in records
    doc = yaml.safe_load(rules_yaml([rule_set("llama-3.1-8b", "h100-sxm", "dynamo")]))
    alerts = {a["alert"] for a in doc["groups"][1]["rules"]}
    assert "RooftopKvCachePressure" not in alerts and "RooftopDecodeMemoryBound" in alerts  # no KV use exported


def test_nim_is_detected_and_read() -> None:
    snap = read_file(_path(NIM))
    assert detect(snap).engine == "nim"
    obs = observe(snap, "nim")
    # Llama-3.1-8B after 5 requests (request_success_total 5, request_finish_total 5 finished by "length"):
    # 109 prompt and 174 generated tokens, one request running, KV 0.0285 % used
    assert obs.scalars == {
        "prompt_tokens": 109.0,
        "generation_tokens": 174.0,
        "requests_finished": 5.0,
        "requests_running": 1.0,
        "requests_waiting": 0.0,
        "kv_usage": pytest.approx(0.0002848191398461977),
    }
    h = obs.histograms
    assert h["ttft_s"].mean == pytest.approx(0.6119842529296875 / 5)  # 122 ms
    # per-token latency: 169 observations = 174 tokens − 5 first tokens (the prefill's)
    assert h["itl_s"].count == 169 == 174 - 5 and h["itl_s"].mean == pytest.approx(1.856855869293213 / 169)
    assert h["e2e_s"].mean == pytest.approx(2.4688401222229004 / 5)  # 494 ms
    assert (h["prompt_len"].sum, h["output_len"].sum) == (109.0, 174.0)  # the counters' totals again
    assert "cached_prompt_tokens" not in obs.scalars and "queue_s" not in h  # not exposed


def test_nim_watch_and_rules() -> None:
    out = run_cli("watch", _path(NIM), "--once")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"{_path(NIM)} · nim") and "running 1.0, waiting 0.0" in out.stdout
    forced = run_cli("watch", _path(NIM), "--once", "--engine", "vllm")
    assert forced.returncode == 2 and forced.stderr.strip().endswith(
        "no vllm metrics (no vllm:* series); it looks like nim"
    )
    records = _records("nim")
    assert 'rooftop:mfu"total"' in records
    assert records['rooftop:requests_running""'] == 'sum by (job, instance) (num_requests_running{job="x"})'
    assert "prompt_tokens_total{" in records['rooftop:prompt_tokens:rate""']
    # Prometheus reads NIM's unprefixed names too
    assert {"num_requests_running.*", "prompt_tokens_total.*"} <= set(engine_name_regex().split("|"))


def test_vllm_under_ray_is_told_apart_and_read_as_vllm() -> None:
    plain = read_file(_path(VLLM))
    snap = parse(ray_page(VLLM), 0.0, "ray")
    assert detect(snap).engine == "ray-vllm" and detect(plain).engine == "vllm"
    assert "ray_vllm_time_to_first_token_seconds_count{" + RAY_LABELS + ',engine="0"' in ray_page(VLLM)
    ray, vllm = observe(snap, "ray"), observe(plain, "vllm")
    # the vLLM page's numbers (its README): 713 prompt, 416 generated tokens, 13 requests, vLLM's FLOP estimate
    assert ray.scalars == vllm.scalars and ray.scalars["generation_tokens"] == 416
    assert ray.scalars["estimated_flops"] == pytest.approx(8.62670848e8)
    assert ray.histograms["ttft_s"].mean == pytest.approx(3.990330 / 13)
    assert ray.replicas == 1 and ray.engine == "ray-vllm"


def test_two_replicas_on_one_ray_node_are_two_engines() -> None:
    # one node's page: two replicas (two workers, each engine="0"); counters add up, KV is their mean
    one = observe(parse(ray_page(VLLM), 0.0, "ray"), "ray")
    two = observe(parse(ray_page(VLLM, workers=("", "b")), 0.0, "ray"), "ray")
    assert two.replicas == 2
    assert two.scalars["prompt_tokens"] == 2 * 713 and two.scalars["requests_finished"] == 2 * 13
    assert two.scalars["kv_usage"] == one.scalars["kv_usage"]  # (x + x) / 2


def test_real_ray_2_32_page_keeps_the_colon() -> None:
    # A real Ray 2.32 node page (vLLM V0 names under ray_vllm:, one 70B FP8 request): the ray_vllm: prefix, Ray's
    # labels, the V0 names reported as renamed, every value as the page says it.
    obs = observe(read_file(_path(RAY_232)), "ray")
    assert obs.engine == "ray-vllm" and obs.replicas == 1
    assert obs.scalars == {
        "prompt_tokens": 58.0,
        "generation_tokens": 300.0,
        "requests_finished": 1.0,
        "requests_running": 0.0,
        "requests_waiting": 0.0,
        "kv_usage": 5.882698982295764e-05,
    }
    h = obs.histograms
    assert h["ttft_s"].mean == 0.271012544631958  # one request: its sum
    assert h["ttft_s"].quantile(0.5) == pytest.approx(0.375)  # the one sample in (0.25, 0.5]: its middle
    assert h["itl_s"].mean == pytest.approx(16.178537607192993 / 299)  # 299 gaps of 300 tokens, 54.1 ms
    assert h["e2e_s"].mean == 16.44955015182495
    assert (h["prompt_len"].mean, h["output_len"].mean) == (58.0, 300.0)
    assert obs.deprecated == (
        "ray_vllm:gpu_cache_usage_perc → ray_vllm:kv_cache_usage_perc (deprecated in 0.9)",
        "ray_vllm:time_per_output_token_seconds → ray_vllm:inter_token_latency_seconds (deprecated in 0.11)",
    )


def test_vllm_under_ray_watch_and_rules(tmp_path: Path) -> None:
    page = tmp_path / "ray_node.prom"
    page.write_text(ray_page(VLLM, workers=("", "b")))
    out = run_cli("watch", str(page), "--once", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert (doc["engine"], doc["replicas"], doc["samples"]["generation_tokens"]) == ("ray-vllm", 2, 832.0)
    records = _records("ray-vllm")
    running = 'ray_vllm_num_requests_running{job="x"} or ray_vllm:num_requests_running{job="x"}'
    assert records['rooftop:replicas""'] == (
        f"count by (job, instance) (count by (job, instance, WorkerId, engine) ({running}))"
    )
    assert (
        'rooftop:mfu"total"' in records and "ray_vllm_prompt_tokens_total{" in records['rooftop:prompt_tokens:rate""']
    )


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool absent (apt-get install prometheus)")
@pytest.mark.parametrize("engine", ["dynamo", "nim", "ray-vllm"])
def test_promtool_accepts_the_frontends_rules(engine: str, tmp_path: Path) -> None:
    _promtool(engine, tmp_path)


def test_the_cli_names_every_engine_map() -> None:
    # rules' --engine choices and watch's --engine help are written out (no map is read at import time)
    from rooftop.cli.rules import ENGINES
    from rooftop.serving.engines import engine_maps

    known = {m.engine for m in engine_maps()}
    assert set(ENGINES) == known
    out = run_cli("watch", "--help")
    listed = re.search(r"Force an engine map \(([^)]*)\)", " ".join(out.stdout.split()))
    assert listed is not None and set(listed.group(1).split(", ")) == known


def test_aphrodite_is_read_as_vllm_under_its_prefix() -> None:
    # Aphrodite's metrics tests list vLLM's names under "aphrodite:" (V0 and V1); the live vLLM 0.32
    # page renamed so reads as the same numbers, the V0 page too (its gpu_cache_usage_perc renamed)
    text = data_path("serving", VLLM).read_text()
    renamed = text.replace("vllm:", "aphrodite:")
    snap, plain = parse(renamed, 0.0, "aphrodite"), parse(text, 0.0, "vllm")
    assert detect(snap).engine == "aphrodite"
    obs, vllm = observe(snap, "aphrodite"), observe(plain, "vllm")
    assert obs.scalars == vllm.scalars and obs.scalars["generation_tokens"] == 416
    assert obs.histograms["ttft_s"].mean == pytest.approx(3.990330 / 13) and obs.replicas == 1
    v0 = data_path("serving", "vllm_v0_aibrix_docs_qwen25coder.prom").read_text().replace("vllm:", "aphrodite:")
    old = observe(parse(v0, 0.0, "old"), "old")
    assert old.engine == "aphrodite" and old.scalars["generation_tokens"] == 955
