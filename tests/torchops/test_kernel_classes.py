"""Kernel-name classes from the data file."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rooftop.torchops.kernel_classes import classify, collective_of, short_kernel


@pytest.mark.parametrize(
    "name, cls",
    [
        ("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", "communication"),
        ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "communication"),
        ("fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<>::Params)", "attention"),
        ("void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64>>(Flash_fwd_params)", "attention"),
        ("std::enable_if<!T7, void>::type internal::gemvx::kernel<int, int, __nv_bfloat16>(T13)", "gemv"),
        ("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(Params)", "gemm"),
        ("ampere_sgemm_128x64_nn", "gemm"),
        ("Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1", "gemm"),
        ("sm80_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc", "conv"),
        ("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true, 1>(float)", "norm"),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)", "elementwise"),
        ("triton_poi_fused_add_cos_sin_0", "elementwise"),
        ("triton_red_fused_sum_1", "reduce"),
        ("void fbgemm_gpu::split_embedding_backward_codegen_rowwise_adagrad_kernel<float>()", "embedding"),
        ("some_unknown_kernel", "other"),
        # vLLM / SGLang serving kernels (names as nsys and torch.profiler print them)
        ("fused_moe_kernel", "gemm"),
        ("_fused_moe_kernel", "gemm"),
        ("fused_moe_kernel_gptq_awq", "gemm"),
        ("void marlin::Marlin<(long)1125899906910725, 256, 1, 8, 8, true, false, 4, 8>(int4 const*)", "gemm"),
        ("void marlin_moe_wna16::Marlin<(long)1125899906910725, 256, 1, 8, 8, true, false, 4, 8>(int4 const*)", "gemm"),
        ("void wvSplitK_hf_sml_<__hip_bfloat16, 64, 1, 16, 8, 4, 4>(int, int, int, int, int, int)", "gemv"),
        ("moe_align_block_size_kernel", "other"),  # the routing sort, not a GEMM
        (
            "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0>()",
            "kv_cache",
        ),
        (
            "void vllm::concat_and_cache_mla_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0>()",
            "kv_cache",
        ),
        ("_fwd_kernel_stage1", "attention"),
        ("_fwd_grouped_kernel_stage1", "attention"),
        ("_fwd_kernel", "attention"),
        ("_chunk_scan_fwd_kernel", "other"),  # a Mamba scan, not attention: the pattern is anchored
        ("_per_token_group_quant_fp8", "elementwise"),
        ("void vllm::scaled_fp8_quant_kernel<c10::BFloat16, c10::Float8_e4m3fn>()", "elementwise"),
        (
            "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int>()",
            "embedding",
        ),
    ],
)
def test_classes(name: str, cls: str) -> None:
    assert classify(name).name == cls


def test_collective_and_short_names() -> None:
    assert collective_of("ncclKernel_AllReduce_RING_LL_Sum_float") == "all_reduce"
    assert collective_of("ncclDevKernel_Broadcast_RING_LL") == "broadcast"
    assert collective_of("ampere_sgemm") == ""
    assert (
        short_kernel("std::enable_if<!T7, void>::type internal::gemvx::kernel<int>(T13)")
        == "internal::gemvx::kernel<int>"
    )
    assert short_kernel("void cutlass::Kernel<cutlass_80_x>(cutlass_80_x::Params)") == "cutlass::Kernel<cutlass_80_x>"
    assert len(short_kernel("x" * 500)) == 70
    # the H200 trace's cat kernel read 'at::native::' (the '(' of the namespace taken for the arguments)
    cat = "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::OpaqueType<2u>, unsigned int, 4, 64, 64>(at::native::(anonymous namespace)::OpaqueType<2u>*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::OpaqueType<2u>, unsigned int, 64, 64>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)"
    whole = "at::native::CatArrayBatchedCopy<at::native::OpaqueType<2u>, unsigned int, 4, 64, 64>"
    assert short_kernel(cat, 100) == whole and short_kernel(cat) == whole[:69] + "…"
    # vLLM's fused_add_rms_norm (TraceLens' B200 trace) read 'std::enable_if<(((8)>': the '>' of '(8)>(0)'
    # was taken for the end of the template and '(0)' for the argument list
    norm = "std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*, c10::BFloat16 const*, float, int, int)"
    assert short_kernel(norm) == "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>"


def _depth0_by_scan(text: str, stop: str) -> int:
    angle = paren = 0  # parentheses count only inside a template, and hide the '<' '>' within them
    for i, ch in enumerate(text):
        if angle and ch in "()":
            paren = paren + 1 if ch == "(" else max(0, paren - 1)
        elif paren:
            continue
        elif ch == "<":
            angle += 1
        elif ch == ">":
            angle = max(0, angle - 1)
        elif ch == stop and angle == 0:
            return i
    return len(text)


def _short_by_cuts(name: str) -> str:
    """short_kernel's name before the width cut, as it was made: cut at the first outer space until none is left."""
    text = name.strip().replace("(anonymous namespace)::", "")
    text = text[: _depth0_by_scan(text, "(")] or text
    while (cut := _depth0_by_scan(text, " ")) < len(text):
        text = text[cut + 1 :]
    return text


@given(st.text(alphabet="ab<>() :", max_size=60))
def test_short_name_in_one_pass_matches_repeated_cuts(text: str) -> None:
    assert short_kernel(text, width=100) == _short_by_cuts(text)


@pytest.mark.parametrize(
    ("name", "cls"),
    [  # TraceLens' B200 gpt-oss trace: these two were 5.2 of its 10.9 ms of kernels, all 'other'
        (
            "bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_schedP2x1x2",
            "gemm",
        ),
        (
            "bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_schedP2x1",
            "gemm",
        ),
        # TraceLens' MI300X ResNet trace: MIOpen's transposes (5.3 ms) and tensor ops (1.7 ms) of 97.3 ms
        ("batched_transpose_16x32_half", "elementwise"),
        ("SubTensorOpWithScalar1d", "elementwise"),
    ],
)
def test_blackwell_moe_gemms_and_miopen_layout_kernels(name: str, cls: str) -> None:
    assert classify(name).name == cls


@pytest.mark.parametrize(
    "name",
    [
        "void cudnn::detail::implicit_convolve_sgemm<float>(int)",  # 'conv' word before the gemm class
        "cudnn::engines::fprop_kernel",  # the regex pattern 'cudnn::.*(fprop|dgrad|wgrad)'
        "triton_tem_fused_addmm_0",  # regex 'triton_tem_fused_.*mm'
        "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32",  # anchored '^Cijk_'
        "xCijk_not_anchored",
        "LAYERNORM_fwd",  # case-insensitive words
        "ſoftmax_kernel",  # non-ASCII: the regex path (re.IGNORECASE folds 'ſ' to 's')
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)",
        "unknown_kernel",
    ],
)
def test_words_and_regexes_classify_like_one_regex(name: str) -> None:
    from rooftop.torchops.kernel_classes import classes

    reference = next((kc.name for kc in classes() if kc.pattern.search(name)), "other")
    assert classify(name).name == reference


@pytest.mark.parametrize("name", ["GEMM_k2", "xgemm_kA", "Foo_Bar", "foo-bar", "ſgemm_k1", "plain"])
def test_each_kind_of_pattern_matches_like_the_ignorecase_regex(name: str) -> None:
    from rooftop.torchops.kernel_classes import KernelClass

    # a word, a regex without backslashes (searched lower-cased), a regex with one (IGNORECASE)
    kc = KernelClass("x", "x", "", ("plain", "foo_?bar", r"gemm_k\d"))
    assert kc.matches(name) == (kc.pattern.search(name) is not None)
