"""Run the rooftop CLI on one input and classify the outcome: ok, unclear, crash, hang or wrong.

In-process (``invoke``: ``rooftop.cli.main.main`` with captured stdout/stderr, a deadline enforced
by running it in a worker thread) for speed, or in a subprocess (``invoke_subprocess``) for a
sample that proves the same holds for the real process.

Classes (issue 11):

- ok: exit 0 with valid output (strict JSON when --json was asked: no NaN/Infinity, no negative
  throughput or utilisation), or exit 2 with one line on stderr and nothing on stdout; a bench
  where every request failed exits 1 after its (valid) table, as docs/serving.md says;
- unclear: exit 2 with more than one line, or a one-line error that is very long (> 600 chars);
- crash: a traceback, any other exit code, or an exception escaping ``main``;
- hang: still running at the deadline;
- wrong: exit 0 but the output is invalid (bad JSON, NaN/Infinity, negative rates or shares).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CLASSES = ("ok", "unclear", "crash", "hang", "wrong")
SRC = Path(__file__).resolve().parents[2] / "src"
_NEGATIVE_OK = {"scheduled_s", "sent_s", "schedule_lag_s", "delta", "change", "diff", "ratio_change", "t"}


@dataclass
class Outcome:
    """One run: exit code (None: hung), stdout, stderr, seconds."""

    code: int | None
    out: str
    err: str
    seconds: float
    args: list[str] = field(default_factory=list)


_LOCK = threading.Lock()


def invoke(args: list[str], timeout_s: float = 20.0, stdin: str = "") -> Outcome:
    """``rooftop ARGS`` in this process; a run past ``timeout_s`` is reported as hung (code None).

    The hung run's thread is left behind (daemon); inputs are built so that a fixed rooftop
    finishes, so this only happens for a real hang.
    """
    from rooftop.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            main(list(args))
            box["code"] = 0
        except SystemExit as exc:
            box["code"] = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException as exc:
            import traceback

            box["code"] = 1
            box["tb"] = "".join(traceback.format_exception(exc))

    started = time.monotonic()
    env = {"COLUMNS": "100", "ROOFTOP_DEBUG": None}
    with _LOCK, _env(env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _stdin(stdin):
        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        worker.join(timeout_s)
    seconds = time.monotonic() - started
    if worker.is_alive():
        return Outcome(None, out.getvalue(), err.getvalue(), seconds, list(args))
    return Outcome(box["code"], out.getvalue(), err.getvalue() + box.get("tb", ""), seconds, list(args))


@contextlib.contextmanager
def _env(values: dict[str, str | None]) -> Any:
    old = {k: os.environ.get(k) for k in values}
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextlib.contextmanager
def _stdin(text: str) -> Any:
    old = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = old


MAX_STDOUT = 256 << 20


def invoke_forked(args: list[str], timeout_s: float = 20.0) -> Outcome:
    """``rooftop ARGS`` in a fork of this process: as fast as in-process, but a hang is killed.

    The child runs :func:`invoke` and sends (code, stdout, stderr) back through a pipe; a child
    still running at the deadline is killed (SIGKILL) and reported as hung, so a runaway input
    cannot keep burning a core for the rest of the campaign. A child killed by a signal (a
    segfault) is a crash with exit code 128 + signal, as a shell reports it.
    """
    import select
    import signal

    read_end, write_end = os.pipe()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: run, report, leave without cleanup handlers
        os.close(read_end)
        try:
            got = invoke(args, timeout_s * 4)
            # stdout whole up to 256 MB: cut at 1 MB, an 8 MB `analyze --json` of 1-1000000 batches
            # reached the classifier as the tail of a document and was counted "invalid JSON"
            data = json.dumps([got.code, got.out[-MAX_STDOUT:], got.err[-100_000:]]).encode()
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view) :]
        finally:
            os._exit(0)
    os.close(write_end)
    chunks: list[bytes] = []
    try:
        while True:
            left = timeout_s - (time.monotonic() - started)
            if left <= 0 or not select.select([read_end], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return Outcome(None, "", "", time.monotonic() - started, list(args))
            piece = os.read(read_end, 1 << 20)
            if not piece:
                break
            chunks.append(piece)
    finally:
        os.close(read_end)
    _, status = os.waitpid(pid, 0)
    seconds = time.monotonic() - started
    if os.WIFSIGNALED(status):
        return Outcome(128 + os.WTERMSIG(status), "", f"killed by signal {os.WTERMSIG(status)}", seconds, list(args))
    try:
        code, out, err = json.loads(b"".join(chunks))
    except ValueError:
        return Outcome(1, "", "the child sent no result", seconds, list(args))
    return Outcome(code, out, err, seconds, list(args))


def invoke_subprocess(args: list[str], timeout_s: float = 60.0, cwd: str | Path | None = None) -> Outcome:
    """``python -m rooftop ARGS`` in a fresh process (the real exit code and streams)."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "100"}
    env.pop("ROOFTOP_DEBUG", None)
    started = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "rooftop", *args],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return Outcome(None, out, "", time.monotonic() - started, list(args))
    return Outcome(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started, list(args))


