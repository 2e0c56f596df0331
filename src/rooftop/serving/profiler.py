"""The engine's own torch-profiler switch: ``POST /start_profile`` and ``POST /stop_profile``.

vLLM (>= 0.13; checked against 0.32) mounts both routes only when the server was started with
``--profiler-config '{"profiler": "torch", "torch_profiler_dir": "/abs/dir", ...}'`` (before 0.13:
the environment variable ``VLLM_TORCH_PROFILER_DIR``); otherwise they answer 404. Each worker
writes ``{prefix}_{rank suffix}.{time_ns}.pt.trace.json.gz`` into that folder when profiling
stops, and the API process writes ``{prefix}_{host}_{pid}.async_llm.….pt.trace.json.gz`` (CPU only).
SGLang serves the same two routes, takes the output folder and the prefix in the request body, and
each rank writes ``{prefix}-{profile_id}-TP-{tp}[-DP-{dp}][-PP-{pp}][-EP-{ep}].trace.json.gz``
(srt/managers/scheduler_profiler_mixin.py; docs: "Generated trace file naming format"). Its
``profile_id`` is ``str(time.time())`` when the server takes the start request; a SGLang older than
``profile_prefix`` writes ``{profile_id}-TP-…``, told apart by that time lying within the call.
Every failure is a TelemetryError of one line that says what to change.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import msgspec

from rooftop.errors import TelemetryError

VLLM_HINT = (
    "start vLLM with --profiler-config "
    '\'{"profiler":"torch","torch_profiler_dir":"/abs/dir","torch_profiler_record_shapes":true}\' '
    "(vLLM < 0.13: env VLLM_TORCH_PROFILER_DIR=/abs/dir; SGLang: SGLANG_TORCH_PROFILER_DIR)"
)
NOT_PROFILING = f"the engine was started without profiling; {VLLM_HINT}"
TRACE_SUFFIXES = (".pt.trace.json.gz", ".pt.trace.json")
SGLANG_SUFFIXES = (".trace.json.gz", ".trace.json")
_SGLANG_RANK = re.compile(r"-TP-\d+")
_SGLANG_UNPREFIXED = re.compile(r"(\d+(?:\.\d+)?)-TP-\d+")
_ID_SLACK_S = 0.005  # two processes' clock reads on one host (the id is taken within the call)


class Call(msgspec.Struct, frozen=True):
    """One profiler call: wall-clock seconds (time.time) when it was sent and when it returned."""

    sent_s: float
    returned_s: float


def _base(url: str) -> str:
    return url.rstrip("/").removesuffix("/metrics").removesuffix("/v1")


def is_vllm(base: str, timeout_s: float) -> bool:
    """Whether ``base`` answers GET /version as vLLM does."""
    import httpx

    try:
        resp = httpx.get(f"{base}/version", timeout=timeout_s)
        return resp.status_code == 200 and "version" in resp.json()
    except (httpx.HTTPError, ValueError, TypeError):
        return False


def _post(url: str, body: dict[str, Any] | None, timeout_s: float) -> Call:
    import httpx

    sent = time.time()
    try:
        resp = httpx.post(url, json=body, timeout=timeout_s)
    except httpx.TimeoutException:
        raise TelemetryError(f"{url}: no answer within {timeout_s:g} s") from None
    except httpx.HTTPError as exc:
        raise TelemetryError(f"{url}: unreachable ({type(exc).__name__}: {exc})") from None
    if resp.status_code in (404, 405):
        if is_vllm(_base(url), 5.0):
            raise TelemetryError(f"{url}: HTTP {resp.status_code}: {NOT_PROFILING}")
        raise TelemetryError(
            f"{url}: HTTP {resp.status_code}: endpoint does not exist (bench --profile needs vLLM's or SGLang's "
            "/start_profile and /stop_profile)"
        )
    if resp.status_code != 200:
        raise TelemetryError(f"{url}: HTTP {resp.status_code}: {resp.text.strip()[:120]}")
    return Call(sent, time.time())


def start(url: str, prefix: str, output_dir: Path | None = None, timeout_s: float = 60.0) -> Call:
    """Ask the engine to start recording (``prefix`` names the trace files of this session)."""
    # vLLM reads the prefix and takes the rest from its --profiler-config, ignoring the other fields;
    # SGLang reads them all: its default is no shapes (no FLOPs per operator) and Python stacks
    body: dict[str, Any] = {"profile_prefix": prefix, "record_shapes": True, "with_stack": False}
    if output_dir is not None:
        body["output_dir"] = str(output_dir)
    return _post(f"{_base(url)}/start_profile", body, timeout_s)


def stop(url: str, timeout_s: float = 600.0) -> Call:
    """Ask the engine to stop recording; vLLM answers once its workers have written their traces."""
    return _post(f"{_base(url)}/stop_profile", None, timeout_s)


def is_trace(path: Path) -> bool:
    """A torch-profiler trace file name."""
    return path.name.endswith(TRACE_SUFFIXES)


def _settled(files: list[Path]) -> bool:
    """Whether every file is readable to its end (gzip member complete or JSON closed)."""
    import gzip
    import zlib

    for f in files:
        try:
            if f.name.endswith(".gz"):
                with gzip.open(f, "rb") as fh:
                    while fh.read(1 << 20):
                        pass
            elif not f.read_bytes().rstrip().endswith(b"}"):
                return False
        except (OSError, EOFError, zlib.error):
            return False
    return True


def session_traces(folder: Path, prefix: str, started: Call | None = None) -> list[Path]:
    """The worker traces of session ``prefix`` in ``folder``: vLLM's ``{prefix}_…`` or SGLang's ``{prefix}-…-TP-n``.

    With the ``started`` call, also an older SGLang's ``{profile_id}-TP-n`` whose id (the server's
    time.time() at the start request) lies within that call. Not vLLM's API-process trace (CPU
    only), nor SGLang's ``merged-…`` file (every rank again).
    """
    vllm = (p for p in folder.glob(f"{prefix}_*") if is_trace(p) and ".async_llm." not in p.name)
    sglang = (p for p in folder.glob(f"{prefix}-*") if p.name.endswith(SGLANG_SUFFIXES) and _SGLANG_RANK.search(p.name))
    found = {*vllm, *sglang}
    if started is not None:
        lo, hi = started.sent_s - _ID_SLACK_S, started.returned_s + _ID_SLACK_S
        for p in folder.glob("*-TP-*"):
            m = _SGLANG_UNPREFIXED.match(p.name)
            if m and p.name.endswith(SGLANG_SUFFIXES) and lo <= float(m[1]) <= hi:
                found.add(p)
    return sorted(found)


def wait_for_traces(
    folder: Path, prefix: str, timeout_s: float, poll_s: float = 0.5, started: Call | None = None
) -> list[Path]:
    """The worker traces of session ``prefix`` in ``folder``, once written whole (TelemetryError on timeout)."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = session_traces(folder, prefix, started)
        if found and _settled(found):
            sizes = [p.stat().st_size for p in found]
            time.sleep(poll_s)
            again = session_traces(folder, prefix, started)
            if again == found and [p.stat().st_size for p in again] == sizes:
                return found
        if time.monotonic() > deadline:
            raise TelemetryError(
                f"{folder}: no complete trace {prefix}_*.pt.trace.json[.gz] (vLLM) or "
                f"{prefix}-*-TP-*.trace.json[.gz] (SGLang) after {timeout_s:g} s "
                "(is this the engine's torch_profiler_dir, on this machine? raise --profile-timeout)"
            )
        time.sleep(poll_s)
