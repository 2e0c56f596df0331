"""The model word of reported GPU names (the names are real: traces, ncu exports and nvidia-smi)."""

from __future__ import annotations

from rooftop.hardware.names import model_word, words


def test_model_word_of_real_device_names() -> None:
    assert model_word("NVIDIA A100-SXM4-80GB") == "a100"  # tests/data/hta-traces a100x16_rank0
    assert model_word("NVIDIA A100-PG509-200") == "a100"  # Meta's alexnet_a100 trace
    assert model_word("NVIDIA B200") == "b200"  # device__attribute_display_name of an ncu 2025 export
    assert model_word("NVIDIA GeForce RTX 4090") == "4090"
    assert model_word("AMD Instinct MI300X") == "mi300x"
    assert model_word("AMD Radeon Graphics") == ""  # the MI250 trace: no model in the name
    assert words("Tesla V100-SXM2-16GB") == ["v100", "sxm2", "16gb"]  # vendor words left out
