"""serving/fastexpo.py: the fast exposition path gives prometheus_client's snapshot, or steps aside."""

from __future__ import annotations

import pytest

import rooftop.serving.fastexpo as fe
from rooftop.serving.exposition import parse
from tests.conftest import DATA


@pytest.mark.parametrize("name", sorted(p.name for p in (DATA / "serving").glob("*.prom")))
def test_fast_equals_prometheus_client_on_real_samples(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (DATA / "serving" / name).read_text(encoding="utf-8")
    assert fe.parse_fast(text) is not None  # every real sample takes the fast path
    fast = parse(text, 1.0, "x")
    again = parse(text, 1.0, "x")  # every line's head memoised now
    monkeypatch.setattr(fe, "parse_fast", lambda _text, _families=None: None)
    slow = parse(text, 1.0, "x")
    assert fast.samples == slow.samples == again.samples and dict(fast.types) == dict(slow.types) == dict(again.types)


def test_unusual_text_steps_aside() -> None:
    assert fe.parse_fast('a{l="x\\"y"} 1\n') is None  # an escape
    assert fe.parse_fast("a 1\n# EOF\n") is None  # OpenMetrics
    assert fe.parse_fast("a{l=x} 1\n") is None  # unquoted label
    assert fe.parse_fast("<html>\n") is None
    for _ in range(2):  # a timestamped line is never memoised (its last field is not the value)
        rows, types = fe.parse_fast('# TYPE c counter\nc{b="2",a="1"} 3 1700000000\nc_created 5\nu 7\n') or ([], {})
        assert rows == [("c_total", (("a", "1"), ("b", "2")), 3.0), ("u", (), 7.0)]
        assert types == {"c": "counter", "u": "unknown"}


@pytest.mark.parametrize("name", sorted(p.name for p in (DATA / "serving").glob("*.prom")))
def test_only_the_engine_maps_families_give_the_same_observation(name: str) -> None:
    from rooftop.serving.engines import detect
    from rooftop.serving.watch import families, observe

    text = (DATA / "serving" / name).read_text(encoding="utf-8")
    full = parse(text, 1.0, name)
    engine = detect(full).engine
    narrow = parse(text, 1.0, name, families(engine))
    assert set(narrow.samples) <= set(full.samples) and narrow.types == full.types
    assert observe(narrow, name, engine) == observe(full, name, engine)  # scalars, histograms, deprecated names
    assert (families(engine) is None) == (engine == "triton")  # per-model counters: every family is read
    if name == "vllm_cpu_0.32_live.prom":
        assert (len(full), len(narrow)) == (371, 229)  # http_*, python_*, request_params_* ... left unparsed


def test_families_filter_skips_typed_families_and_keeps_untyped_lines() -> None:
    text = '# TYPE a counter\na_total 1\n# TYPE b gauge\nb{x="1"} 2\nb_summary 4\nb 5\nu 3\n'
    rows, types = fe.parse_fast(text, frozenset({"a"})) or ([], {})
    # b's sample skipped; b_summary is not b's (untyped), and so is what follows it, as without a filter
    assert rows == [("a_total", (), 1.0), ("b_summary", (), 4.0), ("b", (), 5.0), ("u", (), 3.0)]
    assert types == {"a": "counter", "b": "gauge", "b_summary": "unknown", "u": "unknown"}


def test_the_line_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # a hostile page of ever-new series cannot grow the memo without end; past the bound lines are
    # still parsed, only not remembered
    monkeypatch.setattr(fe, "_HEADS", {})
    monkeypatch.setattr(fe, "_stored", [0])
    monkeypatch.setattr(fe, "MAX_HEADS", 50)
    text = "# TYPE g gauge\n" + "".join(f'g{{i="{i}"}} {i}\n' for i in range(200))
    rows, _ = fe.parse_fast(text) or ([], {})
    assert len(rows) == 200 and rows[-1] == ("g", (("i", "199"),), 199.0)
    assert sum(len(h) for h in fe._HEADS.values()) == 50 == fe._stored[0]
    rows, _ = fe.parse_fast(text.replace(" 199\n", " 7\n")) or ([], {})
    assert rows[-1] == ("g", (("i", "199"),), 7.0) and fe._stored[0] == 50
    monkeypatch.setattr(fe, "MAX_FAMILIES", 10)
    families = "".join(f"# TYPE f{i} gauge\nf{i} {i}\n" for i in range(100))
    rows, types = fe.parse_fast(families) or ([], {})
    assert len(rows) == len(types) == 100 and len(fe._HEADS) == 10  # every family read, ten memos kept
