import pytest

from tests.measure.tiny import TINY


@pytest.fixture(scope="session")
def tiny_built():
    """The tiny Llama built once (random weights, fp32, CPU)."""
    pytest.importorskip("transformers")
    from rooftop.measure.model import build_model

    return build_model(TINY, "fp32", "cpu")
