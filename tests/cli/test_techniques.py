import pytest

from rooftop.cli.techniques import NAMES, build, drafter_of
from rooftop.core.slo import SLO
from rooftop.errors import RooftopError


def _flags(**over):
    base = dict.fromkeys(NAMES)
    base.update(batch_factor=8, spec_alpha=0.7, drafter="ngram", ep_link="intra", a2a="deepep", ep_imbalance=1.0)
    base.update(kv_link="inter", what_if=False)
    base.update(over)
    return base


def test_drafters():
    assert drafter_of("ngram").kind == "ngram" and drafter_of("head").kind == "head"
    model = drafter_of("llama-3.2-1b")
    assert model.kind == "model" and model.label == "llama-3.2-1b"
    with pytest.raises(RooftopError):
        drafter_of("no-such-model")


def test_build_marks_what_was_asked():
    t = build(_flags(spec_k=3, ep=8), SLO(tpot_s=0.05), output_tokens=128)
    assert t.speculative and t.ep and not (t.chunk or t.pp or t.disaggregate or t.what_if)
    assert t.opts.spec_k == 3 and t.opts.output_tokens == 128 and t.opts.slo.tpot_s == 0.05
    quiet = build(_flags(), SLO())
    assert quiet.opts.spec_k == 4 and quiet.opts.chunk_tokens == 2048  # what-if defaults
    assert not quiet.ep and build(_flags(ep=1), SLO()).ep is False
