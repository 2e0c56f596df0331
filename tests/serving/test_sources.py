from __future__ import annotations

import pytest

from rooftop.errors import TelemetryError
from rooftop.serving.engines import engine_name_regex
from rooftop.serving.sources import (
    fetch,
    metrics_url,
    prometheus_instant,
    prometheus_range,
    read_file,
)
from tests.conftest import data_path
from tests.serving.prom_api import FakePrometheus
from tests.serving.stub_server import StubServer

GEN = {"__name__": "vllm:generation_tokens_total", "engine": "0", "job": "vllm", "model_name": "tiny"}
PROMPT = {"__name__": "vllm:prompt_tokens_total", "engine": "0", "job": "vllm", "model_name": "tiny"}


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000/metrics"),
        ("http://127.0.0.1:8000/", "http://127.0.0.1:8000/metrics"),
        ("http://127.0.0.1:8000/metrics", "http://127.0.0.1:8000/metrics"),
        ("http://host:9/prometheus/metrics", "http://host:9/prometheus/metrics"),  # trtllm-serve keeps its path
    ],
)
def test_metrics_url(url: str, expected: str) -> None:
    assert metrics_url(url) == expected


def test_fetch_from_a_live_endpoint_and_its_failures() -> None:
    stub = StubServer(metrics="# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total 42\n").start()
    try:
        snap = fetch(stub.url, timeout_s=2)
        assert snap.source == f"{stub.url}/metrics" and snap.total("vllm:generation_tokens_total") == 42
        stub.mode = "garbage"
        with pytest.raises(TelemetryError, match=f"{stub.url}/metrics"):
            fetch(stub.url, timeout_s=2)
        stub.mode = "hang"
        with pytest.raises(TelemetryError, match="no answer within 0.3 s"):
            fetch(stub.url, timeout_s=0.3)
    finally:
        stub.stop()
    with pytest.raises(TelemetryError, match=r"http://127\.0\.0\.1:9/metrics: unreachable"):
        fetch("http://127.0.0.1:9", timeout_s=1)


def test_scrapes_keep_their_connection_alive_and_recover_after_an_error() -> None:
    import pycurl

    from rooftop.serving import scrape

    stub = StubServer(metrics="# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total 42\n").start()

    def connects() -> int:  # the connections libcurl had to open for the last scrape (0: one kept alive)
        return int(scrape._HANDLES[f"{stub.url}/metrics"].getinfo(pycurl.NUM_CONNECTS))

    try:
        fetch(stub.url, timeout_s=2)
        assert connects() == 1
        assert fetch(stub.url, timeout_s=2).total("vllm:generation_tokens_total") == 42 and connects() == 0
        with pytest.raises(TelemetryError, match=f"{stub.url}/nope: HTTP 404"):
            fetch(f"{stub.url}/nope", timeout_s=2)
        assert fetch(stub.url, timeout_s=2).total("vllm:generation_tokens_total") == 42
        stub.mode = "hang"
        with pytest.raises(TelemetryError, match="no answer within 0.3 s"):
            fetch(stub.url, timeout_s=0.3)
        stub.mode = "ok"
        assert fetch(stub.url, timeout_s=2).total("vllm:generation_tokens_total") == 42
        assert connects() == 1  # the hung connection was given up: a fresh one
    finally:
        stub.stop()


def test_what_libcurl_refuses_is_one_line_naming_the_url() -> None:
    from tests.fuzz.servers import HostileServer, response

    body = b"\x1f\x8b not gzip at all"
    with HostileServer(lambda m, p, b: response(body, headers={"content-encoding": "gzip"})) as srv:
        with pytest.raises(
            TelemetryError, match=rf"{srv.url}/metrics: cannot decode the body \(Content-Encoding 'gzip'"
        ):
            fetch(srv.url, timeout_s=2)
        srv.route = lambda m, p, b: response(b"x", headers={"content-encoding": "squeeze"})
        with pytest.raises(TelemetryError, match="cannot decode the body \\(Content-Encoding 'squeeze'"):
            fetch(srv.url, timeout_s=2)
    with pytest.raises(TelemetryError, match="unreachable"):
        fetch("file:///etc/passwd", timeout_s=2)  # http and https only
    with pytest.raises(TelemetryError, match=r"^'http://a\\x00b/metrics': not a URL \(embedded null byte\)$"):
        fetch("http://a\x00b", timeout_s=2)


