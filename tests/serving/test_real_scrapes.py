"""Real /metrics pages from a sweep of public ones (tests/data/serving/README.md gives each origin) read by watch.

Each test pins one bug the sweep found on these pages; its comment says what was printed before.
"""

from __future__ import annotations

import json

import pytest

from rooftop.errors import TelemetryError
from rooftop.serving.engines import engine_maps, mismatch
from rooftop.serving.exposition import Snapshot, parse
from rooftop.serving.sources import read_file
from rooftop.serving.watch import Watcher, families, observe
from tests.conftest import data_path
from tests.fuzz.harness import classify, invoke

V0 = "vllm_v0_aibrix_docs_qwen25coder.prom"
V1 = "vllm_v1_dynamo_excerpt.prom"
NIM = "nim_llama31_8b_datadog.prom"
TGI = "tgi_datadog_payload_excerpt.prom"
SGLANG = "sglang_0.5.10_datadog.prom"


def _path(name: str) -> str:
    return str(data_path("serving", name))


def _watch(*args: str):  # type: ignore[no-untyped-def]
    return invoke(["watch", *args, "--once"])


def test_a_v0_page_with_prefix_caching_off_is_read() -> None:
    # vLLM V0 exports vllm:{cpu,gpu}_prefix_cache_hit_rate = -1.0 when prefix caching is off; rooftop
    # reads neither, so they are dropped instead of refusing the page (exit 2 before)
    snap = read_file(_path(V0))
    assert "vllm:gpu_prefix_cache_hit_rate" not in snap.names() and "vllm:cpu_prefix_cache_hit_rate" not in snap.names()
    obs = observe(snap, "v0")
    # the page's own numbers: 148 prompt and 955 generated tokens, 4 requests finished by "stop"
    assert obs.scalars["prompt_tokens"] == 148 and obs.scalars["generation_tokens"] == 955
    assert obs.scalars["requests_finished"] == 4
    assert obs.scalars["kv_usage"] == 0.0  # vllm:gpu_cache_usage_perc, V0's name (reported as renamed)
    out = _watch(_path(V0), "--json")
    assert out.code == 0 and json.loads(out.out)["samples"]["generation_tokens"] == 955


def test_a_bad_value_of_a_series_rooftop_reads_is_still_refused(tmp_path) -> None:
    # the same page with the KV gauge it reads at -1: refused in one line, as before
    line = 'vllm:gpu_cache_usage_perc{model_name="Qwen/Qwen2.5-Coder-1.5B-Instruct"} 0.0'
    text = data_path("serving", V0).read_text()
    assert line in text
    path = tmp_path / "bad.prom"
    path.write_text(text.replace(line, line.replace("0.0", "-1.0")))
    with pytest.raises(TelemetryError, match=r"vllm:gpu_cache_usage_perc\{.*\} = -1: not a finite non-negative"):
        read_file(path)
    out = _watch(str(path))
    assert out.code == 2 and classify(out) == ("ok", "")


def test_sglang_03_and_05_running_and_waiting() -> None:
    # 0.3 names them sglang:num_requests_running / _waiting, 0.5.10 sglang:num_running_reqs / num_queue_reqs
    old = observe(read_file(_path("sglang_0.3_docs_gemma2_excerpt.prom")), "0.3")
    new = observe(read_file(_path(SGLANG)), "0.5")
    for obs in (old, new):
        assert obs.scalars["requests_running"] == 0.0 and obs.scalars["requests_waiting"] == 0.0
    assert old.scalars["kv_usage"] == pytest.approx(0.01) and new.scalars["kv_usage"] == pytest.approx(0.25)
    assert old.histograms["ttft_s"].mean == pytest.approx(0.30889, abs=1e-5)  # 656.078 s / 2,124 requests
    out = _watch(_path("sglang_0.3_docs_gemma2_excerpt.prom"))
    assert out.code == 0 and "running 0.0, waiting 0.0" in out.out  # 'running —, waiting —' before


@pytest.mark.parametrize(
    ("page", "engine", "message"),
    [
        (V1, "tgi", "no tgi metrics (no tgi_* series); it looks like vllm"),
        (NIM, "vllm", "no vllm metrics (no vllm:* series); it looks like nim"),  # NIM's names carry no prefix
    ],
)
def test_a_forced_engine_that_matches_nothing_is_an_error(page: str, engine: str, message: str) -> None:
    # exit 0 with every field '—' (or "samples": {}) before
    out = _watch(_path(page), "--engine", engine, "--json")
    assert out.code == 2 and classify(out) == ("ok", "") and out.out == ""
    assert out.err.strip() == f"rooftop: error: {_path(page)}: {message}"


def test_a_narrowed_scrape_still_says_what_it_looks_like() -> None:
    # a watch parses a URL's page narrowed to its engine's families; when that keeps nothing the full
    # parser reads the page, so the samples say what it looks like
    tgi = next(m for m in engine_maps() if m.engine == "tgi")
    snap = parse(data_path("serving", V1).read_text(), 0.0, "u", families("tgi"))
    assert mismatch(snap, tgi) == "u: no tgi metrics (no tgi_* series); it looks like vllm"
    # and with every sample left out, the page's # TYPE families still do
    bare = Snapshot((), 0.0, "u", snap.types)
    assert mismatch(bare, tgi) == "u: no tgi metrics (no tgi_* series); it looks like vllm"


