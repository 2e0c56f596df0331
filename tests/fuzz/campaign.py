"""Drive the surfaces through the CLI and count outcomes per class (ok, unclear, crash, hang, wrong).

``run(surfaces, per_surface, seed)`` draws each surface's cases with Hypothesis (seeded, no
database, no shrinking: every example is a run to classify, not an assertion), writes the case's
files into a fresh folder, points the hostile server at the case's route, runs the CLI in a fork
of this process (imports already done, a hang killed at its deadline; see harness.invoke_forked),
every ``subprocess_every``-th case again in a fresh ``python -m rooftop``, and classifies it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

from tests.fuzz.harness import CLASSES, Outcome, classify, invoke_forked, invoke_subprocess
from tests.fuzz.servers import HostileServer
from tests.fuzz.surfaces import SURFACES, Case


@dataclass
class Tally:
    """Counts per class for one surface, and a few examples of every class but ok."""

    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    subprocess_checked: int = 0
    subprocess_mismatch: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def tried(self) -> int:
        return sum(self.counts.values())


def _fill(arg: str, folder: Path, url: str) -> str:
    return arg.replace("{dir}", str(folder)).replace("{url}", url)


def _exists(path: str) -> bool:
    try:
        return Path(path).exists()
    except OSError:  # a name too long to exist
        return False


def run_case(case: Case, folder: Path, server: HostileServer, in_process: bool = True) -> tuple[str, str, Outcome]:
    """Write the case's files, run it, classify it (partial outputs after a failure are wrong)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in case.files.items():
        (folder / name).write_bytes(data.replace(b"{dir}", str(folder).encode()))
    if case.route is not None:
        server.route = case.route
    args = [_fill(a, folder, server.url) for a in case.args]
    outcome = invoke_forked(args, case.timeout_s) if in_process else invoke_subprocess(args, case.timeout_s + 30)
    kind, reason = classify(outcome)
    if kind == "ok" and outcome.code != 0:
        left = [p for p in (_fill(o, folder, server.url) for o in case.outputs) if _exists(p)]
        if left:
            kind, reason = "wrong", f"failed run left {left[0]}"
    return kind, reason, outcome


def warm() -> None:
    """Import what the commands use, in this process, so that every forked case starts warm."""
    import importlib

    from tests.fuzz.harness import invoke
    from tests.fuzz.surfaces import DATA

    for module in ("aiohttp", "httpx", "prometheus_client.parser", "msgspec", "ijson", "matplotlib.pyplot"):
        try:
            importlib.import_module(module)
        except ImportError:
            continue
    for args in (
        ["analyze", "--model", "gpt2", "--phase", "decode", "-b", "1", "-c", "128", "--json"],
        ["sweep", "--model", "gpt2", "-b", "1", "-c", "128", "--json"],
        ["import", str(DATA / "hta-traces" / "triton_example.json.gz"), "--json"],
        ["import", str(DATA / "nsys-csv-llm-perf-opt" / "decode_cuda_gpu_kern_sum.csv"), "--json"],
        ["import", str(DATA / "ncu-csv-llm-perf-opt" / "kernel_0001.ncu.metrics.csv"), "--json"],
        ["watch", str(DATA / "serving" / "vllm_cpu_0.32_live.prom"), "--once", "--json"],
        ["bench", "--help"],
        ["report", "--help"],
        ["compare", "--help"],
    ):
        invoke(args, 120)


def run(
    surfaces: Iterable[str],
    per_surface: int,
    seed: int = 0,
    subprocess_every: int = 0,
    on_result: Callable[[str, int, str, str, Outcome], None] | None = None,
    max_seconds: float | None = None,
) -> dict[str, Tally]:
    """Run ``per_surface`` cases of each surface; returns the tallies."""
    tallies: dict[str, Tally] = {}
    root = Path(tempfile.mkdtemp(prefix="rooftop-fuzz-"))
    warm()
    try:
        with HostileServer() as server:
            for name in surfaces:
                tallies[name] = _surface(
                    name, per_surface, seed, subprocess_every, server, root, on_result, max_seconds
                )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return tallies


