"""`rooftop bench --profile`: run the profiled level (api/bench_profile.py), write its artifact, shape its output."""

from __future__ import annotations

from typing import Any

import click


def profiled(
    target: Any,
    reqs: list[Any],
    offsets: Any,
    slo: Any,
    live: Any,
    opts: Any,
    options: Any,
    rate: float,
    output: str | None,
    progress: Any,
) -> Any:
    """Run it; write the artifact when asked; return the BenchRun of its one level (for the usual output)."""
    from rooftop.api.bench import BenchRun
    from rooftop.api.bench_profile import bench_profiled, preflight, window_bounds

    window_bounds(offsets, opts.window_s)
    preflight(target, opts.folder)  # before the progress bar: a refusal is one line
    with progress(rate, len(offsets)) as on_done:
        done = bench_profiled(target, reqs[: len(offsets)], offsets, slo, live, opts, options, on_done, rate)
    if output:
        from rooftop.core import artifact
        from rooftop.core.atomic import write_atomic
        from rooftop.errors import ReportError

        write_atomic(output, artifact.dumps(done.artifact(live, target)), ReportError)
        click.echo(f"wrote {output}", err=True)
    rec = done.record
    client, engine = rec["client"], rec["engine"]
    click.echo(
        f"profiled {rec['load_offsets_s'][0]:.1f}–{rec['load_offsets_s'][1]:.1f} s of the load: "
        f"{len(rec['traces'])} trace(s); requests finished client {client['finished_in_window']} / "
        f"engine {engine['requests_finished']}; "
        f"tokens client {client['token_chunks_in_window']} / engine {engine['generation_tokens']}; "
        f"same interval: {'yes' if rec['contained'] else 'NO'}",
        err=True,
    )
    level = done.level
    window = {**done.window.extra["bench"], "engine": level.engine, "profile": rec}
    return _Profiled(BenchRun((level,), {}), window)


class _Profiled:
    """The level's usual output plus the window's own summary under ``profile_window``."""

    def __init__(self, run: Any, window: dict[str, Any]) -> None:
        self.run, self.window = run, window

    def runs(self) -> list[dict[str, Any]]:
        return list(self.run.runs())

    def document(self) -> dict[str, Any]:
        return {**self.run.document(), "profile_window": self.window}
