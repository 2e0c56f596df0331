"""api/parallel.py: files read by worker processes come back in order, errors as values."""

from __future__ import annotations

from pathlib import Path

from rooftop.api.ingest import outcome
from rooftop.api.parallel import import_many
from rooftop.core.jsonenc import dumps
from rooftop.errors import TraceFormatError
from tests.conftest import data_path


def test_import_many_keeps_order_and_returns_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [')
    files = [(data_path("hta-traces", "triton_example.json.gz"), "kineto"), (bad, "kineto")]
    files.append((data_path("hta-traces", "alexnet_a100.json.gz"), "kineto"))
    seen: list[str] = []
    got = import_many(files, None, 2, outcome, lambda text, _n: seen.append(text))
    assert [f for f, _ in got] == [f for f, _ in files]
    assert isinstance(got[1][1], TraceFormatError)
    serial = [outcome(f, k, None) for f, k in files]
    for (_, par), ser in zip(got, serial, strict=True):
        if isinstance(ser, TraceFormatError):
            continue
        assert not isinstance(par, TraceFormatError)
        (mine,), (theirs,) = par[0], ser[0]  # a Kineto file: its results, one per GPU (one here)
        assert dumps(mine.extra) == dumps(theirs.extra) and mine.points == theirs.points  # NaN-safe
    assert seen == ["1/3 files", "2/3 files", "3/3 files"]
