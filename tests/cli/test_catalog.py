import json

from tests.conftest import run_cli


def test_hardware_list_has_31():
    p = run_cli("hardware", "list", "--json")
    assert p.returncode == 0 and len(json.loads(p.stdout)) == 31


def test_hardware_show_sources():
    p = run_cli("hardware", "show", "h100-sxm")
    assert p.returncode == 0
    assert "989.4 TFLOP/s" in p.stdout and "datasheet" in p.stdout and "ridge bf16" in p.stdout


def test_models_show_counts_layers_per_mlp_width(tmp_path):
    # Gemma 3n cut to MatFormer slices: the widths were dict keys the table could not print (a traceback)
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "gemma3n_text", "intermediate_size": [8192] * 10 + [16384] * 25}))
    p = run_cli("models", "show", str(config))
    assert p.returncode == 0 and p.stderr == "", p.stderr
    rows = {" ".join(line.split()[:-1]): line.split()[-1] for line in p.stdout.splitlines() if "ffn layers" in line}
    assert rows == {"ffn layers 16384": "25", "ffn layers 8192": "10"}
    assert json.loads(run_cli("models", "show", str(config), "--json").stdout)["ffn_layers"] == {
        "16384": 25,
        "8192": 10,
    }


def test_models_list_and_show(tmp_path):
    p = run_cli("models", "list")
    assert p.returncode == 0 and "8,030,261,248" in p.stdout
    p = run_cli("models", "show", "deepseek-v3", "--json")
    data = json.loads(p.stdout)
    assert data["mla"]["kv_lora_rank"] == 512 and data["moe"]["experts"] == 256
    # issue 10: `models show` printed JSON while `hardware show` printed a table; both are tables now
    table = run_cli("models", "show", "deepseek-v3").stdout
    assert table.startswith("deepseek-v3 — 671 G parameters") and "mla kv lora rank" in table
    assert "params" in table and "671,026,419,200 (671 G)" in table and "source: deepseek-ai/DeepSeek-V3" in table
