"""What the rules read beyond points, roofs and totals: typed sections per source.

* ``ProfileEvidence`` — a live profile's step (``api/profile.py``): step time and the gaps between
  operators;
* ``LiveEvidence`` — a serving window (``api/window.py``): gauges, counter increases, latency
  quantiles and, with a model, the window's utilisation;
* ``MemoryEvidence`` — the analytic memory budget per GPU (``analytic/summary.memory_at``): weights,
  KV, activations against the usable capacity;
* ``TimelineEvidence`` — an imported trace's GPU timeline (``ingest/timeline.py``): idle time,
  collectives, launch overhead.

Each has ``from_dict`` for the JSON section its producer writes into the artifact, so a rule never
reads a string key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

HOST_BOUND_SHARE = 0.5


@dataclass(frozen=True)
class ProfileEvidence:
    """A profiled step: its time and the time between operators (None when unknown)."""

    step_time_s: float | None = None
    gap_s: float | None = None
    gap_share: float | None = None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ProfileEvidence:
        """From the artifact's ``profile`` section."""
        return cls(d.get("step_time_s"), d.get("gap_s"), d.get("gap_share"))

    @property
    def host_bound(self) -> bool:
        """Half the step or more between operators: the host, not a roof, sets the step time."""
        return self.gap_share is not None and self.gap_share >= HOST_BOUND_SHARE

    def utilisation(self, metric: str, value: float) -> str:
        """'MFU 5% measured', and why it is low when the host binds (for the phase rules' titles)."""
        text = f"{metric} {value:.1%} measured"
        if self.host_bound and self.gap_share is not None:
            text += f", low because {self.gap_share:.0%} of the step is host time between operators"
        return text


@dataclass(frozen=True)
class LiveUtilisation:
    """A window's MFU and MBU per phase (keys prefill, decode, total), batch and mean prompt."""

    mfu: dict[str, float | None]
    mbu: dict[str, float | None]
    batch: float
    mean_prompt_tokens: float

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LiveUtilisation:
        """From the window's ``accounting`` JSON."""
        return cls(d["mfu"], d["mbu"], d["batch"], d["mean_prompt_tokens"])


@dataclass(frozen=True)
class LiveEvidence:
    """One serving window: engine gauges, counter increases and latency quantiles (by canonical name)."""

    gauges: dict[str, float] = field(default_factory=dict)
    deltas: dict[str, float] = field(default_factory=dict)
    latency: dict[str, dict[str, float | None]] = field(default_factory=dict)
    interval_s: float = 0.0
    utilisation: LiveUtilisation | None = None  # with a model only

    def mean_latency_s(self, key: str) -> float | None:
        """The window's mean of one latency histogram (None when the engine has none)."""
        return (self.latency.get(key) or {}).get("mean")


@dataclass(frozen=True)
class LaunchEvidence:
    """Kernels against their launch calls (medians in seconds; None when not measured)."""

    shorter_than_launch_share: float = 0.0  # of the eager kernels (CUDA/HIP-graph replays left out)
    kernel_median_s: float = 1.0
    eager: int | None = None  # kernels launched one by one (None: not recorded, all of them)
    call_median_s: float | None = None
    delay_median_s: float | None = None


@dataclass(frozen=True)
class TimelineEvidence:
    """An imported trace's GPU timeline."""

    span_s: float = 0.0
    busy_s: float = 0.0
    idle_s: float = 0.0
    largest_gap_s: float = 0.0
    largest_gap_start_us: float | None = None
    gap_host_s: float = 0.0
    gap_sync_s: float = 0.0
    gap_copy_s: float = 0.0
    gap_other_s: float = 0.0
    nccl_s: float = 0.0
    comm_compute_overlap_s: float = 0.0
    nccl_kernels: int | None = None
    collectives: tuple[dict[str, Any], ...] = ()
    kernels: int = 0
    launch: LaunchEvidence = LaunchEvidence()
    graph_kernels: int = 0
    graph_launches: int = 0

    @classmethod
    def from_dict(cls, tl: dict[str, Any]) -> TimelineEvidence:
        """From the artifact's ``timeline`` section (missing keys take the defaults)."""
        launch, graphs = tl.get("launch") or {}, tl.get("cuda_graph") or {}
        launch_keys = LaunchEvidence.__dataclass_fields__
        names = cls.__dataclass_fields__.keys() - {"collectives", "launch", "graph_kernels", "graph_launches"}
        return cls(
            **{k: tl[k] for k in names if tl.get(k) is not None},
            collectives=tuple(tl.get("collectives") or ()),
            launch=LaunchEvidence(**{k: launch[k] for k in launch_keys if launch.get(k) is not None}),
            graph_kernels=graphs.get("graph_kernels", 0),
            graph_launches=graphs.get("graph_launches", 0),
        )


@dataclass(frozen=True)
class MemoryEvidence:
    """The memory budget per GPU in bytes: what is needed against what is usable."""

    weights_bytes: float
    kv_cache_bytes: float
    activation_bytes: float
    usable_bytes: float
    free_bytes: float
    fits: bool

    @classmethod
    def from_dict(cls, m: dict[str, Any]) -> MemoryEvidence:
        """From the artifact's ``memory`` record."""
        return cls(
            float(m["weights_bytes"]),
            float(m["kv_cache_bytes"]),
            float(m.get("activation_bytes") or 0.0),
            float(m["usable_bytes"]),
            float(m["free_bytes"]),
            bool(m.get("fits", True)),
        )
