"""rooftop's own Prometheus exporter: rooftop_* gauges served on a loopback address.

Gauges carry labels {source, phase}; the watch loop sets them after each window. Bound to
127.0.0.1 (or another loopback address) only: rooftop never opens a port to the network.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from rooftop.errors import TelemetryError

GAUGES: dict[str, str] = {
    "rooftop_mfu": "Live model FLOPs utilisation (0-1) from token rates and the analytic FLOPs per token",
    "rooftop_mbu": "Live memory-bandwidth utilisation (0-1): weight + KV bytes read per second over peak",
    "rooftop_tokens_per_second": "Tokens per second (phase=prefill: prompt tokens computed; decode: generated)",
    "rooftop_achieved_flop_per_second": "Model FLOP/s achieved",
    "rooftop_ttft_seconds": "Time to first token in the window (quantile label)",
    "rooftop_queue_requests": "Requests waiting in the engine's queue",
    "rooftop_kv_cache_usage_ratio": "KV-cache usage (0-1)",
    "rooftop_up": "1 when the last poll of the source succeeded",
}


def parse_address(text: str) -> tuple[str, int]:
    """'127.0.0.1:9109' or ':9109' → (host, port); a non-loopback host is refused."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    try:
        if not ipaddress.ip_address(host).is_loopback:
            raise TelemetryError(f"{text}: rooftop binds loopback addresses only (127.0.0.1)")
        return host, int(port)
    except ValueError:
        raise TelemetryError(f"{text!r}: expected HOST:PORT, e.g. 127.0.0.1:9109") from None


class Exporter:
    """A registry of rooftop_* gauges and the HTTP server that serves it."""

    def __init__(self, address: str) -> None:
        from prometheus_client import CollectorRegistry, Gauge, start_http_server

        self.host, self.port = parse_address(address)
        self.registry = CollectorRegistry()
        self.series: dict[tuple[str, str], set[tuple[str, str]]] = {}  # (source, gauge) -> label pairs set
        self.gauges = {
            name: Gauge(name, doc, ["source", "phase", "quantile"], registry=self.registry)
            for name, doc in GAUGES.items()
        }
        try:
            self.server, self.thread = start_http_server(self.port, addr=self.host, registry=self.registry)
        except OSError as exc:
            raise TelemetryError(f"{address}: cannot listen ({exc.strerror})") from exc
        self.port = self.server.server_address[1]

    def set(self, name: str, value: float, source: str, phase: str = "", quantile: str = "") -> None:
        """Set one gauge (NaN values are skipped: absent beats wrong)."""
        if value == value:
            self.gauges[name].labels(source=source, phase=phase, quantile=quantile).set(value)
            self.series.setdefault((source, name), set()).add((phase, quantile))

    def update(self, source: str, summary: Mapping[str, Any]) -> None:
        """Set the gauges from a watch summary (the dict `rooftop watch --json` prints)."""
        self.set("rooftop_up", 1.0, source)
        for phase, value in (summary.get("mfu") or {}).items():
            if value is not None:
                self.set("rooftop_mfu", value, source, phase)
        for phase, value in (summary.get("mbu") or {}).items():
            if value is not None:
                self.set("rooftop_mbu", value, source, phase)
        rates = summary.get("rates") or {}
        for phase, key in (("prefill", "prompt_tokens_per_s"), ("decode", "generation_tokens_per_s")):
            if rates.get(key) is not None:
                self.set("rooftop_tokens_per_second", rates[key], source, phase)
        samples = summary.get("samples") or {}
        if samples.get("requests_waiting") is not None:
            self.set("rooftop_queue_requests", samples["requests_waiting"], source)
        if samples.get("kv_usage") is not None:
            self.set("rooftop_kv_cache_usage_ratio", samples["kv_usage"], source)
        for q, value in ((summary.get("latency") or {}).get("ttft_s") or {}).items():
            if value is not None:
                self.set("rooftop_ttft_seconds", value, source, quantile=q)

    def down(self, source: str) -> None:
        """Mark a source as failing."""
        self.set("rooftop_up", 0.0, source)

    def stale(self, source: str) -> None:
        """Withdraw every series of ``source`` but ``rooftop_up`` (Prometheus' staleness: absent beats old)."""
        for name, gauge in self.gauges.items():
            if name == "rooftop_up":
                continue
            for phase, quantile in self.series.pop((source, name), set()):
                gauge.remove(source, phase, quantile)

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()
