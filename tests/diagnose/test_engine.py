import pytest

from rooftop.diagnose.engine import Evidence, diagnose, rule, rules
from rooftop.hardware.catalog import get_roofs


def test_rules_are_registered_once():
    names = set(rules())
    assert {"decode_memory_bound", "prefill_bound", "attention_io", "communication_bound"} <= names
    with pytest.raises(ValueError, match="duplicate"):
        rule(rules()["prefill_bound"])


def test_no_totals_no_findings():
    assert diagnose(Evidence(points=(), roofs=get_roofs("h100-sxm"))) == []
