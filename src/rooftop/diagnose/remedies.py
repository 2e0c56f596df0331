"""The optimisation map of seed 003 §13: per bottleneck, what to check first, remedies, side effects.

Rules cite rows of this table; they do not write remedies of their own. A remedy the analytic
model can apply carries a ``lever`` (one of LEVERS): ``rooftop analyze --what-if``
(rooftop.api.whatif) re-evaluates the workload with it and fills in its predicted effect.
"""

from __future__ import annotations

from rooftop.core.findings import Remedy

LEVERS: dict[str, str] = {
    "batch": "more sequences per step (batch × n, capped at the batch that fits)",
    "weight-quant": "FP8 (W8A8 on an FP8 roof) or INT4 (W4A16) weights",
    "fp8-gemm": "FP8 weights and GEMMs (the FP8 compute roof)",
    "kv-fp8": "an FP8 KV cache",
    "speculative": "speculative decoding at the stated k, α and drafter",
    "flash-attention": "IO-aware attention instead of a materialised score matrix",
    "chunked-prefill": "prompts chunked into a token budget beside the running decodes",
    "parallel": "another TP, EP or PP split",
    "disaggregate": "separate prefill and decode pools with a KV transfer between them",
}

CHECK_FIRST: dict[str, str] = {
    "weight-bandwidth": "HBM bytes, tokens per step (batch), GEMM shapes",
    "kv-bandwidth": "KV bytes read per context length, KV heads, KV dtype",
    "attention-io": "HBM traffic of attention, whether the score matrix is materialised",
    "compute": "tensor-core utilisation, tile shapes, compute dtype",
    "launch": "CPU→GPU gaps, the distribution of kernel durations",
    "communication": "collective durations and their overlap with compute",
    "scheduler": "queue age, batch churn, preemptions",
    "kernel-efficiency": "the kernel each slow operator runs: shapes, dtype, occupancy, access pattern, fusion",
    "kv-capacity": "KV-cache usage, preemptions, max_num_seqs against the KV blocks available",
    "host": "CPU ops and synchronisations inside the GPU's idle gaps (largest gap first)",
}

REMEDIES: dict[str, tuple[Remedy, ...]] = {
    "weight-bandwidth": (
        Remedy(
            "continuous batching: more sequences per step share each weight read",
            "queueing delay and inter-token latency can grow",
            lever="batch",
        ),
        Remedy(
            "weight quantisation (FP8, INT8, INT4 via AWQ/GPTQ): fewer bytes per weight",
            "dequantisation overhead; quality must be re-validated; INT4 is not 4× faster (scales, packing)",
            lever="weight-quant",
        ),
        Remedy(
            "speculative decoding: verify several draft tokens per weight read (GEMV → small GEMM)",
            "gains depend on the acceptance rate; the draft model costs memory and compute",
            lever="speculative",
        ),
    ),
    "kv-bandwidth": (
        Remedy("GQA/MQA or MLA architectures: fewer KV heads or a latent cache", "needs a model trained that way"),
        Remedy("KV-cache quantisation (FP8/INT8 KV)", "quality loss; kernel support varies", lever="kv-fp8"),
        Remedy("cache layout (paged blocks sized for the kernel) and prefix sharing", "kernel support varies"),
    ),
    "attention-io": (
        Remedy(
            "IO-aware attention (FlashAttention-2/3, FlashInfer): keep scores in SRAM",
            "falls back to slower kernels for unsupported shapes or dtypes",
            lever="flash-attention",
        ),
    ),
    "compute": (
        Remedy(
            "lower-precision GEMMs (BF16 → FP8) to double the compute roof",
            "numerical error; needs scaling recipes",
            lever="fp8-gemm",
        ),
        Remedy(
            "better GEMM kernels or tile shapes; chunked prefill to interleave with decode",
            "tuning per shape; chunking adds overhead per chunk",
            lever="chunked-prefill",
        ),
        Remedy("more parallelism (tensor/expert parallel)", "more communication", lever="parallel"),
    ),
    "launch": (
        Remedy("kernel fusion and CUDA-graph capture of the step", "constrains dynamic shapes"),
        Remedy(
            "move scheduling and sampling off the Python critical path (C++/Rust runtime, async)", "engineering cost"
        ),
    ),
    "communication": (
        Remedy(
            "lower the tensor-parallel degree or keep TP inside one NVLink domain",
            "fewer model replicas fit per node; per-GPU memory pressure rises",
            lever="parallel",
        ),
        Remedy(
            "pipeline/expert parallelism across nodes; disaggregate prefill and decode",
            "pipeline bubbles; KV transfer between pools",
            lever="disaggregate",
        ),
    ),
    "kernel-efficiency": (
        Remedy(
            "use a tuned library kernel (cuBLAS/cutlass, FlashAttention/FlashInfer) or autotune tiles (Triton)",
            "tuning and compile time; library kernels cover fewer fused variants",
        ),
        Remedy(
            "fix the access pattern: coalesced, vectorised loads; shared-memory tiling without bank conflicts",
            "engineering effort per kernel",
        ),
        Remedy(
            "give the kernel more work per launch (larger batch, fused ops) to fill the SMs",
            "latency per step",
            lever="batch",
        ),
        Remedy(
            "fuse elementwise chains (norm, activation, rotary) into one kernel (torch.compile, fused ops)",
            "compile time; dynamic shapes may recompile",
        ),
    ),
    "host": (
        Remedy(
            "remove host synchronisations from the step (.item(), .cpu(), cudaDeviceSynchronize, blocking copies)",
            "values needed on the host arrive later; control flow on them must move to the device",
        ),
        Remedy(
            "overlap input preparation with GPU work (DataLoader workers, pinned memory, non_blocking copies)",
            "more host memory and threads",
        ),
        Remedy("capture the steady-state step in a CUDA graph (torch.compile mode='reduce-overhead')", "static shapes"),
    ),
    "scheduler": (
        Remedy(
            "iteration-level scheduling and chunked prefill",
            "fairness and tail-latency trade-offs",
            lever="chunked-prefill",
        ),
        Remedy("cap the batch at the goodput-optimal point rather than the largest that fits", "lower peak throughput"),
    ),
    "kv-capacity": (
        Remedy(
            "KV-cache quantisation (FP8 KV) or a larger KV share of device memory",
            "quality loss; less room for activations",
            lever="kv-fp8",
        ),
        Remedy(
            "lower max_num_seqs / max_num_batched_tokens so admitted requests are not preempted",
            "lower peak throughput",
        ),
        Remedy("prefix caching and shorter context limits", "hit rates depend on the traffic"),
    ),
}
