import json

from tests.conftest import run_cli


def test_default_teaches_the_whole_story():
    p = run_cli("analyze")
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("llama-3.1-8b ·") == 3  # prefill of 2048, decode at batch 1 and 64
    assert "TTFT" in p.stdout and "time per output token" in p.stdout
    assert "Prefill is compute-bound" in p.stdout and "Decode is weight-bandwidth bound" in p.stdout


def test_seed_figure_from_the_cli():
    p = run_cli("analyze", "--model", "llama-2-70b", "--dtype", "fp16", "--phase", "decode", "--batch", "1", "--json")
    assert p.returncode == 0, p.stderr
    totals = json.loads(p.stdout)["results"][0]["totals"]
    assert 0.041 <= totals["time_s"] < 0.0415 and round(totals["tokens_per_s"]) == 24
    assert totals["bound"] == "memory:weights" and round(totals["intensity"], 1) == 1.0


def test_output_file_and_issue_example(tmp_path):
    out = tmp_path / "run.json"
    p = run_cli(
        "analyze",
        "--model",
        "llama-3.1-8b",
        "--hardware",
        "h100-sxm",
        "--phase",
        "decode",
        "--batch",
        "1,8,64",
        "--context",
        "2048",
        "-o",
        str(out),
    )
    # -o writes the artifact and still prints the tables (issue 10: files never hide the terminal output)
    assert p.returncode == 0 and "time per output token" in p.stdout
    data = json.loads(out.read_text())
    assert [r["workload"]["batch"] for r in data["results"]] == [1, 8, 64]


def test_quantised_weights_and_tp(tmp_path):
    p = run_cli(
        "analyze",
        "-m",
        "llama-3.1-70b",
        "--weight-dtype",
        "int4",
        "--tp",
        "4",
        "--phase",
        "decode",
        "-b",
        "1",
        "--json",
    )
    data = json.loads(p.stdout)["results"][0]
    assert data["workload"]["weight_dtype"] == "int4" and data["workload"]["tp"] == 4
    assert any(op["name"] == "tp_allreduce_attn" for op in data["ops"])


def test_config_json_model(tmp_path):
    (tmp_path / "config.json").write_text(
        json.dumps(
            {
                "model_type": "llama",
                "hidden_size": 256,
                "num_hidden_layers": 2,
                "num_attention_heads": 4,
                "intermediate_size": 512,
                "vocab_size": 1000,
            }
        )
    )
    p = run_cli("analyze", "-m", str(tmp_path), "--phase", "decode", "-b", "1", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["results"][0]["workload"]["model"] == tmp_path.name


def test_calibrated_takes_a_device(tmp_path):
    # `--calibrated` alone is the CPU (what it always meant); `--calibrated cuda` on a machine whose
    # torch sees no GPU is one line and exit 2, naming the profile to run (was an AssertionError traceback)
    env = {"ROOFTOP_CACHE_DIR": str(tmp_path)}
    args = ("analyze", "-m", "llama-cpu-small", "--dtype", "fp32", "--phase", "decode", "-b", "1")
    alone = run_cli(*args, "--calibrated", env=env)
    assert alone.returncode == 2 and "no calibration cached for cpu" in alone.stderr
    gpu = run_cli(*args, "--calibrated", "cuda", env=env)
    assert gpu.returncode == 2 and "Traceback" not in gpu.stderr
    assert gpu.stderr.count("\n") == 1 and "rooftop profile --device cuda" in gpu.stderr
