import pytest

from rooftop.api import analyze_one
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset


@pytest.fixture
def result_of():
    def run(model="llama-3.1-8b", hardware="h100-sxm", **kw):
        return analyze_one(load_preset(model), Workload(**kw), get_roofs(hardware))

    return run


@pytest.fixture
def codes():
    return lambda result: [f.code for f in result.findings]


__all__ = ["Phase"]
