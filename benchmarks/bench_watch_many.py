"""`rooftop watch` of 100 endpoints at 1 Hz: CPU used by the watch process, as a share of one core.

A stub process on 127.0.0.1 listens on ``--endpoints`` ports (default 100) and answers every
GET /metrics with a real vLLM sample (tests/data/serving/vllm_cpu_0.32_live.prom, 50 kB) whose
counters grow by a fixed step per scrape, so every window has rates, MFU/MBU and findings to
compute. ``--down`` of the endpoints (default 5) refuse connections, so ``up`` = 0 and their
series go stale, as Prometheus would show. The watch runs as its own process:

    rooftop watch URL1 .. URL100 -m llama-3.1-8b --interval 1 --count N --json

twice, with N = ``--polls`` (default 31) and N = 1; the CPU time (user + sys, from the kernel's
rusage of the child) of the long run minus the short one, over the long run's extra wall time,
is the steady-state share of one core (start-up is not counted twice). Target: < 10 %.

    .venv/bin/python benchmarks/bench_watch_many.py
    .venv/bin/python benchmarks/bench_watch_many.py --endpoints 20 --polls 11
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "tests" / "data" / "serving" / "vllm_cpu_0.32_live.prom"

STUB = r"""
import asyncio, re, sys
text = open(sys.argv[1]).read()
ports = [int(p) for p in sys.argv[2].split(",")]
COUNTER = re.compile(r"^(vllm:(?:prompt_tokens|generation_tokens|request_success|estimated_\w+)_total\S*) (\S+)$", re.M)
scrapes = {}

def page(port):
    n = scrapes[port] = scrapes.get(port, 0) + 1
    return COUNTER.sub(lambda m: f"{m.group(1)} {float(m.group(2)) + 100.0 * n}", text).encode()

async def handle(reader, writer, port):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            body = page(port)
            head = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: %d\r\n\r\n" % len(body)
            writer.write(head + body)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()

async def main():
    servers = [await asyncio.start_server(lambda r, w, p=p: handle(r, w, p), "127.0.0.1", p) for p in ports]
    print("ready", flush=True)
    await asyncio.gather(*(s.serve_forever() for s in servers))

asyncio.run(main())
"""


def free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def run_watch(urls: list[str], polls: int, model: str) -> tuple[float, float, float, list[str]]:
    """(wall s, CPU s of the child, of which system (kernel) s, stdout lines)."""
    argv = [sys.executable, "-m", "rooftop", "watch", *urls, "-m", model, "--interval", "1", "--count", str(polls)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.run([*argv, "--json", "--timeout", "2"], capture_output=True, text=True, env=env, timeout=900)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"watch failed: {proc.stderr.strip().splitlines()[-1:]}")
    sys_s = after.ru_stime - before.ru_stime
    return wall, (after.ru_utime - before.ru_utime) + sys_s, sys_s, proc.stdout.splitlines()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--endpoints", type=int, default=100)
    ap.add_argument("--down", type=int, default=5, help="endpoints that refuse connections")
    ap.add_argument("--polls", type=int, default=31)
    ap.add_argument("--model", default="llama-3.1-8b")
    args = ap.parse_args()
    ports = free_ports(args.endpoints)
    up_ports = ports[: args.endpoints - args.down]  # the rest: nothing listens (connection refused)
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(STUB)
    stub = subprocess.Popen([sys.executable, fh.name, str(SAMPLE), ",".join(map(str, up_ports))],
                            stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert stub.stdout is not None and stub.stdout.readline().strip() == "ready"
        urls = [f"http://127.0.0.1:{p}" for p in ports]
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "src")], check=False)
        la = os.getloadavg()
        print(f"{args.endpoints} endpoints ({args.down} down), {os.cpu_count()} CPUs, load average {la[0]:.2f}")
        w1, c1, s1, _ = run_watch(urls, 1, args.model)
        wn, cn, sn, lines = run_watch(urls, args.polls, args.model)
        share = (cn - c1) / (wn - w1)
        windows = [json.loads(ln) for ln in lines if ln.startswith("{")]
        ups = sum(1 for w in windows if w.get("up") == 1)
        errors = sum(1 for w in windows if w.get("event") == "error")
        print(f"1 poll: {w1:.2f} s wall, {c1:.2f} s CPU; {args.polls} polls: {wn:.2f} s wall, {cn:.2f} s CPU "
              f"(of which kernel {(sn - s1) / (cn - c1):.0%} in the steady state)")  # fmt: skip
        print(f"windows with up=1: {ups} (expected {(args.polls - 1) * len(up_ports)}); error events: {errors}")
        print(f"steady state: {share:.1%} of one core for {args.endpoints} endpoints at 1 Hz (target < 10 %): "
              f"{share / 0.10:.2f}x the limit")  # fmt: skip
        per = f"{(cn - c1) / max(1, args.polls - 1) / args.endpoints * 1e3:.2f} ms CPU"
        la = os.getloadavg()
        print(f"per endpoint per poll: {per}; load average at the end {la[0]:.2f} {la[1]:.2f} {la[2]:.2f}")
    finally:
        stub.kill()
        stub.wait()
        Path(fh.name).unlink()


if __name__ == "__main__":
    main()
