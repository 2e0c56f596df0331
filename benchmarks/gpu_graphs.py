"""CUDA graphs off and on: record torch-profiler traces of decode steps for `rooftop import`.

    python benchmarks/gpu_graphs.py OUTDIR [--hf]

Writes OUTDIR/graphs-eager.json.gz and OUTDIR/graphs-compiled.json.gz: eight decode steps of a
Llama-3.2-1B-shaped stack (16 layers: q/k/v/o, gate/up/down, RMSNorm, SiLU; bf16, batch 1),
run eagerly and under ``torch.compile(mode="reduce-overhead")`` (CUDA graphs). With ``--hf`` it
also traces the real transformers Llama-3.2-1B (random weights) with a StaticCache, eager and
compiled, as OUTDIR/hf-eager.json.gz and OUTDIR/hf-compiled.json.gz. Needs a CUDA device.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch.profiler import ProfilerActivity, profile, record_function

HIDDEN, INTER, HEADS, KV_HEADS, LAYERS = 2048, 8192, 32, 8, 16


class Layer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        head = HIDDEN // HEADS
        self.norm1 = torch.nn.RMSNorm(HIDDEN)
        self.qkv = torch.nn.Linear(HIDDEN, (HEADS + 2 * KV_HEADS) * head, bias=False)
        self.o = torch.nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.norm2 = torch.nn.RMSNorm(HIDDEN)
        self.gate_up = torch.nn.Linear(HIDDEN, 2 * INTER, bias=False)
        self.down = torch.nn.Linear(INTER, HIDDEN, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = self.qkv(self.norm1(x))[..., :HIDDEN]
        x = x + self.o(q)
        gate, up = self.gate_up(self.norm2(x)).chunk(2, dim=-1)
        return x + self.down(torch.nn.functional.silu(gate) * up)


DEVICE = "cuda"


def sync() -> None:
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def trace(step: Callable[[], Any], path: Path, steps: int = 8) -> float:
    """Warm up, then profile ``steps`` calls of ``step`` (one ProfilerStep each); mean step ms."""
    for _ in range(3):
        step()
    sync()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if DEVICE == "cuda" else [])
    with profile(activities=activities, record_shapes=True) as prof:
        t0 = time.perf_counter()
        for i in range(steps):
            with record_function(f"ProfilerStep#{i}"):
                step()
            sync()
        ms = (time.perf_counter() - t0) / steps * 1e3
    prof.export_chrome_trace(str(path))
    return ms


def stack_traces(out: Path, eager_only: bool) -> None:
    model = torch.nn.Sequential(*[Layer() for _ in range(LAYERS)]).to(DEVICE, torch.bfloat16).eval()
    x = torch.randn(1, 1, HIDDEN, device=DEVICE, dtype=torch.bfloat16)
    with torch.inference_mode():
        eager = trace(lambda: model(x), out / "graphs-eager.json.gz")
        if eager_only:
            print(f"stack: eager {eager:.3f} ms/step")
            return
        compiled_model = torch.compile(model, mode="reduce-overhead")
        t0 = time.perf_counter()
        compiled_model(x)
        compile_s = time.perf_counter() - t0
        graphs = trace(lambda: compiled_model(x), out / "graphs-compiled.json.gz")
    print(f"stack: eager {eager:.3f} ms/step, reduce-overhead {graphs:.3f} ms/step (compile {compile_s:.1f} s)")


def hf_traces(out: Path) -> None:
    from transformers import StaticCache

    from rooftop.measure.model import build_model
    from rooftop.models.presets import config_dict

    built = build_model(config_dict("llama-3.2-1b"), "bf16", DEVICE)
    model, prompt, ctx = built.model, 512, 1024
    ids = torch.randint(0, 1000, (1, prompt), device=DEVICE)

    def run(forward: Callable[..., Any], name: str) -> float:
        cache = StaticCache(config=model.config, max_cache_len=ctx)
        forward(input_ids=ids, past_key_values=cache, cache_position=torch.arange(prompt, device=DEVICE))
        token = torch.zeros(1, 1, dtype=torch.long, device=DEVICE)
        pos = torch.tensor([prompt], device=DEVICE)

        def step() -> Any:
            pos.add_(1)
            return forward(input_ids=token, past_key_values=cache, cache_position=pos)

        return trace(step, out / f"hf-{name}.json.gz")

    with torch.inference_mode():
        eager = run(model.forward, "eager")
        t0 = time.perf_counter()
        compiled = run(torch.compile(model.forward, mode="reduce-overhead", fullgraph=True), "compiled")
    print(
        f"hf llama-3.2-1b: eager {eager:.3f} ms/step, reduce-overhead {compiled:.3f} ms/step "
        f"(compile + warm-up + trace {time.perf_counter() - t0:.1f} s)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--hf", action="store_true", help="also trace transformers' Llama-3.2-1B")
    parser.add_argument("--eager-only", action="store_true", help="only the eager stack (for ncu)")
    parser.add_argument("--device", default="cuda", help="cuda; cpu only to try the script")
    args = parser.parse_args()
    global DEVICE
    DEVICE = args.device
    args.out.mkdir(parents=True, exist_ok=True)
    stack_traces(args.out, args.eager_only)
    if args.hf:
        hf_traces(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
