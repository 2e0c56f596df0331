"""`rooftop bench` end to end against the stub server (a real subprocess CLI, a real HTTP stream)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator

import pytest

from rooftop.cli.bench import _rates
from rooftop.errors import WorkloadError
from tests.conftest import run_cli
from tests.serving.stub_server import StubServer
from tests.serving.test_watch import vllm_text


@pytest.fixture
def stub() -> Iterator[StubServer]:
    server = StubServer(metrics=vllm_text(100, 50)).start()
    yield server
    server.stop()


def test_json_summary_has_the_documented_keys(stub: StubServer) -> None:
    proc = run_cli(
        "bench", stub.url, "--rate", "200", "--requests", "12", "--prompt-len", "16", "--output-len", "4",
        "--slo-ttft", "2s", "--slo-tpot", "500ms", "--json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    s = json.loads(proc.stdout)
    keys = {"requests", "failed", "ttft_s", "tpot_s", "itl_s", "e2e_s", "output_tokens_per_s", "goodput_rps", "slo"}
    assert keys <= set(s)  # the JSON interface
    assert s["requests"] == 12 and s["failed"] == 0 and s["output_tokens"] == 48  # 12 × 4 tokens from usage
    assert s["input_tokens"] == 12 * 16  # token-id prompts: exactly --prompt-len tokens each
    assert s["slo"] == {"ttft_s": 2.0, "tpot_s": 0.5, "e2e_s": None}
    assert set(s["ttft_s"]) == {"p50", "p90", "p99", "mean"}
    assert s["rate"] == 200.0 and s["arrival"] == "poisson"
    assert s["engine"]["engine"] == "vllm"  # /metrics scraped before and after
    assert stub.requests == 12


def test_rate_sweep_csv_and_artifact(stub: StubServer, tmp_path) -> None:
    out, table = tmp_path / "run.json", tmp_path / "req.csv"
    proc = run_cli(
        "bench", stub.url, "--served-model", "m", "--rates", "100,200", "--requests", "6", "--prompt-len", "8",
        "--output-len", "3", "--no-scrape", "--csv", str(table), "-o", str(out), "--json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [r["rate"] for r in doc["runs"]] == [100.0, 200.0] and set(doc["sweep"]) == {
        "best_goodput_rate",
        "best_goodput_rps",
        "knee_rate",
    }
    assert all(r["engine"] is None for r in doc["runs"])  # --no-scrape
    rows = list(csv.DictReader(table.open()))
    assert len(rows) == 12 and {r["rate"] for r in rows} == {"100.0", "200.0"}
    assert all(r["error"] == "" and r["chunks"] == "3" for r in rows)
    run = json.loads(out.read_text())
    assert run["schema"] == "rooftop.run/1" and len(run["results"]) == 2


def test_chat_dataset_and_human_table(stub: StubServer, tmp_path) -> None:
    data = tmp_path / "prompts.jsonl"
    data.write_text('{"prompt": "hello there"}\n{"messages": [{"role": "user", "content": "hi"}], "output_len": 2}\n')
    proc = run_cli(
        "bench", stub.url, "--chat", "--dataset", str(data), "--requests", "4", "--output-len", "5", "--rate", "inf"
    )
    assert proc.returncode == 0, proc.stderr
    header, row, *notes = proc.stdout.splitlines()
    assert header.startswith("rate req/s") and "goodput" in header
    assert notes[0].startswith("inf req/s: sends left")  # the send lateness under the table (issue 10)
    assert row.split()[0] == "inf" and row.split()[1] == "4/0"  # 4 done, 0 failed
    # dataset rows alternate: 5, 2, 5, 2 output tokens; the stub streams exactly max_tokens
    assert stub.requests == 4


def test_failures_are_counted_then_the_run_fails(stub: StubServer) -> None:
    # issue 10: with --served-model and every request failing, bench ended "0/3 done", exit 0, no reason
    stub.mode = "hang"
    proc = run_cli(
        "bench", stub.url, "--served-model", "m", "--requests", "3", "--rate", "inf", "--no-scrape",
        "--slo-ttft", "1s", "--timeout", "0.5", "--json",
    )  # fmt: skip
    assert proc.returncode == 1
    s = json.loads(proc.stdout)
    assert s["requests"] == 3 and s["failed"] == 3 and s["completed"] == 0
    assert s["goodput_rps"] == 0.0 and s["ttft_s"]["p50"] is None  # failures are no latency, and never good
    assert s["rate"] == "inf"  # strict JSON: no Infinity literal
    (kind,) = s["errors"]
    assert s["errors"][kind] == 3
    assert proc.stderr.strip().splitlines()[-1].startswith("rooftop: error: every request failed (3 of 3); first: ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--rate", "0"), "rates must be > 0"),
        (("--rates", "1,x"), "expected numbers"),
        (("--output-len", "5-2"), "inverted"),
        (("--slo-ttft", "soon"), "soon"),
    ],
)
def test_bad_options_are_one_line_errors(args: tuple[str, ...], message: str) -> None:
    proc = run_cli("bench", "http://127.0.0.1:9", "--served-model", "m", "--no-scrape", *args)
    assert proc.returncode == 2 and proc.stderr.startswith("rooftop: error:") and message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_nothing_listening_is_cannot_connect() -> None:
    # issue 10: it said "cannot list served models; pass --served-model", or ran 0/3 with --served-model
    for extra in ((), ("--served-model", "m")):
        proc = run_cli("bench", "http://127.0.0.1:9", "--requests", "1", *extra)
        assert proc.returncode == 2 and proc.stderr.strip() == (
            "rooftop: error: cannot connect to http://127.0.0.1:9 (Connection refused): is the server running?"
        )


def test_rates_parsing() -> None:
    assert _rates("1", None) == [1.0]
    assert _rates("1", "1, 2,inf") == [1.0, 2.0, float("inf")]  # --rates wins over --rate
    with pytest.raises(WorkloadError):
        _rates("-1", None)