def _surface(
    name: str,
    n: int,
    seed: int,
    subprocess_every: int,
    server: HostileServer,
    root: Path,
    on_result: Callable[[str, int, str, str, Outcome], None] | None,
    max_seconds: float | None,
) -> Tally:
    tally = Tally()
    started = time.monotonic()

    @hypothesis_seed(seed)
    @settings(
        max_examples=n, database=None, deadline=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck)
    )
    @given(SURFACES[name])
    def one(case: Case) -> None:
        if max_seconds is not None and time.monotonic() - started > max_seconds:
            return
        i = tally.tried
        folder = root / name / str(i)
        try:
            kind, reason, outcome = run_case(case, folder, server)
            tally.counts[kind] += 1
            if kind != "ok":
                _keep(name, i, kind, reason, outcome)
                tally.examples.setdefault(kind, [])
                if len(tally.examples[kind]) < 5:
                    tally.examples[kind].append(f"{' '.join(outcome.args)[:300]} -> {reason}")
            if subprocess_every and i % subprocess_every == 0:
                again, why, _ = run_case(case, root / name / f"{i}-sub", server, in_process=False)
                tally.subprocess_checked += 1
                if again != kind:
                    tally.subprocess_mismatch.append(f"in-process {kind}, subprocess {again} ({why}): {outcome.args}")
            if on_result:
                on_result(name, i, kind, reason, outcome)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            shutil.rmtree(root / name / f"{i}-sub", ignore_errors=True)

    try:
        one()
    except Exception as exc:  # a runner failure (e.g. Hypothesis' own checks) keeps what was counted
        tally.examples.setdefault("runner", []).append(
            f"stopped after {tally.tried}: {type(exc).__name__}: {exc}"[:300]
        )
    tally.seconds = time.monotonic() - started
    return tally


def _keep(surface: str, i: int, kind: str, reason: str, outcome: Outcome) -> None:
    """With $ROOFTOP_FUZZ_KEEP set, write a non-ok input's argv, reason, stdout and stderr there."""
    keep = os.environ.get("ROOFTOP_FUZZ_KEEP")
    if not keep:
        return
    folder = Path(keep) / f"{surface}-{i}-{kind}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "args.txt").write_text(" ".join(outcome.args) + "\n" + reason + "\n")
    (folder / "stdout.txt").write_text(outcome.out[:2_000_000])
    (folder / "stderr.txt").write_text(outcome.err[:200_000])


def table(tallies: dict[str, Tally]) -> str:
    """The campaign table: per surface, tried and the count of each class."""
    head = f"{'surface':<10} {'tried':>7} " + " ".join(f"{c:>7}" for c in CLASSES) + f" {'seconds':>8}"
    lines = [head, "-" * len(head)]
    for name, t in tallies.items():
        lines.append(
            f"{name:<10} {t.tried:>7} " + " ".join(f"{t.counts.get(c, 0):>7}" for c in CLASSES) + f" {t.seconds:>8.0f}"
        )
    total = Counter[str]()
    for t in tallies.values():
        total.update(t.counts)
    lines.append(f"{'total':<10} {sum(total.values()):>7} " + " ".join(f"{total.get(c, 0):>7}" for c in CLASSES))
    return "\n".join(lines)


def details(tallies: dict[str, Tally]) -> str:
    """Examples of every non-ok class, and subprocess mismatches."""
    out: list[str] = []
    for name, t in tallies.items():
        for kind, examples in t.examples.items():
            out += [f"[{name}] {kind}: {e}" for e in examples]
        if t.subprocess_checked:
            out.append(f"[{name}] subprocess sample: {t.subprocess_checked} runs, {len(t.subprocess_mismatch)} differ")
            out += [f"[{name}]   {m[:300]}" for m in t.subprocess_mismatch[:3]]
    return "\n".join(out)


def summary(tallies: dict[str, Tally]) -> dict[str, Any]:
    """The tallies as plain data (for --json)."""
    return {
        name: {"tried": t.tried, **{c: t.counts.get(c, 0) for c in CLASSES}, "examples": t.examples}
        for name, t in tallies.items()
    }
