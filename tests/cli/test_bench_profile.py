"""cli/bench_profile.py: the profiled level prints the usual bench object plus ``profile_window``."""

from __future__ import annotations

from rooftop.cli.bench_profile import _Profiled


class _Run:
    def runs(self) -> list[dict]:
        return [{"rate": 2.0, "completed": 3}]

    def document(self) -> dict:
        return {"rate": 2.0, "completed": 3}


def test_document_adds_the_window() -> None:
    done = _Profiled(_Run(), {"completed": 1, "profile": {"contained": True}})
    assert done.runs() == [{"rate": 2.0, "completed": 3}]
    assert done.document() == {
        "rate": 2.0,
        "completed": 3,
        "profile_window": {"completed": 1, "profile": {"contained": True}},
    }
