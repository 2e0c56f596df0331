"""Gemma 3n's and Gemma 4's per-layer blocks: per-layer inputs, AltUp streams, LAuReL residuals.

Small branches beside each layer's attention and MLP, kept whole on every tensor-parallel GPU;
built from decompose's step like the recurrent mixers (``analytic/hybrid.py``).
"""

from __future__ import annotations

from typing import Any, Protocol

from rooftop.analytic.hybrid import Step
from rooftop.analytic.registry import OpKind


class GemmaStep(Step, Protocol):
    """decompose's step, with the weight width and the activation operator the per-layer inputs use."""

    weight: float

    def activation(self, name: str, count: int, group: str, tokens: Any, width: int) -> Any:
        """An activation."""


def per_layer_inputs(step: GemmaStep) -> list[Any]:
    """Gemma 3n's and Gemma 4's per-layer inputs (none without them).

    Once: a gather of layers × p features per token and the projection of the embedding to
    them (then a norm over each layer's p). In every layer: a gate (hidden -> p), its
    activation times the layer's input, and a projection back. The branch is small and kept
    whole on every tensor-parallel GPU.
    """
    s, p = step.spec, step.spec.per_layer_input
    if not p:
        return []
    width, tok = s.layers * p, step.tokens
    shapes = {"width": width, "weight_bytes_per_elt": step.weight, "act_bytes": step.act}
    return [
        step.op("embed_per_layer", OpKind.EMBEDDING, 1, "embedding", tokens=tok, **shapes),
        step.gemm("per_layer_model_proj", s.hidden, width, 1, group="embedding"),
        step.norm("per_layer_proj_norm", 1, p, tok * s.layers),
        step.gemm("per_layer_gate", s.hidden, p, s.layers, group="mlp"),
        step.activation("per_layer_act", s.layers, "mlp", tok, p),
        step.gemm("per_layer_proj", p, s.hidden, s.layers, group="mlp"),
    ]


def altup_laurel(step: GemmaStep) -> list[Any]:
    """Gemma 3n's AltUp streams and LAuReL residuals (none without them).

    AltUp keeps n streams of the hidden state. Once: the embedding projected to the n - 1 other
    streams, and back before the final norm (every token). In every layer, before and after
    it runs: the router (a norm, hidden -> n); the prediction (n -> n²) and correction (n -> n)
    coefficients; the streams mixed by the predicted n × n matrix (n² multiply-adds per
    feature; the correction, n per feature, is elementwise like a residual add, not counted).
    LAuReL: hidden -> rank -> hidden and a norm. The layers' own norm of each (router, LAuReL)
    is in ``extra_norms``; the router's second one is here. Small, kept whole on every
    tensor-parallel GPU.
    """
    s, n, rank = step.spec, step.spec.altup_inputs, step.spec.laurel_rank
    ops = []
    if n:
        features = step.tokens * s.hidden  # one row per feature for the per-feature stream mixing
        ops += [
            step.gemm("altup_proj", s.hidden, s.hidden, n - 1, group="embedding"),
            step.norm("altup_router_norm", s.layers),
            step.gemm("altup_router", s.hidden, n, 2 * s.layers, group="altup"),
            step.gemm("altup_pred_coefs", n, n * n, s.layers, group="altup"),
            step.gemm("altup_corr_coefs", n, n, s.layers, group="altup"),
            step.gemm("altup_predict", n, n, s.layers, features, group="altup"),
            step.gemm("altup_unembed", s.hidden, s.hidden, n - 1, group="head"),
        ]
    if rank:
        ops += [
            step.gemm("laurel_left", s.hidden, rank, s.layers, group="laurel"),
            step.gemm("laurel_right", rank, s.hidden, s.layers, group="laurel"),
        ]
    return ops
