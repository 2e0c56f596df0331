"""Load-generator overhead and fidelity.

1. Against a local stub that streams instantly (tests/serving/stub_server.py, its own process):
   requests/s sustained at rate=inf, peak concurrent streams, and the timestamp error (how late a
   request leaves against its schedule) at a fixed offered rate. Ratios against the offered load.
2. With --vllm (needs the vLLM venv, ROOFTOP_VLLM_PYTHON): a real vLLM, the same load from
   `vllm bench serve` and from rooftop; prints TTFT and ITL mean ratios (rooftop / vllm).

    .venv/bin/python benchmarks/bench_loadgen.py [--vllm]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "src")]

from tests.serving.test_e2e_vllm import VLLM_PYTHON, Vllm, free_port  # noqa: E402

from rooftop.serving.loadgen.arrivals import arrivals  # noqa: E402
from rooftop.serving.loadgen.prompts import Lengths, synthetic  # noqa: E402
from rooftop.serving.loadgen.runner import Target, run  # noqa: E402
from rooftop.serving.loadgen.summary import Slo, summarize  # noqa: E402


def wait(url: str) -> None:
    for _ in range(100):
        try:
            httpx.get(url + "/health", timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)


def peak_concurrency(records) -> int:  # type: ignore[no-untyped-def]
    events = sorted([(r.sent_s, 1) for r in records] + [(r.end_s, -1) for r in records if r.end_s == r.end_s])
    live = peak = 0
    for _, d in events:
        live += d
        peak = max(peak, live)
    return peak


def stub_part() -> None:
    port = free_port()
    stub = subprocess.Popen([sys.executable, "-m", "tests.serving.stub_server", str(port)], cwd=REPO)
    try:
        url = f"http://127.0.0.1:{port}"
        wait(url)
        target = Target(url, "m")
        n = 2000
        reqs = synthetic(n, Lengths(32), Lengths(16))
        res = run(target, reqs, arrivals(n, float("inf")), timeout_s=60)
        s = summarize(res.records, res.duration_s, Slo())
        print(
            f"stub, rate=inf, {n} requests × 16 chunks: {s['request_throughput_rps']:.0f} req/s, "
            f"{s['output_tokens_per_s']:.0f} chunks/s, peak {peak_concurrency(res.records)} concurrent streams, "
            f"failed {s['failed']}"
        )
        for rate in (50.0, 200.0):
            n = int(rate * 5)
            res = run(target, synthetic(n, Lengths(32), Lengths(16)), arrivals(n, rate, "poisson"), timeout_s=60)
            s = summarize(res.records, res.duration_s, Slo())
            lag = s["schedule_lag_s"]
            print(
                f"stub, poisson {rate:g} req/s: achieved/offered = {s['request_throughput_rps'] / rate:.3f}; "
                f"timestamp error (send − schedule) p50 {lag['p50'] * 1e3:.2f} ms, p99 {lag['p99'] * 1e3:.2f} ms; "
                f"TTFT p50 on an instant server {s['ttft_s']['p50'] * 1e3:.2f} ms (= client overhead)"
            )
    finally:
        stub.terminate()
        stub.wait(10)


def vllm_part() -> None:
    if not VLLM_PYTHON.exists():
        print(f"vLLM venv absent at {VLLM_PYTHON}: skipping the comparison with vllm bench serve")
        return
    tmp = Path(tempfile.mkdtemp())
    subprocess.run(
        [str(VLLM_PYTHON), str(REPO / "tests/serving/make_tiny_hf.py"), str(tmp / "m")], check=True, capture_output=True
    )
    server = Vllm(tmp / "m", tmp / "vllm.log")
    import pytest  # Vllm.start uses pytest.fail on errors

    try:
        server.start()
        n, rate = 40, 2.0
        cmd = [
            str(VLLM_PYTHON),
            "-c",
            "import sys; from vllm.entrypoints.cli.main import main; sys.argv[0]='vllm'; main()",
            "bench",
            "serve",
            "--backend",
            "vllm",
            "--base-url",
            server.url,
            "--model",
            "tiny",
            "--tokenizer",
            str(tmp / "m"),
            "--dataset-name",
            "random",
            "--random-input-len",
            "48",
            "--random-output-len",
            "16",
            "--num-prompts",
            str(n),
            "--request-rate",
            str(rate),
            "--ignore-eos",
            "--save-result",
            "--result-dir",
            str(tmp),
            "--result-filename",
            "v.json",
            "--percentile-metrics",
            "ttft,tpot,itl",
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        if proc.returncode != 0:
            print("vllm bench serve failed:", proc.stderr[-2000:])
            return
        theirs = json.loads((tmp / "v.json").read_text())
        res = run(Target(server.url, "tiny"), synthetic(n, Lengths(48), Lengths(16)), arrivals(n, rate), timeout_s=300)
        ours = summarize(res.records, res.duration_s, Slo())
        for key, their_key in (("ttft_s", "mean_ttft_ms"), ("itl_s", "mean_itl_ms"), ("tpot_s", "mean_tpot_ms")):
            mine = ours[key]["mean"] * 1e3
            print(
                f"{key[:-2].upper()} mean: rooftop {mine:.2f} ms, vllm bench serve {theirs[their_key]:.2f} ms, "
                f"ratio {mine / theirs[their_key]:.3f}"
            )
    finally:
        server.stop()
        del pytest


if __name__ == "__main__":
    os.chdir(REPO)
    stub_part()
    if "--vllm" in sys.argv:
        vllm_part()
