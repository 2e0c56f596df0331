"""The dtypes a checkpoint stores its weights in, read from its config.json's ``quantization_config``.

A quantized checkpoint says so in ``quantization_config``, in the format of the tool that wrote
it; the weights' bytes (what decode streams per token, what must fit in memory) follow from it:
gpt-oss-120b keeps its routed experts in MXFP4 and everything else in bf16 (~65 GB, one 80 GB
GPU), not 117 B parameters in bf16 (234 GB). Two dtypes are read: the routed experts', and the
other linear layers' (attention, dense MLPs, shared experts). Which modules a scheme left
unquantized is decided by matching its exclusion list (``ignore``, ``exclude_modules``,
``modules_to_not_convert``) against representative module names in transformers' naming. A
part left unquantized is ``""``: the caller's ``--dtype``.

Formats read (transformers' ``quant_method`` values): ``fp8`` (fine-grained FP8: DeepSeek-V3,
Qwen3-FP8), ``mxfp4`` (gpt-oss: experts only), ``compressed-tensors`` (llm-compressor: its
``config_groups`` weights and ``ignore``), ``modelopt`` (NVIDIA ModelOpt: FP8, NVFP4, INT4-AWQ),
``awq``, ``gptq``, ``bitsandbytes``, ``fbgemm_fp8``. Any other method is kept by name and read as
unquantized, which the note says.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from typing import Any

import msgspec

# Module names in transformers' naming standing for each part of a decoder layer.
_PROBES = {
    "attention": ("model.layers.1.self_attn.q_proj", "model.layers.1.self_attn.o_proj"),
    "dense": ("model.layers.1.mlp.gate_proj", "model.layers.1.mlp.down_proj"),
    "shared": ("model.layers.1.mlp.shared_experts.gate_proj", "model.layers.1.mlp.shared_expert.down_proj"),
    "experts": ("model.layers.1.mlp.experts.0.gate_proj", "model.layers.1.mlp.experts.0.down_proj"),
}
_MODELOPT = {"FP8": ("fp8", 0), "NVFP4": ("fp4", 16), "MXFP4": ("fp4", 32), "W4A16_AWQ": ("int4", 128)}
_MODELOPT |= {"INT4_AWQ": ("int4", 128), "W4A8_AWQ": ("int4", 128), "INT8": ("int8", 0), "W8A8_SQ": ("int8", 0)}


class StoredWeights(msgspec.Struct, frozen=True):
    """The checkpoint's weight dtypes: ``weights`` for the linear layers, ``experts`` for the routed experts.

    ``""`` where a part is stored unquantized (the analysis's --dtype). ``group_size``: the
    scale group of a weight-only format (0: none worth counting, FP8's 128×128 blocks).
    """

    method: str
    weights: str = ""
    experts: str = ""
    group_size: int = 0
    note: str = ""  # a part stored otherwise than ``weights`` says (attention bf16 beside FP8 MLPs)

    @property
    def read(self) -> bool:
        """Whether the method was understood (an unknown one leaves both parts unquantized)."""
        return bool(self.weights or self.experts)

    def describe(self) -> str:
        """'experts fp4 as stored (mxfp4, groups of 32)', 'weights fp8 as stored (fp8)': the model's note."""
        if not self.read:
            return f"quantization_config {self.method!r} not read: weights counted in --dtype"
        experts = "" if self.experts == self.weights else self.experts  # one dtype: said once
        parts = [f"{what} {kind}" for what, kind in (("weights", self.weights), ("experts", experts)) if kind]
        group = f", groups of {self.group_size}" if self.group_size else ""
        return f"{' and '.join(parts)} as stored ({self.method}{group}){self.note}"


DEFAULT_GROUP = 128  # weight-only scale group when neither the user nor the checkpoint gives one


def weight_dtypes(
    default: str,
    weight_dtype: str | None,
    expert_dtype: str | None = None,
    group: int | None = None,
    stored: StoredWeights | None = None,
) -> tuple[str, str, int]:
    """(weight dtype, expert dtype or '' for the same, scale group) from the user's choices and the checkpoint's.

    Weights not set are taken as the checkpoint stores them, else ``default`` (--dtype); a weight
    dtype set by the user sets every weight, experts included, unless ``expert_dtype`` sets those apart.
    """
    weights = weight_dtype or (stored.weights if stored else "") or default
    experts = expert_dtype or ("" if weight_dtype or stored is None else stored.experts)
    group = group or (stored.group_size if stored else 0) or DEFAULT_GROUP
    return weights, "" if experts == weights else experts, group


def stored_weights(config: dict[str, Any], mlp_share: float = 0.0) -> StoredWeights | None:
    """The dtypes ``config``'s ``quantization_config`` stores the weights in; None without one.

    ``mlp_share``: the dense MLPs' and shared experts' share of the weights outside the routed
    experts (the rest is attention). When a scheme stores the two apart (Llama-4-Scout-FP8-dynamic:
    FP8 MLPs, bf16 attention), ``weights`` is the larger part's dtype and ``note`` says so.
    """
    text = config.get("text_config")
    q = config.get("quantization_config")
    if not isinstance(q, dict) and isinstance(text, dict):
        q = text.get("quantization_config")  # Kimi-K2.5: on the language model's config
    if not isinstance(q, dict):
        return None
    method = str(q.get("quant_method") or "").lower()
    reader = _READERS.get(method)
    if reader is None:
        return StoredWeights(method or "unnamed")
    kind, group, quantized = reader(q)
    if not kind:
        return StoredWeights(method)
    attention = kind if quantized("attention") else ""
    mlp = kind if quantized("dense") or quantized("shared") else ""
    weights, other, part = (mlp, attention, "attention is") if mlp_share > 0.5 else (attention, mlp, "MLPs are")
    apart = 0.0 < mlp_share < 1.0 and other != weights
    note = f"; the {part} stored {other or 'unquantized'}, counted as {weights or 'unquantized'}" if apart else ""
    return StoredWeights(method, weights, kind if quantized("experts") else "", group, note)


def _excluded(patterns: Any, match: Any) -> Any:
    """A predicate: whether a part is quantized, none of its probe names matching an exclusion."""
    names = [str(p) for p in patterns] if isinstance(patterns, list) else []
    return lambda part: not any(match(p, name) for name in _PROBES[part] for p in names)


_LAYER = re.compile(r"^.*?\blayers\.\d+\.")


def _in_layer(name: str) -> str:
    """A module's name inside its decoder layer ('self_attn.q_proj'); names outside layers whole.

    Lists that name a module in each layer (``language_model.model.layers.0.self_attn.q_proj``,
    one per layer) exclude that part of every layer, whatever prefix the wrapper gives the layers.
    """
    return _LAYER.sub("", name, count=1)


# A regex from a config.json runs on the probe names only if it cannot backtrack for long: short,
# few unbounded repeats, no repeated group ("(.*.*)*x" takes exponential time on a 40-character
# name). Real exclusion patterns (".*self_attn.*", "model.layers.*.self_attn") are far inside.
_REPEATED_GROUP = re.compile(r"\)[*+{]")
MAX_PATTERN_CHARS, MAX_REPEATS = 200, 4


def _safe_match(regex: str, name: str) -> bool:
    """``re.match(regex, name)`` for a regex that cannot backtrack for long; False for any other."""
    compiled = _safe_regex(regex)
    return compiled is not None and compiled.match(name) is not None


@functools.lru_cache(maxsize=4096)
def _safe_regex(regex: str) -> re.Pattern[str] | None:
    unbounded = len(re.findall(r"(?<!\\)[*+]", regex))
    if len(regex) > MAX_PATTERN_CHARS or unbounded > MAX_REPEATS or _REPEATED_GROUP.search(regex):
        return None
    try:
        return re.compile(regex)
    except re.error:
        return None


def _regex_or_name(pattern: str, name: str) -> bool:  # compressed-tensors: "re:<regex>" or a module's name
    if pattern.startswith("re:"):
        return _safe_match(pattern[3:], name)
    return pattern == name or _in_layer(pattern) == _in_layer(name)


def _glob(pattern: str, name: str) -> bool:  # ModelOpt's exclusions are fnmatch patterns ("model.layers.0.self_attn*")
    return fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(_in_layer(name), _in_layer(pattern))


def _not_converted(pattern: str, name: str) -> bool:
    """Whether transformers skips ``name`` for a ``modules_to_not_convert`` entry (5.x ``should_convert_module``).

    A regex matched from the start of the name up to a module boundary ("mlp.gate" skips
    "mlp.gate", not "mlp.gate_proj"), or a suffix.
    """
    return _safe_match(rf"(?:{pattern})(?:(?<=\.)|(?=\.|$))", name) or name.endswith(pattern)


def _fp8(q: dict[str, Any]) -> tuple[str, int, Any]:
    return "fp8", 0, _excluded(q.get("modules_to_not_convert"), _not_converted)


def _mxfp4(q: dict[str, Any]) -> tuple[str, int, Any]:
    return "fp4", 32, lambda part: part == "experts"  # transformers' Mxfp4 converts the MoE experts only


def _compressed_tensors(q: dict[str, Any]) -> tuple[str, int, Any]:
    groups = q.get("config_groups")
    scheme = next(iter(groups.values()), None) if isinstance(groups, dict) and groups else None
    weights = scheme.get("weights") if isinstance(scheme, dict) else None
    if not isinstance(weights, dict):
        return "", 0, None
    formats: dict[Any, str] = {(8, "float"): "fp8", (8, "int"): "int8", (4, "int"): "int4", (4, "float"): "fp4"}
    dtype = formats.get((_count(weights.get("num_bits")), str(weights.get("type") or "int")), "")
    grouped = str(weights.get("strategy")) in ("group", "tensor_group")
    return dtype, _count(weights.get("group_size")) if grouped else 0, _excluded(q.get("ignore"), _regex_or_name)


def _modelopt(q: dict[str, Any]) -> tuple[str, int, Any]:
    algo = str(q.get("quant_algo") or "").upper()
    dtype, group = _MODELOPT.get(algo, ("", 0))
    excluded = q.get("exclude_modules", q.get("ignore"))  # hf_quant_config's name, and config.json's
    return dtype, _count(q.get("group_size")) or group, _excluded(excluded, _glob)


def _awq_gptq(q: dict[str, Any]) -> tuple[str, int, Any]:
    bits: dict[Any, str] = {4: "int4", 8: "int8"}
    dtype = bits.get(_count(q.get("bits")) or _count(q.get("w_bit")), "")
    group = _count(q.get("group_size")) or _count(q.get("q_group_size"))  # GPTQ's -1 (per channel): 0, the default
    return dtype, group, _excluded(q.get("modules_to_not_convert"), _not_converted)


def _bitsandbytes(q: dict[str, Any]) -> tuple[str, int, Any]:
    dtype = "int4" if q.get("load_in_4bit") else "int8" if q.get("load_in_8bit") else ""
    skipped = q.get("llm_int8_skip_modules")
    return dtype, 64 if dtype == "int4" else 0, _excluded(skipped, _not_converted)


def _count(value: Any) -> int:
    """A positive integer field, else 0 (absent, -1, a string: the format's own default applies)."""
    return value if type(value) is int and value > 0 else 0


_READERS = {
    "fp8": _fp8,
    "fbgemm_fp8": _fp8,
    "mxfp4": _mxfp4,
    "compressed-tensors": _compressed_tensors,
    "modelopt": _modelopt,
    "awq": _awq_gptq,
    "gptq": _awq_gptq,
    "bitsandbytes": _bitsandbytes,
}