def test_a_trickling_server_is_cut_at_the_total_deadline() -> None:
    import socket
    import threading
    import time

    body = b"# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total 42\n"
    answer = b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)
    server = socket.create_server(("127.0.0.1", 0))

    def trickle() -> None:  # the whole valid answer, a byte every 50 ms (headers ~2 s, all ~6 s): reads are quick
        conn, _ = server.accept()
        with conn:
            conn.recv(65536)
            for i in range(len(answer)):
                try:
                    conn.sendall(answer[i : i + 1])
                except OSError:
                    return
                time.sleep(0.05)

    worker = threading.Thread(target=trickle, daemon=True)
    worker.start()
    url = f"http://127.0.0.1:{server.getsockname()[1]}"
    started = time.monotonic()
    try:  # per-read timeouts would wait out the ~2 s of headers at least; the total deadline fails at 0.5 s
        with pytest.raises(TelemetryError, match="no answer within 0.5 s"):
            fetch(url, timeout_s=0.5)
        assert time.monotonic() - started < 1.8  # 0.5 s and a margin for a loaded machine, not the 2 s of headers
    finally:
        server.close()
        worker.join(5)


def test_read_file_fixture_and_bad_files(tmp_path) -> None:
    snap = read_file(data_path("serving", "vllm_cpu_0.32_live.prom"))
    assert snap.total("vllm:generation_tokens_total") == 416  # the fixture README's 416 generated tokens
    with pytest.raises(TelemetryError, match="cannot read"):
        read_file(tmp_path / "absent.prom")
    binary = tmp_path / "b.prom"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(TelemetryError, match="not a text exposition file"):
        read_file(binary)


def test_prometheus_instant_query_and_samples() -> None:
    with FakePrometheus() as prom:
        prom.answer(
            "/api/v1/query",
            {
                "status": "success",
                "data": {
                    "resultType": "vector",
                    "result": [
                        {"metric": GEN, "value": [1700000000.5, "160"]},
                        {"metric": PROMPT, "value": [1700000001.0, "480"]},
                    ],
                },
            },
        )
        snap = prometheus_instant(prom.url, 'job="vllm"', timeout_s=2)
    path, params = prom.queries[0]
    assert path == "/api/v1/query" and "time" not in params
    assert params["query"] == '{__name__=~"' + engine_name_regex() + '",job="vllm"}'
    assert snap.total("vllm:generation_tokens_total") == 160 and snap.total("vllm:prompt_tokens_total") == 480
    assert snap.time_s == 1700000001.0  # the newest sample's time
    assert dict(snap.samples[0].labels) == {"engine": "0", "job": "vllm", "model_name": "tiny"}  # __name__ dropped
    assert snap.source == f'{prom.url} job="vllm"'


def test_prometheus_range_query_groups_by_time() -> None:
    with FakePrometheus() as prom:
        prom.answer(
            "/api/v1/query_range",
            {
                "status": "success",
                "data": {
                    "resultType": "matrix",
                    "result": [
                        {"metric": GEN, "values": [[100, "10"], [105, "60"]]},
                        {"metric": PROMPT, "values": [[100, "30"], [105, "180"]]},
                    ],
                },
            },
        )
        snaps = prometheus_range(prom.url, "", 100.0, 105.0, 5.0)
    _, params = prom.queries[0]
    assert params["start"] == "100.0" and params["end"] == "105.0" and params["step"] == "5.0"
    assert params["query"] == '{__name__=~"' + engine_name_regex() + '"}'  # no selector: every engine series
    assert [s.time_s for s in snaps] == [100.0, 105.0]
    assert snaps[1].total("vllm:generation_tokens_total") - snaps[0].total("vllm:generation_tokens_total") == 50


@pytest.mark.parametrize(
    ("status", "body", "message"),
    [
        (200, "<html>login</html>", "not a Prometheus API answer"),
        (200, {"status": "error", "error": "parse error at char 3"}, "query failed: parse error at char 3"),
        (503, "overloaded", "HTTP 503"),
    ],
)
def test_prometheus_errors_name_the_url(status: int, body: object, message: str) -> None:
    with FakePrometheus() as prom:
        prom.answer("/api/v1/query", body, status)
        with pytest.raises(TelemetryError, match=message) as info:
            prometheus_instant(prom.url, timeout_s=2)
    assert f"{prom.url}/api/v1/query" in str(info.value)
