"""The tiny Llama of the e2e tests as a LiveModel (hidden 128, 2 layers, fp32; see live_fixtures.py)."""

from __future__ import annotations

import json

import pytest

from rooftop.api.live_model import LiveModel, live_model
from tests.serving.test_cli_serving import TINY


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> LiveModel:
    cfg = tmp_path_factory.mktemp("tiny") / "config.json"
    cfg.write_text(json.dumps(TINY))
    live = live_model(str(cfg), "h100-sxm", "fp32")
    assert live is not None
    return live
