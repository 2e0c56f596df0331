"""The trace rules on hand-made timelines (numbers chosen to sit on each side of the thresholds)."""

from __future__ import annotations

from typing import Any

from rooftop.core.points import Phase, RooflinePoint, Source
from rooftop.core.roofs import ComputeRoof, MemoryRoof, Roofs
from rooftop.diagnose.engine import Evidence
from rooftop.diagnose.evidence.timeline import TimelineEvidence
from rooftop.diagnose.rules.measured_below_roof import measured_below_roof
from rooftop.diagnose.rules.trace_comm_exposed import trace_comm_exposed
from rooftop.diagnose.rules.trace_idle_gaps import trace_idle_gaps
from rooftop.diagnose.rules.trace_launch_overhead import trace_launch_overhead

ROOFS = Roofs("toy", (ComputeRoof("bf16", 100e12),), (MemoryRoof("hbm", 1e12),))


def ev(timeline: dict[str, Any] | None = None, points: list[RooflinePoint] | None = None) -> Evidence:
    return Evidence(points or [], ROOFS, None, {}, timeline=TimelineEvidence.from_dict(timeline) if timeline else None)


def tl(**kw: Any) -> dict[str, Any]:
    base = dict(kernels=1000, busy_s=0.5, idle_s=0.5, span_s=1.0, largest_gap_s=0.1, largest_gap_start_us=5.0,
                gap_host_s=0.4, gap_sync_s=0.05, gap_other_s=0.05, nccl_s=0.0, comm_compute_overlap_s=0.0,
                launch={"shorter_than_launch_share": 0.1, "kernel_median_s": 50e-6, "call_median_s": 5e-6},
                cuda_graph={"graph_kernels": 0, "graph_launches": 0})  # fmt: skip
    return {**base, **kw}


def test_idle_gaps() -> None:
    (f,) = trace_idle_gaps(ev(tl()))  # 50 % idle, 80 % of the gaps under CPU ops
    assert f.code == "gpu-idle" and f.severity == "critical" and "host runs CPU ops" in f.title
    assert trace_idle_gaps(ev(tl(idle_s=0.2))) == []  # 20 % < 25 %
    assert trace_idle_gaps(ev()) == []
    # issue 10: a 10.9 s gap read "largest gap 1.09e+04 ms"
    (long,) = trace_idle_gaps(ev(tl(span_s=20.0, idle_s=15.0, largest_gap_s=10.9)))
    assert "largest gap 10.9 s" in long.title and "e+" not in long.title
    # param's ResNet trace: 605 ms of the 6.05 s idle under HtoD copies; here copies hold 0.3 of 0.5 s
    (copy,) = trace_idle_gaps(ev(tl(gap_host_s=0.1, gap_copy_s=0.3)))
    assert "while memcpy/memset run" in copy.title and copy.evidence["gap_copy_share"] == 0.6  # 0.3 / 0.5


def test_idle_gaps_of_a_graph_captured_step_do_not_advise_capturing_it() -> None:
    # the H200 trace of a torch.compile(mode="reduce-overhead") stack: 8 replays held 1,032 of its
    # 1,040 kernels, GPU idle 30 %; the finding advised "capture the steady-state step in a CUDA graph"
    eager = trace_idle_gaps(ev(tl()))[0]
    assert any("CUDA graph" in r.action for r in eager.remedies)
    graphs = {"graph_kernels": 1032, "graph_launches": 8}
    (f,) = trace_idle_gaps(ev(tl(kernels=1040, idle_s=0.3, cuda_graph=graphs)))
    assert "8 CUDA-graph replays hold 99% of the kernels" in f.title and f.evidence["graph_kernel_share"] == 0.992
    assert "mostly while the host runs CPU ops" in f.title  # 0.4 of the 0.5 s of gaps: the cause is still said
    assert not any("CUDA graph" in r.action for r in f.remedies) and len(f.remedies) == len(eager.remedies) - 1


def test_idle_gaps_of_one_graph_replay_name_the_sync() -> None:
    # TraceLens' SGLang Qwen3-8B decode trace on an MI300X: 1 hipGraphLaunch replays 544 of the 555
    # kernels; the 463 ms gap lies under a blocking hipMemcpyWithStream. It read "mostly between 1
    # CUDA-graph replays": the measured cause was replaced and the count read as a plural.
    graphs = {"graph_kernels": 544, "graph_launches": 1}
    (f,) = trace_idle_gaps(ev(tl(kernels=555, gap_host_s=0.0, gap_sync_s=0.46, gap_other_s=0.04, cuda_graph=graphs)))
    assert f.evidence["gap_sync_share"] == 0.92  # 0.46 / (0.46 + 0.04)
    assert "mostly in synchronisations (1 CUDA-graph replay holds 98% of the kernels" in f.title  # 544 / 555


def test_launch_overhead() -> None:
    short = {"shorter_than_launch_share": 0.6, "kernel_median_s": 4e-6, "call_median_s": 6e-6}
    (f,) = trace_launch_overhead(ev(tl(launch=short)))
    assert f.bottleneck == "launch" and f.evidence["shorter_than_launch_share"] == 0.6
    assert trace_launch_overhead(ev(tl())) == []  # 50 µs median kernels hide the launch


def test_comm_exposed() -> None:
    # 0.3 s of NCCL, 0.1 s under compute: 0.2 s exposed = 20 % of the 1 s span
    (f,) = trace_comm_exposed(ev(tl(nccl_s=0.3, comm_compute_overlap_s=0.1)))
    assert f.evidence["exposed_s"] == 0.3 - 0.1 and f.severity == "warn"
    assert trace_comm_exposed(ev(tl(nccl_s=0.3, comm_compute_overlap_s=0.25))) == []  # 5 % exposed


def point(flops: float, bytes_: float, time_s: float) -> RooflinePoint:
    return RooflinePoint("k", "gemm", Phase.UNKNOWN, flops, bytes_, time_s, "bf16", Source.NCU)


def test_below_roof() -> None:
    # 1e9 FLOP over 1e6 B (I = 1000 > ridge 100): roof 100 TFLOP/s, achieved 1e9/1e-4 = 10 TFLOP/s = 10 %
    (f,) = measured_below_roof(ev(points=[point(1e9, 1e6, 1e-4)]))
    assert f.code == "below-roof" and f.evidence["kernels"][0]["roof_efficiency"] == 0.1
    assert f.bottleneck == "compute"
    assert measured_below_roof(ev(points=[point(1e9, 1e6, 1.2e-5)])) == []  # 83 % of the roof
    # memory-only kernel: 1e6 B in 5e-6 s = 200 GB/s = 20 % of 1 TB/s
    (g,) = measured_below_roof(ev(points=[point(0, 1e6, 5e-6)]))
    assert g.bottleneck == "memory-efficiency"


def test_comm_heavy_but_hidden() -> None:
    # 0.45 s of collectives in 0.5 s busy (90 %), 0.44 s under compute: 1 % exposed, reported as info
    (f,) = trace_comm_exposed(ev(tl(nccl_s=0.45, comm_compute_overlap_s=0.44, nccl_kernels=12)))
    assert f.code == "communication-heavy" and f.severity == "info" and "90% of the GPU's busy time" in f.title
    assert trace_comm_exposed(ev(tl(nccl_s=0.35, comm_compute_overlap_s=0.34))) == []  # 70 % < 75 %
