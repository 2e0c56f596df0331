"""A Grafana dashboard (JSON model) over the series that rooftop's recording rules write.

One time-series panel per figure (MFU, MBU, tokens/s, achieved FLOP/s and bytes/s, latency
means, queue and KV usage), each filtered by the dashboard's model, device and instance
variables, so one dashboard serves every model whose rules share the Prometheus.
"""

from __future__ import annotations

from typing import Any

FILTER = 'model=~"$model",device=~"$device",instance=~"$instance"'

PANELS: tuple[tuple[str, str, str, str], ...] = (
    # title, expression, unit, legend
    ("MFU", f"rooftop:mfu{{{FILTER}}}", "percentunit", "{{instance}} {{phase}}"),
    ("MBU", f"rooftop:mbu{{{FILTER}}}", "percentunit", "{{instance}} {{phase}}"),
    ("Tokens per second", f"rooftop:tokens_per_s{{{FILTER}}}", "short", "{{instance}} {{phase}}"),
    ("Achieved model FLOP/s", f"rooftop:model_flop_per_s{{{FILTER}}}", "short", "{{instance}} {{phase}}"),
    ("Achieved HBM bytes/s", f"rooftop:hbm_bytes_per_s{{{FILTER}}}", "Bps", "{{instance}} {{phase}}"),
    ("TTFT (mean in window)", f"rooftop:ttft_s:mean{{{FILTER}}}", "s", "{{instance}}"),
    ("Inter-token latency (mean)", f"rooftop:itl_s:mean{{{FILTER}}}", "s", "{{instance}}"),
    ("Requests running / waiting", f'{{__name__=~"rooftop:requests_(running|waiting)",{FILTER}}}', "short", ""),
    ("KV-cache usage", f"rooftop:kv_usage{{{FILTER}}}", "percentunit", "{{instance}}"),
)


def _variable(name: str, metric: str) -> dict[str, Any]:
    return {
        "name": name,
        "type": "query",
        "datasource": {"type": "prometheus", "uid": "${datasource}"},
        "query": f"label_values({metric}, {name})",
        "refresh": 2,
        "includeAll": True,
        "multi": True,
        "current": {"text": "All", "value": "$__all"},
    }


def _panel(index: int, title: str, expr: str, unit: str, legend: str) -> dict[str, Any]:
    return {
        "id": index + 1,
        "type": "timeseries",
        "title": title,
        "datasource": {"type": "prometheus", "uid": "${datasource}"},
        "gridPos": {"h": 8, "w": 12, "x": 12 * (index % 2), "y": 8 * (index // 2)},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "targets": [{"refId": "A", "expr": expr, "legendFormat": legend or "{{instance}} {{__name__}}", "range": True}],
    }


def dashboard(title: str = "rooftop: live roofline") -> dict[str, Any]:
    """The dashboard JSON model (import it in Grafana; pick the Prometheus data source)."""
    datasource = {"name": "datasource", "type": "datasource", "query": "prometheus", "label": "Prometheus"}
    return {
        "title": title,
        "uid": "rooftop-live",
        "tags": ["rooftop", "llm-serving"],
        "schemaVersion": 39,
        "time": {"from": "now-1h", "to": "now"},
        "refresh": "30s",
        "templating": {
            "list": [
                datasource,
                _variable("model", "rooftop:mfu"),
                _variable("device", "rooftop:mfu"),
                _variable("instance", "rooftop:tokens_per_s"),
            ]
        },
        "panels": [_panel(i, *p) for i, p in enumerate(PANELS)],
    }
