"""The operator registry: every formula module under ``analytic/ops/`` is found, none is listed.

A formula is a small pure function (keyword shapes, numbers or numpy arrays over a workload
grid, in; one ``OpCost`` out) registered once under its operator kind with ``@register``. The
registry imports the modules of ``rooftop.analytic.ops`` by name (from the folder) the first time a
formula is asked for, as the diagnosis engine finds its rules; it never imports them
statically, so no import cycle runs between the registry and the formulas. Registering a kind
twice is an error; asking for a kind that has no formula raises ``UnmodelledOp``, never a
silent zero.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, Protocol, TypeVar

from rooftop.analytic.cost import OpCost
from rooftop.core.packaged import import_modules
from rooftop.errors import RooftopError

OPS_PACKAGE = "rooftop.analytic.ops"


class OpKind(StrEnum):
    """The operator kinds of a transformer step (a str: JSON and tables print the bare name)."""

    GEMM = "gemm"
    GROUPED_GEMM = "grouped_gemm"
    ATTN_SCORE = "attn_score"
    SOFTMAX = "softmax"
    ATTN_VALUE = "attn_value"
    KV_APPEND = "kv_append"
    NORM = "norm"
    ACTIVATION = "activation"
    EMBEDDING = "embedding"
    ALL_REDUCE = "all_reduce"
    ALL_TO_ALL = "all_to_all"
    P2P_SEND = "p2p_send"
    RECURRENT_STATE = "recurrent_state"


class Formula(Protocol):
    """A formula: keyword shapes in, the cost of one occurrence out."""

    __name__: str
    __module__: str

    def __call__(self, *args: Any, **shapes: Any) -> OpCost: ...


F = TypeVar("F", bound=Formula)


class UnmodelledOp(RooftopError):
    """An operator kind that has no registered formula."""


_REGISTRY: dict[str, Formula] = {}
_DISCOVERED: dict[str, list[str]] = {}


def register(kind: str) -> Callable[[F], F]:
    """Decorator: register the formula of operator ``kind`` (an ``OpKind`` or a new name), once.

    The decorated function keeps its own signature, so direct calls stay type-checked.
    """

    def wrap(fn: F) -> F:
        if kind in _REGISTRY:
            first = _REGISTRY[kind]
            raise ValueError(
                f"duplicate formula registration for operator kind {str(kind)!r}: "
                f"{first.__module__}.{first.__name__} and {fn.__module__}.{fn.__name__}"
            )
        _REGISTRY[str(kind)] = fn
        return fn

    return wrap


def discover(package: str = OPS_PACKAGE) -> list[str]:
    """Import every module of ``package`` (registering its formulas); returns their dotted names."""
    if package in _DISCOVERED:
        return _DISCOVERED[package]
    names = import_modules(package)
    _DISCOVERED[package] = names
    return names


def formula(kind: str) -> Formula:
    """The formula for ``kind``; an unregistered kind raises UnmodelledOp."""
    discover()
    if kind not in _REGISTRY:
        raise UnmodelledOp(f"operator kind {kind!r} has no formula (unmodelled)")
    return _REGISTRY[kind]


def kinds() -> list[str]:
    """Every registered operator kind."""
    discover()
    return sorted(_REGISTRY)


def cost(kind: str, /, **shapes: Any) -> OpCost:
    """Evaluate the formula of ``kind`` on ``shapes``."""
    return formula(kind)(**shapes)
