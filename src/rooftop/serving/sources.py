"""Where snapshots come from: an engine's /metrics URL, a saved exposition file, or a Prometheus server.

Every failure becomes a TelemetryError that names the URL and what went wrong (refused, timed
out, HTTP status, not exposition format), so a watch loop can report it and carry on.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rooftop.errors import TelemetryError
from rooftop.serving.exposition import Sample, Snapshot, parse

ENGINE_NAME_REGEX = "(vllm|sglang|llamacpp|trtllm):.*|tgi_.*|nv_inference_.*|nv_trt_llm_.*|trtllm_.*"


def metrics_url(url: str) -> str:
    """``http://host:port`` → ``http://host:port/metrics`` (a URL with a path is kept)."""
    rest = url.split("://", 1)[-1]
    return url if "/" in rest.rstrip("/") else url.rstrip("/") + "/metrics"


_CLIENTS: dict[str, Any] = {}  # one keep-alive client per origin: a new client costs an SSL context
# (~10-80 ms CPU), and one pool shared by many origins costs a scan of every connection per request


def _client(url: str) -> Any:
    import httpx

    origin = "/".join(url.split("/", 3)[:3])
    if origin not in _CLIENTS:
        if "" not in _CLIENTS:
            _CLIENTS[""] = httpx.create_ssl_context()  # built once, shared by every client
        _CLIENTS[origin] = httpx.Client(verify=_CLIENTS[""])
    return _CLIENTS[origin]


def _get(url: str, timeout_s: float, params: dict[str, Any] | None = None) -> str:
    import httpx

    try:
        resp = _client(url).get(url, params=params, timeout=timeout_s)
    except httpx.TimeoutException:
        raise TelemetryError(f"{url}: no answer within {timeout_s:g} s (hanging endpoint)") from None
    except httpx.HTTPError as exc:
        raise TelemetryError(f"{url}: unreachable ({type(exc).__name__}: {exc})") from None
    if resp.status_code != 200:
        raise TelemetryError(f"{url}: HTTP {resp.status_code}")
    return str(resp.text)


def fetch(url: str, timeout_s: float = 5.0) -> Snapshot:
    """Scrape one /metrics endpoint."""
    target = metrics_url(url)
    text = _get(target, timeout_s)
    return parse(text, time.time(), target)


def read_file(path: str | Path) -> Snapshot:
    """A saved exposition file (for offline analysis); its time is the file's modification time."""
    p = Path(path)
    try:
        return parse(p.read_text(encoding="utf-8"), p.stat().st_mtime, str(p))
    except OSError as exc:
        raise TelemetryError(f"{p}: cannot read: {exc.strerror}") from exc
    except UnicodeDecodeError:
        raise TelemetryError(f"{p}: not a text exposition file") from None


def _query(base: str, selector: str) -> str:
    inner = f'__name__=~"{ENGINE_NAME_REGEX}"'
    return "{" + inner + (f",{selector}" if selector else "") + "}"


def _json(base: str, path: str, params: dict[str, Any], timeout_s: float) -> Any:
    import json

    url = base.rstrip("/") + path
    text = _get(url, timeout_s, params)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise TelemetryError(f"{url}: not a Prometheus API answer (not JSON)") from None
    if not isinstance(data, dict) or data.get("status") != "success":
        raise TelemetryError(f"{url}: query failed: {str(data.get('error') if isinstance(data, dict) else data)[:200]}")
    return data["data"]


def _sample(metric: dict[str, str], value: Any) -> Sample:
    labels = tuple(sorted((k, v) for k, v in metric.items() if k != "__name__"))
    return Sample(metric.get("__name__", ""), labels, float(value))


def prometheus_instant(base: str, selector: str = "", timeout_s: float = 10.0, at_s: float | None = None) -> Snapshot:
    """Every engine series matching ``selector`` (e.g. 'job="vllm"') from a Prometheus server, now or at ``at_s``."""
    params: dict[str, Any] = {"query": _query(base, selector)}
    if at_s is not None:
        params["time"] = at_s
    data = _json(base, "/api/v1/query", params, timeout_s)
    samples = tuple(_sample(r["metric"], r["value"][1]) for r in data.get("result", []))
    stamp = max((float(r["value"][0]) for r in data.get("result", [])), default=at_s or time.time())
    return Snapshot(samples, stamp, f"{base} {selector}".strip())


def prometheus_range(
    base: str, selector: str, start_s: float, end_s: float, step_s: float, timeout_s: float = 30.0
) -> list[Snapshot]:
    """Snapshots at each step of [start, end] from a range query (for rates over a past window)."""
    params = {"query": _query(base, selector), "start": start_s, "end": end_s, "step": step_s}
    data = _json(base, "/api/v1/query_range", params, timeout_s)
    by_time: dict[float, list[Sample]] = {}
    for series in data.get("result", []):
        for stamp, value in series.get("values", []):
            by_time.setdefault(float(stamp), []).append(_sample(series["metric"], value))
    return [Snapshot(tuple(v), t, f"{base} {selector}".strip()) for t, v in sorted(by_time.items())]
