"""An imported trace's evidence: its GPU timeline and its kernels against their launches."""

from __future__ import annotations

from typing import Any

import msgspec


class LaunchEvidence(msgspec.Struct, frozen=True):
    """Kernels against their launch calls (medians in seconds; None when not measured)."""

    shorter_than_launch_share: float = 0.0  # of the eager kernels (CUDA/HIP-graph replays left out)
    kernel_median_s: float = 1.0
    eager: int | None = None  # kernels launched one by one (None: not recorded, all of them)
    call_median_s: float | None = None
    delay_median_s: float | None = None


class TimelineEvidence(msgspec.Struct, frozen=True):
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
        launch_keys = LaunchEvidence.__struct_fields__
        names = set(cls.__struct_fields__) - {"collectives", "launch", "graph_kernels", "graph_launches"}
        return cls(
            **{k: tl[k] for k in names if tl.get(k) is not None},
            collectives=tuple(tl.get("collectives") or ()),
            launch=LaunchEvidence(**{k: launch[k] for k in launch_keys if launch.get(k) is not None}),
            graph_kernels=graphs.get("graph_kernels", 0),
            graph_launches=graphs.get("graph_launches", 0),
        )
