"""serving/fastexpo.py: the fast exposition path gives prometheus_client's snapshot, or steps aside."""

from __future__ import annotations

import re
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rooftop.serving.exposition as exposition
import rooftop.serving.fastexpo as fe
from rooftop.errors import TelemetryError
from rooftop.serving.exposition import parse
from tests.conftest import DATA


def _fast(text: str, families: frozenset[str] | None = None, source: str = "") -> tuple[list[Any], dict[str, str], Any]:
    """parse_fast's page as (rows, types, layout); ([], {}, None) when it steps aside."""
    page = fe.parse_fast(text, families, source)
    if page is None:
        return [], {}, None
    return list(zip(page.names, page.labels, page.values, strict=True)), dict(page.types), page.layout


@pytest.mark.parametrize("name", sorted(p.name for p in (DATA / "serving").glob("*.prom")))
def test_fast_equals_prometheus_client_on_real_samples(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (DATA / "serving" / name).read_text(encoding="utf-8")
    assert fe.parse_fast(text) is not None  # every real sample takes the fast path
    fast = parse(text, 1.0, "x")
    again = parse(text, 1.0, "x")  # every line's head memoised now
    monkeypatch.setattr(exposition, "parse_fast", lambda *_: None)
    slow = parse(text, 1.0, "x")
    assert fast.samples == slow.samples == again.samples and dict(fast.types) == dict(slow.types) == dict(again.types)


def test_unusual_text_steps_aside() -> None:
    assert fe.parse_fast('a{l="x\\"y"} 1\n') is None  # an escape
    assert fe.parse_fast("a 1\n# EOF\n") is None  # OpenMetrics
    assert fe.parse_fast("a{l=x} 1\n") is None  # unquoted label
    assert fe.parse_fast("<html>\n") is None
    for _ in range(2):  # a timestamped line is never memoised (its last field is not the value)
        rows, types, _ = _fast('# TYPE c counter\nc{b="2",a="1"} 3 1700000000\nc_created 5\nu 7\n')
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
    rows, types, _ = _fast(text, frozenset({"a"}))
    # b's sample skipped; b_summary is not b's (untyped), and so is what follows it, as without a filter
    assert rows == [("a_total", (), 1.0), ("b_summary", (), 4.0), ("b", (), 5.0), ("u", (), 3.0)]
    assert types == {"a": "counter", "b": "gauge", "b_summary": "unknown", "u": "unknown"}
    fe.parse_fast(text, None, "read in full first")
    narrowed = _fast(text, frozenset({"a"}), "read in full first")
    assert list(narrowed[0]) == rows and dict(narrowed[1]) == types  # the full layout narrowed: the same rows


def test_the_line_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # a hostile page of ever-new series cannot grow the memo without end; past the bound lines are
    # still parsed, only not remembered
    monkeypatch.setattr(fe, "_HEADS", {})
    monkeypatch.setattr(fe, "_stored", [0])
    monkeypatch.setattr(fe, "MAX_HEADS", 50)
    text = "# TYPE g gauge\n" + "".join(f'g{{i="{i}"}} {i}\n' for i in range(200))
    rows, _, _ = _fast(text)
    assert len(rows) == 200 and rows[-1] == ("g", (("i", "199"),), 199.0)
    assert sum(len(h) for h in fe._HEADS.values()) == 50 == fe._stored[0]
    rows, _, _ = _fast(text.replace(" 199\n", " 7\n"), None, "another source")
    assert rows[-1] == ("g", (("i", "199"),), 7.0) and fe._stored[0] == 50  # line by line: no layout there yet
    monkeypatch.setattr(fe, "MAX_FAMILIES", 10)
    families = "".join(f"# TYPE f{i} gauge\nf{i} {i}\n" for i in range(100))
    rows, types, _ = _fast(families)
    assert len(rows) == len(types) == 100 and len(fe._HEADS) == 10  # every family read, ten memos kept


def _bumped(text: str) -> str:
    """``text`` with every sample's value one higher (the page a scrape later, as far as the layout can tell)."""
    return re.sub(r"^([^#\n].*) (\S+)$", lambda m: f"{m.group(1)} {float(m.group(2)) + 1!r}", text, flags=re.M)


@pytest.mark.parametrize("name", sorted(p.name for p in (DATA / "serving").glob("*.prom")))
def test_a_page_of_the_same_shape_is_read_through_its_layout(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from rooftop.serving.engines import detect
    from rooftop.serving.watch import families, observe

    text = (DATA / "serving" / name).read_text(encoding="utf-8")
    engine = detect(parse(text, 1.0, name)).engine
    wanted = families(engine)
    first = parse(text, 1.0, f"layout:{name}", wanted)
    assert first.layout is not None  # every real sample has one
    whole = parse(text, 1.0, f"narrowed:{name}")  # a watch's first poll: every family, the engine not known yet
    later = _bumped(text)
    expected = parse(later, 2.0, f"fresh:{name}", wanted)  # line by line (a source seen for the first time)
    monkeypatch.setattr(fe, "_lines", lambda *_: pytest.fail("read line by line, not through the layout"))
    again = parse(later, 2.0, f"layout:{name}", wanted)
    assert again.layout is first.layout and again.samples == expected.samples
    assert dict(again.types) == dict(expected.types)
    narrowed = parse(later, 2.0, f"narrowed:{name}", wanted)  # the page read in full, narrowed to the families
    assert narrowed.samples == expected.samples and dict(narrowed.types) == dict(expected.types)
    assert (narrowed.layout is whole.layout) == (wanted is None)
    # the engine map's reading is kept per layout: the same observation as read afresh
    for snap in (first, again):
        kept = observe(snap, name, engine)
        assert kept == observe(msgspec.structs.replace(snap, layout=None), name, engine)
    assert observe(again, name, engine) != observe(first, name, engine)  # the new values, not the kept ones
    # a page read through both never makes its Sample tuples: the watch needs its values alone
    once_more = parse(later, 3.0, f"layout:{name}", wanted)
    assert observe(once_more, name, engine) == msgspec.structs.replace(observe(again, name, engine), time_s=3.0)
    assert once_more.samples._made is None  # type: ignore[attr-defined]


def test_a_page_narrowed_to_families_it_lacks_goes_to_the_full_parser() -> None:
    page = '# TYPE a gauge\na{x="1"} 1\n# TYPE b gauge\nb 2\n'
    assert _fast(page, None, "lacks")[2] is not None
    assert _fast(page, frozenset({"c"}), "lacks")[0] == []  # no row kept: no samples to vouch for
    snap = parse(page, 1.0, "lacks", frozenset({"c"}))  # ... so the full parser reads every sample
    assert [s.name for s in snap.samples] == ["a", "b"]


def test_a_page_of_another_shape_is_read_line_by_line() -> None:
    page = '# TYPE c counter\nc_total{m="a"} 1\n# TYPE g gauge\ng 2\n'
    rows, _, first = _fast(page, None, "s")
    assert first is not None and list(rows) == [("c_total", (("m", "a"),), 1.0), ("g", (), 2.0)]
    more = page + 'c_total{m="b"} 5\n'  # a new series: another shape
    rows, _, second = _fast(more, None, "s")
    assert second is not None and second is not first and list(rows)[-1] == ("c_total", (("m", "b"),), 5.0)
    retyped = more.replace("# TYPE g gauge", "# TYPE g counter")  # a type is part of the shape, never a number
    rows, types, third = _fast(retyped, None, "s")
    assert third is not second and types["g"] == "counter" and ("g_total", (), 2.0) in list(rows)


def test_what_a_layout_cannot_vouch_for_goes_line_by_line_or_to_the_full_parser() -> None:
    page = '# TYPE g gauge\ng{a="1"} 1\ng{a="2"} 2\n'
    assert _fast(page, None, "t")[2] is fe._LAST[("t", None)] is not None
    rows, _, layout = _fast(page.replace(" 2\n", " NaN\n"), None, "t")
    assert layout is None and list(rows) == [("g", (("a", "1"),), 1.0)]  # NaN dropped: no layout for these rows
    assert fe.parse_fast(page.replace(" 2\n", " 2e\n"), None, "t") is None  # not a number: the full parser says so
    with pytest.raises(TelemetryError, match="not Prometheus text format"):
        parse(page.replace(" 2\n", " 2e\n"), 1.0, "t")
    stamped = page.replace(" 2\n", " 2 1700000000\n")  # a timestamp: the last field is not the value
    for _ in range(2):
        rows, _, layout = _fast(stamped, None, "u")
        assert layout is None and list(rows)[-1] == ("g", (("a", "2"),), 2.0)
    assert _fast(page.replace("\n", "\r\n"), None, "v")[2] is None  # \r\n lines: no layout


def test_the_layouts_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fe, "_LAST", {})
    monkeypatch.setattr(fe, "_kept_chars", [0])
    page = "# TYPE g gauge\n" + "".join(f'g{{i="{i}"}} {i}\n' for i in range(50))
    monkeypatch.setattr(fe, "MAX_LAYOUT_CHARS", 3 * len(page))
    for k in range(10):
        fe.parse_fast(page, None, f"source {k}")
    assert list(fe._LAST) == [(f"source {k}", None) for k in (7, 8, 9)] and fe._kept_chars[0] == 3 * len(page)
    fe.parse_fast(page + "h 1\n", None, "source 9")  # a new, larger shape replaces the source's: 7's goes
    assert list(fe._LAST) == [("source 8", None), ("source 9", None)]
    assert fe._kept_chars[0] == len(page) + len(page + "h 1\n")


VALUES = st.sampled_from(["0", "7", "1.5e+17", "-3", "NaN", "+Inf", "-Inf", "1e", "--", "abc", "2 1700000000", ""])


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_page_read_through_its_layout_is_the_page_read_afresh(data: st.DataObject) -> None:
    # a layout must never change what a page means: the same samples, types or refusal as a
    # source seen for the first time, whatever changed in the page since its last scrape
    text = (DATA / "serving" / "vllm_cpu_0.32_live.prom").read_text(encoding="utf-8")
    lines = text.splitlines()
    samples = [i for i, line in enumerate(lines) if line.startswith(("vllm:num_requests", "vllm:prompt_tokens"))]
    wanted = data.draw(st.sampled_from([None, frozenset({"vllm:num_requests_running", "vllm:prompt_tokens"})]))
    for _ in range(data.draw(st.integers(0, 3))):
        change = data.draw(st.sampled_from(["value"] * 6 + ["drop", "copy", "label", "help"]))
        i = data.draw(st.sampled_from(samples) if change == "value" else st.integers(0, len(lines) - 1))
        if change == "value":  # mostly a value: the page keeps its shape and is read through its layout
            lines[i] = lines[i].rpartition(" ")[0] + " " + data.draw(VALUES)
        elif change == "drop":
            del lines[i]
        elif change == "copy":
            lines.insert(i, lines[i])
        elif change == "label":
            lines[i] = lines[i].replace('engine="0"', 'engine="1"')
        elif change == "help":
            lines[i] = lines[i] + " 42" if lines[i].startswith("# HELP") else lines[i]
    later = "\n".join(lines) + "\n"
    source = f"layout:{data.draw(st.integers(0, 10**9))}"
    parse(text, 1.0, source, wanted)

    def outcome(src: str) -> object:
        try:
            snap = parse(later, 2.0, src, wanted)
        except TelemetryError as exc:
            return str(exc).replace(src, "SOURCE")
        return snap.samples, dict(snap.types)

    assert outcome(source) == outcome("fresh:" + source)
