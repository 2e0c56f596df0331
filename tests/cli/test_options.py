import click
import pytest
from click.testing import CliRunner

from rooftop.cli.options import (
    dtype_options,
    int_list_option,
    parse_int_list,
    slo_options,
    tokens_option,
    workload_dtypes,
)
from rooftop.errors import WorkloadError
from rooftop.models.quantization import StoredWeights


def test_lists_and_ranges():
    assert parse_int_list("1,8,64", "batch") == [1, 8, 64]
    assert parse_int_list("1-64", "batch") == [1, 2, 4, 8, 16, 32, 64]
    assert parse_int_list("3-20", "batch") == [3, 6, 12, 20]  # doubling, end included
    assert parse_int_list("2k,32k", "context") == [2048, 32768]
    assert parse_int_list("8,1,8", "batch") == [1, 8]


@pytest.mark.parametrize(
    ("text", "match"), [("64-1", "inverted"), ("", "empty"), ("a", "not an integer"), ("-3", "negative")]
)
def test_bad_lists(text, match):
    with pytest.raises(WorkloadError, match=match):
        parse_int_list(text, "batch")


def test_workload_dtypes_fall_back_to_dtype():
    assert workload_dtypes("bf16", "int4", None) == {
        "weight_dtype": "int4",
        "expert_dtype": "",  # '' = the weight dtype
        "act_dtype": "bf16",
        "kv_dtype": "bf16",
        "compute_dtype": "",  # '' = derived by the Workload
        "quant_group_size": 128,
    }
    assert workload_dtypes("fp16", None, "fp8", "fp32", "fp8")["compute_dtype"] == "fp8"


def test_workload_dtypes_take_the_checkpoints_unless_set_apart():
    mxfp4 = StoredWeights("mxfp4", experts="fp4", group_size=32)  # gpt-oss: experts only
    got = workload_dtypes("bf16", None, None, stored=mxfp4)
    assert (got["weight_dtype"], got["expert_dtype"], got["quant_group_size"]) == ("bf16", "fp4", 32)
    # --weight-dtype sets every weight, experts included; --expert-dtype sets them apart
    assert workload_dtypes("bf16", "fp8", None, stored=mxfp4)["expert_dtype"] == ""
    assert workload_dtypes("bf16", "fp8", None, expert_dtype="int4", stored=mxfp4)["expert_dtype"] == "int4"
    assert workload_dtypes("bf16", None, None, quant_group=64, stored=mxfp4)["quant_group_size"] == 64
    fp8 = StoredWeights("fp8", weights="fp8", experts="fp8")  # DeepSeek-V3: one dtype, stated once
    got = workload_dtypes("bf16", None, None, stored=fp8)
    assert (got["weight_dtype"], got["expert_dtype"], got["quant_group_size"]) == ("fp8", "", 128)
    assert workload_dtypes("bf16", None, None, stored=StoredWeights("hqq"))["weight_dtype"] == "bf16"  # not read


def test_shared_groups_parse_and_bound():
    @click.command()
    @int_list_option("--batch", "-b", default="1,64", help="Sequences.")
    @tokens_option("--prefix", low=0, default=0, help="Cached tokens.")
    @dtype_options("All.", "Weights.")
    @slo_options("TTFT.", "TPOT.")
    def show(**kwargs):
        click.echo(repr(sorted(kwargs.items())))

    out = CliRunner().invoke(show, ["-b", "1-4", "--weight-dtype", "int4", "--slo-tpot", "50ms"]).output
    assert "('batch', [1, 2, 4])" in out and "('weight_dtype', 'int4')" in out
    assert "('slo_tpot', 0.05)" in out and "('prefix', 0)" in out and "('kv_dtype', None)" in out
    bad = CliRunner().invoke(show, ["--prefix", str(2**24 + 1)])  # MAX_TOKENS = 2**24 = 16,777,216
    assert bad.exit_code == 2 and "16777217 is not in the range 0<=x<=16777216" in bad.output
