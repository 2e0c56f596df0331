"""Live serving: engine telemetry (Prometheus /metrics), an open-loop load generator, and watch.

Modules do one job each: ``exposition`` parses the text format, ``engines`` maps each engine's
metric names (versioned data files) to canonical ones, ``rates`` and ``histograms`` turn
snapshots into rates and quantiles, ``loadgen`` drives OpenAI-compatible endpoints, ``watch``
polls and logs, ``exporter`` serves rooftop's own gauges. Heavy deps import lazily.
"""
