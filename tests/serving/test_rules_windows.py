"""`rooftop rules` for models with bounded attention, evaluated by a real Prometheus, equal to watch.

gpt-oss-20b's real config (tests/data/configs/gpt-oss-20b): every other layer attends over a
128-token window; Llama-4 Scout's (llama-4-scout): three layers in four attend within 8192-token
chunks. The stub plays a vLLM at one request per second of P prompt and 182 generated tokens, so
prefill length L = P and decode context C = P + 90, both past the bound (P 1,000 and 9,000): the
rules' window terms (clamp_max) and chunk terms (%, floor) carry those layers' pairs. Before them
gpt-oss was refused ("not polynomial in the shapes") and Scout's rules were wrong past the chunk.
The recorded MFU and MBU must equal watch's accounting of the same window to 1e-9.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import data_path, run_cli
from tests.serving.prom_proc import Prometheus, needs_prometheus, serve_metrics, watch_accounts

pytestmark = [pytest.mark.slow, needs_prometheus]

REQ_PER_S, OUTPUT = 1.0, 182.0
CASES = {"gpt-oss-20b": 1000.0, "llama-4-scout": 9000.0}  # model config -> prompt tokens P


def exposition(elapsed_s: float, prompt: float) -> str:
    t = 1000.0 + elapsed_s
    lab = '{model_name="gpt-oss",engine="0"}'
    return (
        f"# TYPE vllm:prompt_tokens_total counter\nvllm:prompt_tokens_total{lab} {prompt * REQ_PER_S * t}\n"
        f"# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{lab} {OUTPUT * REQ_PER_S * t}\n"
        f"# TYPE vllm:request_success_total counter\nvllm:request_success_total{lab} {REQ_PER_S * t}\n"
        f"# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{lab} 4\n"
        f"# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{lab} 0\n"
        f"# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{lab} 0.25\n"
    )


@pytest.fixture
def stubs() -> Iterator[dict[str, str]]:
    """Model config name -> host:port of a stub playing its engine (the job is named after the model)."""
    servers = {name: serve_metrics(lambda elapsed, p=p: exposition(elapsed, p)) for name, p in CASES.items()}
    yield {name: f"127.0.0.1:{srv.server_address[1]}" for name, srv in servers.items()}
    for srv in servers.values():
        srv.shutdown()
        srv.server_close()


def test_bounded_attention_records_match_watch(stubs: dict[str, str], tmp_path: Path) -> None:
    from rooftop.api.live_model import live_model

    # Both models' rules in one Prometheus, named apart: several models on one server do not collide.
    files = []
    for name in CASES:
        rules = tmp_path / f"{name}.yml"
        args = ("rules", "-m", str(data_path("configs", name)), "-H", "h100-sxm", "--selector", f'job="{name}"')
        proc = run_cli(*args, "--window", "10s", "--name", name, "-o", str(rules))
        assert proc.returncode == 0, proc.stderr
        assert "clamp_max(" in rules.read_text() or " % " in rules.read_text()  # the window or chunk terms
        files.append(rules)
    prom = Prometheus(tmp_path, stubs, files)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(prom.query('rooftop:mfu{phase="decode"}[5s]')) < len(CASES):
            time.sleep(1)
        time.sleep(12)  # a full 10 s window of samples behind the evaluations compared
        for name in CASES:
            sel = f'model="{name}",device="h100-sxm"'
            (series,) = prom.query(f'rooftop:mfu{{{sel},phase="decode"}}[5s]')
            te = float(series["values"][-1][0])
            accounts = watch_accounts(prom, name, live_model(str(data_path("configs", name)), "h100-sxm"), te)
            got = {
                (metric, phase): prom.value(f'{metric}{{{sel},phase="{phase}"}}', te)
                for metric in ("rooftop:mfu", "rooftop:mbu")
                for phase in ("prefill", "decode")
            }
            matched = [
                acc
                for acc in accounts
                if all(
                    got["rooftop:mfu", p] == pytest.approx(acc["mfu"][p], rel=1e-9)
                    and got["rooftop:mbu", p] == pytest.approx(acc["mbu"][p], rel=1e-9)
                    for p in ("prefill", "decode")
                )
            ]
            print(f"{name}, window ending {te}: rules {got}; watch {[(a['mfu'], a['mbu']) for a in accounts]}")
            assert len(accounts) == 4 and matched, name
            assert got["rooftop:mfu", "prefill"] > 0 and got["rooftop:mbu", "decode"] > 0, name
    finally:
        prom.stop()
