"""`rooftop rules --engine triton` in a real Prometheus: request counters read from the client-facing model.

Triton counts a client request once in the ensemble and once more in each model it composes
(preprocessing → tensorrt_llm → postprocessing). Two stubs on 127.0.0.1: an ensemble deployment
serving 2 requests/s (each of its four models counts 2/s: summed, 8/s) and a plain one serving
3 requests/s. The recorded request rate must be watch's: 2/s and 3/s.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rooftop.serving.engines import engine_map
from rooftop.serving.exposition import parse
from tests.conftest import run_cli
from tests.serving.prom_proc import Prometheus, needs_prometheus, serve_metrics, steady

pytestmark = [pytest.mark.slow, needs_prometheus]

ENSEMBLE = {"ensemble": 2.0, "preprocessing": 2.0, "tensorrt_llm": 2.0, "postprocessing": 2.0}
PLAIN = {"llama": 3.0}


def exposition(models: dict[str, float], elapsed_s: float) -> str:
    t = 1000.0 + elapsed_s  # counters started long ago
    lines = ["# TYPE nv_inference_request_success counter"]
    lines += [f'nv_inference_request_success{{model="{m}",version="1"}} {rate * t}' for m, rate in models.items()]
    return "\n".join(lines) + "\n"


@pytest.fixture
def stubs() -> Iterator[dict[str, str]]:
    servers = {
        "ens": serve_metrics(lambda s: exposition(ENSEMBLE, s)),
        "plain": serve_metrics(lambda s: exposition(PLAIN, s)),
    }
    yield {job: f"127.0.0.1:{srv.server_address[1]}" for job, srv in servers.items()}
    for srv in servers.values():
        srv.shutdown()
        srv.server_close()


def test_watch_reads_the_same_models() -> None:
    emap = engine_map("triton")
    assert emap.request_models(parse(exposition(ENSEMBLE, 0.0), 0.0)) == ("ensemble",)
    assert emap.request_models(parse(exposition(PLAIN, 0.0), 0.0)) == ("llama",)


def _rates(tmp_path: Path, stubs: dict[str, str], *options: str, jobs: int = 2) -> dict[str, float]:
    rules = tmp_path / "rooftop.yml"
    proc = run_cli("rules", "-m", "llama-3.1-8b", "-H", "h100-sxm", "--engine", "triton", "--window", "4s",
                   *options, "-o", str(rules))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    prom = Prometheus(tmp_path, stubs, [rules])
    try:
        rate = "rooftop:requests_finished:rate"
        return steady(prom, rate, rate, jobs=jobs, limit=100)
    finally:
        prom.stop()


def test_request_rate_counts_client_requests_once(tmp_path: Path, stubs: dict[str, str]) -> None:
    rates = _rates(tmp_path, stubs)
    # ensemble: its own counter (2/s), not the sum over the four models it spans (8/s); plain: 3/s
    assert rates == {"ens": pytest.approx(2.0, rel=0.02), "plain": pytest.approx(3.0, rel=0.02)}


def test_model_label_picks_one_model(tmp_path: Path, stubs: dict[str, str]) -> None:
    rates = _rates(tmp_path, stubs, "--model-label", "tensorrt_llm", jobs=1)
    assert rates == {"ens": pytest.approx(2.0, rel=0.02)}  # the plain deployment has no such model
