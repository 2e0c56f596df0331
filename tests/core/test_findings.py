from rooftop.core.findings import Finding, Remedy


def test_round_trip():
    f = Finding("c", "warn", "title", "compute", {"x": 1}, (Remedy("do", "cost"),), "check")
    assert Finding.from_dict(f.to_dict()) == f
