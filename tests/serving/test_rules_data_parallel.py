"""`rooftop rules` in a real Prometheus: data-parallel vLLM engines behind one endpoint are counted per engine.

vLLM V1 labels each data-parallel engine's series engine="N". Two stubs on 127.0.0.1: one engine
(100 prompt and 60 generated tokens/s, 5 requests/s, 4 running, KV use 0.2), and an endpoint of two
such engines (KV use 0.2 and 0.4). Each engine of the pair runs one engine's load on its own GPUs,
so the recorded MFU/MBU per engine must equal the single engine's, the decode batch be 4 both
times, and the KV use the engines' mean, 0.3 — as watch counts them (tests/api/test_live.py).
The same under Ray (engine ray-vllm): each replica is a worker (WorkerId="wN", engine="0"), ray_vllm_* names.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.serving.prom_proc import Prometheus, needs_prometheus, serve_metrics, steady

pytestmark = [pytest.mark.slow, needs_prometheus]

RATES = {"vllm:prompt_tokens_total": 100.0, "vllm:generation_tokens_total": 60.0, "vllm:request_success_total": 5.0}


def exposition(kv: list[float], elapsed_s: float, engine: str = "vllm") -> str:
    t = 1000.0 + elapsed_s  # counters started long ago
    ray = engine == "ray-vllm"
    lab = [
        f'WorkerId="w{e}",engine="0",model_name="llama"' if ray else f'engine="{e}",model_name="llama"'
        for e in range(len(kv))
    ]
    lines = []
    for name, rate in RATES.items():
        name = name.replace("vllm:", "ray_vllm_") if ray else name
        lines.append(f"# TYPE {name.removesuffix('_total')} counter")
        lines += [f"{name}{{{x}}} {rate * t}" for x in lab]
    prefix = "ray_vllm_" if ray else "vllm:"
    lines.append(f"# TYPE {prefix}num_requests_running gauge")
    lines += [f"{prefix}num_requests_running{{{x}}} 4" for x in lab]
    lines.append(f"# TYPE {prefix}kv_cache_usage_perc gauge")
    lines += [f"{prefix}kv_cache_usage_perc{{{x}}} {u}" for x, u in zip(lab, kv, strict=True)]
    return "\n".join(lines) + "\n"


ENGINES = ("vllm", "ray-vllm")


@pytest.fixture
def stubs() -> Iterator[dict[str, str]]:
    """Job name ("vllm-one", "ray-vllm-two", …) -> host:port of its stub."""
    servers = {
        f"{engine}-{job}": serve_metrics(lambda s, kv=kv, engine=engine: exposition(kv, s, engine))
        for engine in ENGINES
        for job, kv in (("one", [0.2]), ("two", [0.2, 0.4]))
    }
    yield {job: f"127.0.0.1:{srv.server_address[1]}" for job, srv in servers.items()}
    for srv in servers.values():
        srv.shutdown()
        srv.server_close()


def _steady(prom: Prometheus, query: str) -> dict[str, float]:
    return steady(prom, "rooftop:prompt_tokens:rate", query, jobs=4, limit=1000)


def test_two_engines_count_per_engine(tmp_path: Path, stubs: dict[str, str]) -> None:
    # Both engines' rules in one Prometheus (one wait for settled windows, not two), each file
    # named and scoped to its own jobs, as two deployments of one model would be.
    files = []
    for engine in ENGINES:
        rules = tmp_path / f"{engine}.yml"
        args = ("rules", "-m", "llama-3.1-8b", "-H", "h100-sxm", "--engine", engine, "--window", "4s")
        proc = run_cli(*args, "--name", engine, "--selector", f'job=~"{engine}-.*"', "-o", str(rules))
        assert proc.returncode == 0, proc.stderr
        files.append(rules)
    prom = Prometheus(tmp_path, stubs, files)
    try:
        mfu = _steady(prom, 'rooftop:mfu{phase="total"}')
        mbu = _steady(prom, 'rooftop:mbu{phase="decode"}')
        replicas = _steady(prom, "rooftop:replicas")
        batch = _steady(prom, "rooftop:decode_batch")
        kv = _steady(prom, "rooftop:kv_usage")
        rate = _steady(prom, "rooftop:prompt_tokens:rate")  # the endpoint's own rate stays the sum
        for e in ENGINES:
            one, two = f"{e}-one", f"{e}-two"
            assert mfu[one] > 0 and mfu[two] == pytest.approx(mfu[one], rel=0.02), e
            assert mbu[two] == pytest.approx(mbu[one], rel=0.02), e
            assert (replicas[one], replicas[two]) == (1.0, 2.0), e
            assert (batch[one], batch[two]) == (4.0, 4.0), e  # 8 running over 2 engines
            assert (kv[one], kv[two]) == (pytest.approx(0.2), pytest.approx(0.3)), e
            assert (rate[one], rate[two]) == (pytest.approx(100.0, rel=0.02), pytest.approx(200.0, rel=0.02)), e
    finally:
        prom.stop()
