from __future__ import annotations

import json

from tests.conftest import data_path, run_cli

TINY = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "vocab_size": 512,
    "hidden_size": 128,
    "intermediate_size": 256,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "num_key_value_heads": 2,
    "max_position_embeddings": 2048,
    "tie_word_embeddings": False,
    "hidden_act": "silu",
}


def test_watch_once_json_on_vllm_fixture(tmp_path) -> None:
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(TINY))
    prom = data_path("serving", "vllm_cpu_0.32_live.prom")
    proc = run_cli(
        "watch", str(prom), "--once", "--json", "-m", str(cfg), "--dtype", "fp32", "-o", str(tmp_path / "r.json")
    )
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    assert {"engine", "samples", "rates", "mfu", "mbu", "findings"} <= set(d)
    assert d["engine"] == "vllm" and d["samples"]["generation_tokens"] == 416
    assert d["rates"] is None and d["mfu"] is None  # one snapshot: no interval, no rate
    # our FLOPs for 713 prompt + 416 generated tokens of 13 requests, counted in vLLM's convention
    # (matmuls, full q×context rectangle, lm_head once per prompt + per decode token): within 1 % of
    # vllm:estimated_flops_per_gpu_total = 8.6267e8 (the rest: mean prompt 54.8 stands in for each length)
    assert abs(d["cross_check"]["ratio"] - 1) < 0.02
    assert json.loads((tmp_path / "r.json").read_text())["schema"] == "rooftop.run/1"


def test_watch_errors_are_one_line(tmp_path) -> None:
    bad = tmp_path / "bad.prom"
    bad.write_text("<html>oops</html>")
    proc = run_cli("watch", str(bad), "--once")
    assert proc.returncode == 2 and proc.stderr.startswith("rooftop: error:") and str(bad) in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = run_cli("watch", "http://127.0.0.1:9/metrics", "--once", "--timeout", "1")
    assert proc.returncode == 2 and "http://127.0.0.1:9/metrics" in proc.stderr
    proc = run_cli("bench", "http://127.0.0.1:9", "--served-model", "m", "--prompt-len", "0")
    assert proc.returncode == 2 and "prompt-len" in proc.stderr


def test_help_teaches() -> None:
    for cmd in ("watch", "bench"):
        proc = run_cli(cmd, "--help")
        assert proc.returncode == 0 and "Examples:" in proc.stdout
