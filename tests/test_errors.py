from rooftop.errors import CatalogError, RooftopError, SpecError, did_you_mean, quoted


def test_hierarchy_and_exit_code():
    assert issubclass(SpecError, RooftopError) and issubclass(CatalogError, RooftopError)
    assert RooftopError.exit_code == 2


def test_did_you_mean():
    assert did_you_mean("h100", ["h100-sxm", "h100-pcie", "a100"]).startswith(" (did you mean: h100-")
    assert did_you_mean("zzz", ["h100-sxm"]) == ""


def test_quoted_keeps_an_error_one_short_line():
    # the fuzz campaign: `analyze -H <300 x>` echoed all 300 characters in its one-line error
    assert quoted("h100") == "'h100'"
    assert quoted("x" * 300) == "'" + "x" * 60 + "'… (300 characters)"
    from rooftop.hardware.catalog import get_entry

    try:
        get_entry("y" * 5000)
    except CatalogError as exc:
        assert len(str(exc)) < 160 and "(5,000 characters)" in str(exc)
    else:
        raise AssertionError("an unknown name was accepted")