def test_one_mismatched_endpoint_among_several_is_reported_alone() -> None:
    watcher = Watcher([_path(V1), _path(NIM)], read_file, engine="vllm")
    assert watcher.poll() == []  # a first poll closes no window
    good, bad = (watcher.state[s] for s in watcher.sources)
    assert good.up and good.last is not None and good.last.scalars["generation_tokens"] == 600
    assert not bad.up and "no vllm metrics (no vllm:* series)" in bad.last_error
    assert [e["source"] for e in watcher.events if e["event"] == "error"] == [_path(NIM)]
    out = _watch(_path(V1), _path(NIM), "--engine", "vllm")  # --once: the good one printed, the other warned
    assert out.code == 0 and f"{_path(V1)} · vllm" in out.out
    assert f"rooftop: warning: {_path(NIM)}: error: no vllm metrics" in out.err


def test_a_source_that_switches_engine_is_detected_again() -> None:
    pages = iter([V1, SGLANG, SGLANG])
    watcher = Watcher(["s"], lambda _src: read_file(_path(next(pages))))
    watcher.poll()  # detected: vllm, kept for the next polls
    watcher.poll()  # the kept engine matches nothing now: down, with what the page looks like
    assert not watcher.state["s"].up and watcher.state["s"].last_error.endswith("it looks like sglang")
    watcher.poll()  # down: the engine is detected afresh
    assert watcher.state["s"].up and watcher.state["s"].last is not None and watcher.state["s"].last.engine == "sglang"


def test_a_histogram_mean_of_zero_prints_as_zero() -> None:
    # SGLang 0.5.10's one request queued 0 s (sum 0 over count 1): mean 0 s, not '—'
    out = _watch(_path(SGLANG))
    line = next(x for x in out.out.splitlines() if x.startswith("queue"))
    assert line.split(None, 1)[1].strip() == "p50 < 1 ms, p99 < 1 ms, mean 0 s"


def test_no_engine_found_lists_every_engine_map(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # the NIM page's own process families alone (its first 36 lines: python_*, process_*) are no engine's;
    # the list names every map, trtllm-serve included
    lines = data_path("serving", NIM).read_text().splitlines(keepends=True)
    assert lines[36].startswith("# HELP num_requests_running")
    path = tmp_path / "process_only.prom"
    path.write_text("".join(lines[:36]))
    out = _watch(str(path))
    known = ", ".join(m.engine for m in engine_maps())
    assert known == "aphrodite, dynamo, llamacpp, lmdeploy, nim, ray-vllm, sglang, tgi, triton, trtllm-serve, vllm"
    assert out.code == 2 and out.err.strip().endswith(f"no known serving engine metrics (engines: {known})")
    # and with one engine forced, the message names the others
    forced = _watch(str(path), "--engine", "vllm")
    others = "(aphrodite, dynamo, llamacpp, lmdeploy, nim, ray-vllm, sglang, tgi, triton, trtllm-serve)"
    assert forced.err.strip().endswith(f"no vllm metrics (no vllm:* series), nor any other known engine's {others}")


def test_tgi_lifetime_queue_share_on_an_idle_engine() -> None:
    out = _watch(_path(TGI), "--json")
    (finding,) = json.loads(out.out)["findings"]
    ev = finding["evidence"]
    assert ev["queue_s_mean"] == pytest.approx(2.70895, abs=1e-5)  # 295.276 s queued / 109 requests
    assert ev["e2e_s_mean"] == pytest.approx(4.96527, abs=1e-5)  # 541.214 s end to end / 109
    assert ev["queue_share"] == pytest.approx(0.54558, abs=1e-5)  # 2.70895 / 4.96527 > 0.5: critical
    assert ev["requests_waiting"] == 0.0  # tgi_queue_size at the scrape: idle
    assert finding["severity"] == "critical"
    assert finding["title"] == (
        "Scheduler/queue-bound: queue 55% of end-to-end latency since the engine started; none waiting now"
    )


def test_data_parallel_engines_of_one_vllm_endpoint() -> None:
    # vLLM V1 labels each data-parallel engine's series engine="N". The real CPU capture has one
    # engine; as two (its engine="0" series copied as engine="1", KV use 0.2 and 0.4) the page
    # counts 2 replicas, the tokens of both, and the mean KV use, (0.2 + 0.4) / 2 = 0.3.
    text = data_path("serving", "vllm_cpu_0.32_live.prom").read_text(encoding="utf-8")
    second = [line.replace('engine="0"', 'engine="1"') for line in text.splitlines() if 'engine="0"' in line]
    page = text.replace(
        'vllm:kv_cache_usage_perc{engine="0",model_name="tiny"} 0.0',
        'vllm:kv_cache_usage_perc{engine="0",model_name="tiny"} 0.2',
    )
    page += (
        "\n".join(second).replace(
            'vllm:kv_cache_usage_perc{engine="1",model_name="tiny"} 0.0',
            'vllm:kv_cache_usage_perc{engine="1",model_name="tiny"} 0.4',
        )
        + "\n"
    )
    one, two = observe(parse(text, 0.0, "one"), "one"), observe(parse(page, 0.0, "two"), "two")
    assert (one.replicas, two.replicas) == (1, 2)
    assert two.scalars["prompt_tokens"] == 2 * one.scalars["prompt_tokens"] == 2 * 713  # 713 prompt tokens each
    assert two.scalars["kv_usage"] == pytest.approx(0.3)
    assert two.to_json()["replicas"] == 2 and type(two).from_json(two.to_json()).replicas == 2
