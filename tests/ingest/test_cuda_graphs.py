"""CUDA-graph replays are not judged against their one launch call (tests/data/hta-cuda-graphs/README.md)."""

from __future__ import annotations

from rooftop.core.roofs import Roofs
from rooftop.diagnose.engine import Evidence
from rooftop.diagnose.evidence.timeline import TimelineEvidence
from rooftop.diagnose.rules.trace_launch_overhead import trace_launch_overhead
from rooftop.ingest.timeline import analyse
from tests.ingest.conftest import real

FOLDER = "hta-cuda-graphs"


def finding_on(name: str) -> list[str]:
    tl = analyse(*real(FOLDER, name))
    ev = Evidence([], Roofs("none", (), ()), timeline=TimelineEvidence.from_dict(tl))
    return [f.title for f in trace_launch_overhead(ev)]


def test_one_graph_replay_is_not_launch_bound() -> None:
    # One cudaGraphLaunch call (1,596 µs) replays 429 kernels in a 29.4 ms window the GPU is 95.7 %
    # busy in; the other 126 kernels of the file have no launch call in it. Before: every replayed
    # kernel was compared with the 1,596 µs call, "100% of 555 kernels run shorter than their
    # launch call ... 77% from CUDA-graph replays", recommending CUDA-graph capture.
    tl = analyse(*real(FOLDER, "v100_graph_replay.json.gz"))
    assert tl["cuda_graph"] == {"graph_launches": 1, "graph_kernels": 429}
    assert tl["launch"] == {"joined": 429, "eager": 0}
    assert finding_on("v100_graph_replay.json.gz") == []


def test_training_trace_judges_eager_kernels_only() -> None:
    # 12 graph launches replay 4,464 of the 9,876 kernels; 9,330 kernels are joined, 4,866 eagerly
    # launched. Before: "68% of 9876 kernels run shorter than their launch call (median launch call
    # 16 µs)", the 1-1.6 ms graph calls counted once per replayed kernel.
    tl = analyse(*real(FOLDER, "v100_rank1_train.json.gz"))
    assert tl["cuda_graph"] == {"graph_launches": 12, "graph_kernels": 4464}
    assert (tl["launch"]["joined"], tl["launch"]["eager"]) == (9330, 4866)
    (title,) = finding_on("v100_rank1_train.json.gz")
    assert "of 4866 eagerly launched kernels" in title and "4464 CUDA-graph replayed kernels not counted" in title
