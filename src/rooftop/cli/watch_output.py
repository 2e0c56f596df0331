"""Terminal output of `rooftop watch`: a window's block (`--once`), its log line, and event lines.

Latency quantiles say what the engine's histogram buckets allow: a quantile in the +Inf bucket
prints as a lower bound ('> 30 s') beside the mean; one inside the first bucket as an upper bound
('< 300 ms'), never as an interpolated value that looks like data. An engine restart during the
window is said in words.
"""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console

from rooftop.core.findings import Finding
from rooftop.report.layout import pairs_table
from rooftop.report.tables import findings_group, print_line
from rooftop.units import seconds

LATENCY_NAMES = {"ttft_s": "TTFT", "tpot_s": "TPOT", "itl_s": "ITL", "e2e_s": "E2E", "queue_s": "queue"}


def _pct(x: float | None) -> str:
    return "—" if x is None or not math.isfinite(x) else f"{x:.1%}"


def _num(x: float | None, unit: str = "") -> str:
    return "—" if x is None or not math.isfinite(x) else f"{x:,.1f}{unit}"


def quantile(lat: dict[str, Any], key: str) -> str:
    """'4.2 s', '> 30 s' (in the +Inf bucket) or '< 300 ms' (inside the first bucket); '—' when absent."""
    value = lat.get(key)
    if value is None or not math.isfinite(value):
        return "—"
    q = int(key.removeprefix("p")) / 100
    open_share, first_share = lat.get("open_share"), lat.get("first_share")
    if open_share and q > 1.0 - open_share:
        return f"> {seconds(lat['open_above_s'])}"
    if first_share and q <= first_share:
        return f"< {seconds(lat['first_edge_s'])}"
    return seconds(value)


def latency_text(lat: dict[str, Any]) -> str:
    """'p50 > 30 s, p99 > 30 s, mean 213 s (77% above the last bucket, 30 s)'."""
    mean = lat.get("mean")  # a mean of 0 (SGLang's queue of an idle engine) is data: '0 s', not '—'
    shown = "—" if mean is None or not math.isfinite(mean) else seconds(mean)
    text = f"p50 {quantile(lat, 'p50')}, p99 {quantile(lat, 'p99')}, mean {shown}"
    if lat.get("open_share"):
        text += f" ({lat['open_share']:.0%} above the last bucket, {seconds(lat['open_above_s'])})"
    return text


def one_line(s: dict[str, Any]) -> str:
    """A window as one log line (streaming to a pipe or a file)."""
    rates, mfu, mbu = s.get("rates") or {}, s.get("mfu") or {}, s.get("mbu") or {}
    ttft = (s.get("latency") or {}).get("ttft_s") or {}
    finding = s["findings"][0]["title"] if s.get("findings") else "no finding"
    reset = "engine restarted (counters reset); " if s.get("reset") else ""
    return (
        f"{s['source']} [{s['engine']}] {reset}prefill {_num(rates.get('prompt_tokens_per_s'))} tok/s, "
        f"decode {_num(rates.get('generation_tokens_per_s'))} tok/s, MFU {_pct(mfu.get('total'))}, "
        f"MBU {_pct(mbu.get('total'))}, TTFT p50 {quantile(ttft, 'p50')}, "
        f"waiting {_num((s.get('samples') or {}).get('requests_waiting'))}, "
        f"KV {_pct((s.get('samples') or {}).get('kv_usage'))} — {finding}"
    )


def event_line(e: dict[str, Any]) -> str:
    """'rooftop: http://…/metrics: gap of 38.3 s: unreachable (connection refused)' — the source once."""
    source = str(e.get("source", ""))
    error = str(e.get("error", "")).removeprefix(f"{source}: ").removeprefix(f"{source}:").strip()
    gap = e.get("gap_s")
    what = str(e.get("event", "event")) + (f" of {seconds(gap)}" if isinstance(gap, int | float) else "")
    return f"rooftop: {source}: {what}" + (f": {error}" if error else "")


def render_window(s: dict[str, Any], console: Console) -> None:
    """One source's snapshot (`watch --once`): rates, utilisation, latencies, queue and KV, then findings."""
    rates, mfu, mbu, samples = (s.get(k) or {} for k in ("rates", "mfu", "mbu", "samples"))
    rows: list[tuple[str, Any]] = []
    if s.get("reset"):
        rows.append(("engine", "restarted during the window: its counters reset, rates and MFU left out"))
    if rates:
        rows.append(("tokens/s", f"prefill {_num(rates.get('prompt_tokens_per_s'))}, "
                                 f"decode {_num(rates.get('generation_tokens_per_s'))}"))  # fmt: skip
    else:
        rows.append(("tokens/s", "— (one snapshot: counters since the engine started, no interval)"))
    if mfu:
        rows.append(("MFU / MBU", f"{_pct(mfu.get('total'))} / {_pct(mbu.get('total'))}"))
    for key, name in LATENCY_NAMES.items():
        lat = (s.get("latency") or {}).get(key)
        if lat:
            rows.append((name, latency_text(lat)))
    engines = s.get("replicas") or 1
    over = f", over {engines} data-parallel engines (MFU/MBU per engine)" if engines > 1 else ""
    rows.append(("requests", f"running {_num(samples.get('requests_running'))}, "
                             f"waiting {_num(samples.get('requests_waiting'))}{over}"))  # fmt: skip
    rows.append(("KV cache in use", _pct(samples.get("kv_usage"))))
    print_line(console, f"{s['source']} · {s['engine']}", "bold")
    console.print(pairs_table(rows, console.width))
    findings = [Finding.from_dict(f) for f in s.get("findings") or []]
    if findings:
        console.print()
        console.print(findings_group(findings, console.width))
