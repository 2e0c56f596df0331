from rooftop.errors import CatalogError, RooftopError, SpecError, did_you_mean


def test_hierarchy_and_exit_code():
    assert issubclass(SpecError, RooftopError) and issubclass(CatalogError, RooftopError)
    assert RooftopError.exit_code == 2


def test_did_you_mean():
    assert did_you_mean("h100", ["h100-sxm", "h100-pcie", "a100"]).startswith(" (did you mean: h100-")
    assert did_you_mean("zzz", ["h100-sxm"]) == ""
