"""diagnose/evidence/: typed sections read from the JSON their producers write."""

from __future__ import annotations

from rooftop.diagnose.evidence.live import LiveEvidence
from rooftop.diagnose.evidence.profile import ProfileEvidence
from rooftop.diagnose.evidence.timeline import LaunchEvidence, TimelineEvidence


def test_timeline_from_its_artifact_section() -> None:
    tl = TimelineEvidence.from_dict(
        {
            "span_s": 2.0,
            "idle_s": 0.5,
            "nccl_kernels": None,  # null in JSON: the default
            "collectives": [{"collective": "all_reduce"}],
            "launch": {"shorter_than_launch_share": 0.4, "kernel_median_s": 8e-6, "call_median_s": None},
            "cuda_graph": {"graph_kernels": 30},
            "unrelated": 1,  # other keys of the section are ignored
        }
    )
    assert tl.span_s == 2.0 and tl.idle_s == 0.5 and tl.nccl_kernels is None and tl.kernels == 0
    assert tl.collectives == ({"collective": "all_reduce"},) and tl.graph_kernels == 30 and tl.graph_launches == 0
    assert tl.launch == LaunchEvidence(0.4, 8e-6, None, None)
    assert TimelineEvidence.from_dict({}) == TimelineEvidence()


def test_profile_and_live_sections() -> None:
    prof = ProfileEvidence.from_dict({"step_time_s": 0.01, "gap_s": 0.002, "gap_share": 0.2, "trace": "t.json"})
    assert prof == ProfileEvidence(0.01, 0.002, 0.2)
    live = LiveEvidence(latency={"queue_s": {"mean": 0.3}, "e2e_s": {"mean": None}})
    assert live.mean_latency_s("queue_s") == 0.3 and live.mean_latency_s("e2e_s") is None
    assert live.mean_latency_s("ttft_s") is None and live.utilisation is None
