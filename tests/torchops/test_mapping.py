"""The versioned torchops vocabulary files load and carry their version."""

from __future__ import annotations

from rooftop.torchops.formulas import ATTENTION_FAMILIES, MATMUL_FAMILIES
from rooftop.torchops.mapping import load


def test_files_and_versions() -> None:
    assert load("ops_v2")["version"] == 2
    assert load("dtypes_v1")["version"] == 1
    assert load("kernel_classes_v1")["version"] == 1


def test_every_op_names_a_known_family_and_its_operands() -> None:
    for op, entry in load("ops_v2")["ops"].items():
        assert entry["family"] in {**MATMUL_FAMILIES, **ATTENTION_FAMILIES}, op
        assert len(entry["args"]) == (3 if entry["family"] in ATTENTION_FAMILIES else 2), op
        assert ("causal_arg" in entry) == (entry["family"] in ATTENTION_FAMILIES), op
