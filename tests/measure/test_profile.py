"""run_profile on the tiny model in-process: steps, FLOP cross-check, trace file (Ctrl-C: tests/cli/test_profile.py)."""

import gzip
import json

import pytest

from rooftop.measure import profile
from rooftop.measure.attribution import STEP

pytest.importorskip("transformers")


def test_profile_measures_prefill_and_decode_steps(tiny_built, tmp_path):
    run = profile.run_profile(tiny_built, batch=1, prompt=8, decode_steps=2, trace_path=tmp_path / "t.json.gz")
    assert [(s.phase, s.index) for s in run.steps] == [("prefill", 0), ("decode", 0), ("decode", 1)]
    assert not run.interrupted
    # matmul FLOPs from the trace's shapes equal FlopCounterMode's (see tests/data/measure/README.md):
    # prefill 1,212,416 and a decode step 180,224 for this config at 8 prompt tokens
    assert run.flop_check["prefill"]["matmul_flops"] == run.steps[0].matmul_flops == 1_212_416
    assert run.flop_check["decode"]["matmul_flops"] == run.steps[1].matmul_flops == 180_224
    assert set(run.cold_step_s) == set(run.unprofiled_step_s) == {"prefill", "decode"}
    with gzip.open(tmp_path / "t.json.gz", "rt") as f:
        names = {e.get("name", "") for e in json.load(f)["traceEvents"]}
    assert f"{STEP}prefill::0" in names and "rooftop::mod::kv_append" in names


def test_module_ranges_are_removed_afterwards(tiny_built):
    before = sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in tiny_built.model.modules())
    with profile.module_ranges(tiny_built.model):
        inside = sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in tiny_built.model.modules())
    after = sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in tiny_built.model.modules())
    assert inside > before == after


def test_cache_keyword_follows_the_transformers_version(tiny_built):
    assert profile._cache_kwarg(tiny_built.model) in ("cache", "past_key_values")


def test_flop_counter_counts_grouped_query_sdpa_on_cuda_kernels():
    # torch 2.11's FlopCounterMode asserted q heads == k heads on CUDA's fused SDPA kernels, killing
    # the first H200 profile of Llama-3.2-1B (32 q / 8 kv heads). The mapping counts FlopCounterMode's
    # convention with GQA: 2·b·h·s_q·s_k·d (QK^T) + 2·b·h·s_q·s_k·d_v (PV), checked on meta tensors.
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    q = torch.empty(2, 32, 512, 64, device="meta", dtype=torch.bfloat16)
    kv = torch.empty(2, 8, 512, 64, device="meta", dtype=torch.bfloat16)
    counter = FlopCounterMode(display=False, custom_mapping=profile._sdpa_gqa_mapping())
    with counter:
        torch.ops.aten._scaled_dot_product_efficient_attention(q, kv, kv, None, False)
    assert counter.get_total_flops() == 4 * 2 * 32 * 512 * 512 * 64 == 4_294_967_296
    assert profile.sdpa_flops((1, 32, 1, 64), (1, 8, 2048, 64), (1, 8, 2048, 64)) == 4 * 32 * 2048 * 64


def test_a_failing_flop_counter_is_recorded_not_raised(tiny_built):
    class Stepper:
        filled = False

        def prefill(self):
            raise AssertionError("sdpa_flop_count: query/key/value shapes are incompatible")

        def decode(self):
            return None

        def fill(self):
            self.filled = True

    stepper = Stepper()
    check = profile.flop_counter_check(stepper)
    assert check["prefill"] == {
        "error": "FlopCounterMode failed: AssertionError: sdpa_flop_count: query/key/value shapes are incompatible"
    }
    assert check["decode"]["matmul_flops"] == 0.0 and stepper.filled


def test_kineto_start_stop_notices_stay_off_stderr(capfd):
    # torch 2.13's Kineto wrote "USDT:... profiler_start" / "profiler_stop" to fd 2 for every session:
    # a dozen lines ahead of the README's first command's report. Other lines written then pass on.
    import os

    import torch

    with profile.torch_profiler("cpu"):
        torch.ones(3).add_(1)
    assert "USDT:" not in capfd.readouterr().err
    with profile._without_kineto_notices():
        os.write(2, b"USDT:2026-11-30 SyncActivityProfilerHandler.cpp:52] profiler_start\nkept\n")
    assert capfd.readouterr().err == "kept\n"
