from dataclasses import dataclass, field
from typing import Any

import pytest

from rooftop.api import whatif_measured
from rooftop.api.whatif_measured import MeasuredWhatIf, _row, interleaved, predicted_steps


def test_speedups_and_error():
    predicted = {"decode_b1": 0.010, "decode_bn": 0.016}  # 8 tokens in 16 ms vs 1 in 10 ms: ×5.0
    measured = {"decode_b1": 0.010, "decode_bn": 0.020}  # ×4.0
    row = _row("decode batch 1 → 8", "tokens/s", "decode_b1", "decode_bn", (1, 8), predicted, measured)
    assert row["predicted_speedup"] == pytest.approx(5.0)
    assert row["measured_speedup"] == pytest.approx(4.0)
    assert row["error"] == pytest.approx(0.25) and row["within_tolerance"] is False  # 5/4 − 1 > 20 %
    ttft = _row(
        "chunked",
        "TTFT",
        "prefill",
        "chunked",
        (1, 1),
        {"prefill": 1.0, "chunked": 1.1},
        {"prefill": 1.0, "chunked": 1.2},
    )
    assert ttft["predicted_speedup"] == pytest.approx(1 / 1.1) and ttft["within_tolerance"] is True  # 1.2/1.1 − 1 = 9 %


def test_interleaved_keeps_the_fastest_round_and_takes_turns():
    calls: list[str] = []
    times = {"a": iter([3.0, 1.0, 2.0]), "b": iter([5.0, 6.0, 4.0])}

    def timer(name: str):
        def run() -> float:
            calls.append(name)
            return next(times[name])

        return run

    best = interleaved({"a": timer("a"), "b": timer("b")}, 3, lambda _m: None)
    assert best == {"a": 1.0, "b": 4.0}
    assert calls == ["a", "b", "a", "b", "a", "b"]


@dataclass
class _Result:
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Run:
    results: tuple[_Result, ...]


def test_predicted_shapes_include_every_chunk(monkeypatch):
    seen = []

    def fake(spec, workloads, device, threads):
        seen.extend(workloads)
        return _Run(tuple(_Result({"calibrated": {"step_time_s": 0.1 * (i + 1)}}) for i in range(len(workloads))))

    monkeypatch.setattr(whatif_measured, "analyze_calibrated", fake)
    steps = predicted_steps(MeasuredWhatIf(model="llama-cpu-small", prompt=300, chunk=128))
    chunks = [w for w in seen if (w.phase.value == "prefill" and w.cached_prefix != 0) or w.prompt == 128]
    # 300 tokens in chunks of 128: (0, 128), (128, 256), (256, 300)
    assert [(int(w.cached_prefix), int(w.prompt)) for w in chunks] == [(0, 128), (128, 256), (256, 300)]
    assert steps["chunked"] == pytest.approx(steps["chunk0"] + steps["chunk1"] + steps["chunk2"])
    assert seen[2].weight_dtype == "bf16" and seen[1].batch == 8
