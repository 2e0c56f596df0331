"""What the rules read beyond points, roofs and totals: a typed section per source, a module each.

* ``profile.ProfileEvidence`` — a live profile's step (``api/profile.py``): step time and the gaps
  between operators;
* ``live.LiveEvidence`` — a serving window (``api/window.py``): gauges, counter increases, latency
  quantiles and, with a model, the window's utilisation;
* ``memory.MemoryEvidence`` — the analytic memory budget per GPU (``analytic/summary.memory_at``):
  weights, KV, activations against the usable capacity;
* ``timeline.TimelineEvidence`` — an imported trace's GPU timeline (``ingest/timeline.py``): idle
  time, collectives, launch overhead.

Each has ``from_dict`` for the JSON section its producer writes into the artifact, so a rule never
reads a string key. A module a source: a command loads only its own (``rooftop import`` starts
faster without the others' modules, docs/import.md).
"""
