"""`rooftop rules` in a real Prometheus scraping the real vLLM CPU build under load, against `rooftop watch`.

Timeline: a warm-up (counters leave zero), 25 s idle, the load, idle again. Prometheus evaluates
the rules every second over a 60 s window; we compare one evaluation te whose window starts in the
idle gap before the load and ends after it, so the rules' samples (the first after te − 60) and
watch's (the last at or before te − 60) hold the same counter values and the two windows see the
same tokens. `rooftop watch --prometheus … --since 60` is run inside that same stretch.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.serving.prom_proc import Prometheus, needs_prometheus
from tests.serving.vllm_proc import Vllm, bench

pytestmark = [pytest.mark.slow, needs_prometheus]

WINDOW_S, GAP_S = 60.0, 25.0
# A loaded machine can delay Prometheus's 1 s scrapes: the window starts this long after the warm-up.
SCRAPE_SLACK_S = 10.0


def _recorded(prom: Prometheus, sel: str, lo: float, hi: float) -> float:
    """An evaluation time of the rules inside (lo, hi), waiting for one when needed."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for series in prom.query(f'rooftop:mfu{{{sel},phase="total"}}[90s]'):
            stamps = [float(t) for t, _ in series["values"] if lo < float(t) < hi]
            if stamps:
                return stamps[0]
        time.sleep(1)
    pytest.fail(f"no rule evaluation between {lo} and {hi}")


def test_rules_equal_watch_on_real_vllm(vllm: Vllm, model_dir: Path, tmp_path: Path) -> None:
    config = str(model_dir / "config.json")
    rules = tmp_path / "rooftop.yml"
    made = run_cli(
        *("rules", "-m", config, "--dtype", "fp32", "--name", "tiny", "--selector", 'job="vllm"'),
        *("--window", "60s", "-o", str(rules)),
    )
    assert made.returncode == 0, made.stderr
    prom = Prometheus(tmp_path, {"vllm": f"127.0.0.1:{vllm.port}"}, [rules])
    try:
        bench(vllm.url, model_dir, "8", 2)  # warm-up: counters and histograms exist and are > 0
        warm_end = time.time()
        time.sleep(GAP_S)
        load_start = time.time()
        bench(vllm.url, model_dir, "4", 12)
        load_end = time.time()
        lo, hi = max(load_end + 3, warm_end + WINDOW_S + SCRAPE_SLACK_S), load_start - 2 + WINDOW_S
        assert lo < hi, f"the load took {load_end - load_start:.0f} s: too long for a {WINDOW_S:.0f} s window"
        time.sleep(max(0.0, lo + 0.5 - time.time()))
        started = time.time()
        watched = run_cli(
            *("watch", "--prometheus", prom.url, "--selector", 'job="vllm"', "--since", "60"),
            *("-m", config, "--dtype", "fp32", "--json"),
        )
        assert watched.returncode == 0, watched.stderr
        assert time.time() < hi, "watch ran past the idle stretch"
        w = json.loads(watched.stdout)
        sel = 'model="tiny",device="h100-sxm"'
        te = _recorded(prom, sel, max(lo, started - 1), hi)
        got = {
            f"{name} {phase}": prom.value(f'rooftop:{name}{{{sel},phase="{phase}"}}', te)
            for name in ("mfu", "mbu")
            for phase in ("prefill", "decode", "total")
        }
        got["prompt tokens/s"] = prom.value(f"rooftop:prompt_tokens:rate{{{sel}}}", te)
        got["generation tokens/s"] = prom.value(f"rooftop:generation_tokens:rate{{{sel}}}", te)
        got["requests/s"] = prom.value(f"rooftop:requests_finished:rate{{{sel}}}", te)
        want = {f"{n} {p}": w[n][p] for n in ("mfu", "mbu") for p in ("prefill", "decode", "total")}
        want["prompt tokens/s"] = w["rates"]["prompt_tokens_per_s"]
        want["generation tokens/s"] = w["rates"]["generation_tokens_per_s"]
        want["requests/s"] = w["rates"]["requests_per_s"]
        for key in want:
            print(f"{key:>20}: watch {want[key]:.9g}  rules {got[key]:.9g}  ({got[key] / want[key] - 1:+.1e})")
        assert want["generation tokens/s"] == pytest.approx(12 * 16 / WINDOW_S, rel=0.02)  # 12 requests × 16 tokens
        for key in want:
            assert got[key] == pytest.approx(want[key], rel=0.02), key
    finally:
        prom.stop()