def _bad_numbers(obj: Any, key: str = "") -> str:
    """The first negative rate/share/utilisation or non-finite number in parsed JSON, or ''."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            found = _bad_numbers(v, str(k))
            if found:
                return found
        return ""
    if isinstance(obj, list):
        for v in obj:
            found = _bad_numbers(v, key)
            if found:
                return found
        return ""
    if isinstance(obj, float) and not math.isfinite(obj):
        return f"{key} = {obj}"
    if isinstance(obj, int | float) and not isinstance(obj, bool) and obj < 0:
        meaningful = any(w in key for w in ("per_s", "tokens_per", "mfu", "mbu", "share", "goodput", "throughput"))
        if meaningful and key not in _NEGATIVE_OK:
            return f"{key} = {obj}"
    return ""


def _json_docs(text: str) -> list[Any]:
    """One JSON document, or JSON lines."""
    text = text.strip()
    if not text:
        return []
    try:
        return [json.loads(text, parse_constant=_refuse)]
    except ValueError as whole:
        try:
            return [json.loads(line, parse_constant=_refuse) for line in text.splitlines() if line.strip()]
        except ValueError:
            raise whole from None  # not JSON lines either: the document's own error says more


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} in JSON output")


def classify(outcome: Outcome, wants_json: bool | None = None) -> tuple[str, str]:
    """(class, reason) of one outcome."""
    if outcome.code is None:
        return "hang", f"still running after {outcome.seconds:.1f} s"
    if "Traceback (most recent call last)" in outcome.err or "Traceback (most recent call last)" in outcome.out:
        last = [ln for ln in outcome.err.strip().splitlines() if ln.strip()][-1:] or ["?"]
        return "crash", last[0][:200]
    if outcome.code == 2:
        lines = [ln for ln in outcome.err.strip().splitlines() if ln.strip() and "warning:" not in ln]
        if len(lines) == 1 and len(lines[0]) <= 600 and lines[0].startswith(("rooftop: error:", "Error:", "Usage:")):
            return "ok", ""
        return "unclear", f"{len(lines)} lines: {outcome.err.strip()[:200]!r}"
    if (
        outcome.code == 1
        and outcome.err.strip().splitlines()[-1:]
        and outcome.err.strip().splitlines()[-1].startswith("rooftop: error: every request failed")
    ):
        outcome = Outcome(0, outcome.out, "", outcome.seconds, outcome.args)  # docs/serving.md: a run that served
        # nothing exits 1 after printing its table; the table must still be valid
    elif outcome.code != 0:
        return "crash", f"exit code {outcome.code}: {outcome.err.strip()[-200:]!r}"
    as_json = wants_json if wants_json is not None else ("--json" in outcome.args)
    if "nan %" in outcome.out.lower() or "nan%" in outcome.out.lower() or " inf s" in outcome.out:
        return "wrong", "NaN or inf printed"
    if as_json:
        try:
            docs = _json_docs(outcome.out)
        except ValueError as exc:
            return "wrong", f"invalid JSON on stdout: {str(exc)[:120]}"
        for doc in docs:
            bad = _bad_numbers(doc)
            if bad:
                return "wrong", bad
    else:
        for token in ("tokens/s −", "tokens/s -", "MFU -", "MBU -", "MFU −", "MBU −"):
            if token in outcome.out:
                return "wrong", f"negative figure printed ({token})"
    return "ok", ""
