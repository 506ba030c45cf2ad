"""The 50 baseline call contracts: the `def` line of each upstream KernelGenBench baseline wrapper
(src/kernelgenbench/dataset/baseline/vllm13/<name>.py), which forwards to vllm._custom_ops.<name>.
A solution must define a function with exactly this name, these parameter names and this order."""

SIGNATURES: dict[str, str] = {
    "allspark_w8a16_gemm": (
        "def allspark_w8a16_gemm(a: torch.Tensor, b_qweight: torch.Tensor, b_scales: torch.Tensor, b_qzeros: "
        "torch.Tensor | None, n: int, group_size: int, sm_count: int, sm_version: int, CUBLAS_M_THRESHOLD: "
        "int, has_zp: bool, n32k16_reorder: bool) -> torch.Tensor:"
    ),
    "apply_repetition_penalties_cuda": (
        "def apply_repetition_penalties_cuda(logits: torch.Tensor, prompt_mask: torch.Tensor, output_mask: "
        "torch.Tensor, repetition_penalties: torch.Tensor) -> None:"
    ),
    "awq_gemm": (
        "def awq_gemm(input: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, qzeros: torch.Tensor, "
        "split_k_iters: int) -> torch.Tensor:"
    ),
    "awq_marlin_moe_repack": (
        "def awq_marlin_moe_repack(b_q_weight: torch.Tensor, perm: torch.Tensor, size_k: int, size_n: int, "
        "num_bits: int, is_a_8bit: bool=False) -> torch.Tensor:"
    ),
    "batched_moe_align_block_size": (
        "def batched_moe_align_block_size(max_tokens_per_batch: int, block_size: int, expert_num_tokens: "
        "torch.Tensor, sorted_ids: torch.Tensor, expert_ids: torch.Tensor, num_tokens_post_pad: torch.Tensor) "
        "-> None:"
    ),
    "concat_and_cache_mla": (
        "def concat_and_cache_mla(kv_c: torch.Tensor, k_pe: torch.Tensor, kv_cache: torch.Tensor, "
        "slot_mapping: torch.Tensor, kv_cache_dtype: str, scale: torch.Tensor) -> None:"
    ),
    "convert_fp8": (
        "def convert_fp8(output: torch.Tensor, input: torch.Tensor, scale: float=1.0, kv_dtype: str='fp8') -> None:"
    ),
    "convert_vertical_slash_indexes": (
        "def convert_vertical_slash_indexes(q_seqlens: torch.Tensor, kv_seqlens: torch.Tensor, "
        "vertical_indexes: torch.Tensor, slash_indexes: torch.Tensor, context_size: int, block_size_M: int, "
        "block_size_N: int, causal: bool=True) -> tuple:"
    ),
    "copy_blocks": ("def copy_blocks(key_caches: list, value_caches: list, block_mapping: torch.Tensor) -> None:"),
    "copy_blocks_mla": ("def copy_blocks_mla(kv_caches: list, block_mapping: torch.Tensor) -> None:"),
    "cp_gather_cache": (
        "def cp_gather_cache(src_cache: torch.Tensor, dst: torch.Tensor, block_table: torch.Tensor, "
        "cu_seq_lens: torch.Tensor, batch_size: int, seq_starts: torch.Tensor | None=None) -> None:"
    ),
    "cp_gather_indexer_k_quant_cache": (
        "def cp_gather_indexer_k_quant_cache(kv_cache: torch.Tensor, dst_k: torch.Tensor, dst_scale: "
        "torch.Tensor, block_table: torch.Tensor, cu_seq_lens: torch.Tensor) -> None:"
    ),
    "cutlass_pack_scale_fp8": ("def cutlass_pack_scale_fp8(scales: torch.Tensor) -> torch.Tensor:"),
    "cutlass_scaled_mm": (
        "def cutlass_scaled_mm(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: "
        "torch.Tensor, out_dtype: torch.dtype, bias: torch.Tensor | None=None) -> torch.Tensor:"
    ),
    "cutlass_scaled_mm_azp": (
        "def cutlass_scaled_mm_azp(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: "
        "torch.Tensor, out_dtype: torch.dtype, azp_adj: torch.Tensor, azp: torch.Tensor | None=None, bias: "
        "torch.Tensor | None=None) -> torch.Tensor:"
    ),
    "fused_add_rms_norm": (
        "def fused_add_rms_norm(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, epsilon: "
        "float) -> None:"
    ),
    "fused_qk_norm_rope": (
        "def fused_qk_norm_rope(qkv: torch.Tensor, num_heads_q: int, num_heads_k: int, num_heads_v: int, "
        "head_dim: int, eps: float, q_weight: torch.Tensor, k_weight: torch.Tensor, cos_sin_cache: "
        "torch.Tensor, is_neox: bool, position_ids: torch.Tensor) -> None:"
    ),
    "gather_and_maybe_dequant_cache": (
        "def gather_and_maybe_dequant_cache(src_cache: torch.Tensor, dst: torch.Tensor, block_table: "
        "torch.Tensor, cu_seq_lens: torch.Tensor, token_to_seq: torch.Tensor, num_tokens: int, "
        "kv_cache_dtype: str, scale: torch.Tensor, seq_starts: torch.Tensor | None=None) -> None:"
    ),
    "ggml_dequantize": (
        "def ggml_dequantize(W: torch.Tensor, quant_type: int, m: int, n: int, dtype: torch.dtype) -> torch.Tensor:"
    ),
    "ggml_moe_a8": (
        "def ggml_moe_a8(X: torch.Tensor, W: torch.Tensor, sorted_token_ids: torch.Tensor, expert_ids: "
        "torch.Tensor, num_tokens_post_padded: torch.Tensor, quant_type: int, row: int, top_k: int, tokens: "
        "int) -> torch.Tensor:"
    ),
    "ggml_moe_a8_vec": (
        "def ggml_moe_a8_vec(X: torch.Tensor, W: torch.Tensor, topk_ids: torch.Tensor, top_k: int, "
        "quant_type: int, row: int, tokens: int) -> torch.Tensor:"
    ),
    "ggml_mul_mat_a8": (
        "def ggml_mul_mat_a8(W: torch.Tensor, X: torch.Tensor, quant_type: int, row: int) -> torch.Tensor:"
    ),
    "ggml_mul_mat_vec_a8": (
        "def ggml_mul_mat_vec_a8(W: torch.Tensor, X: torch.Tensor, quant_type: int, row: int) -> torch.Tensor:"
    ),
    "gptq_gemm": (
        "def gptq_gemm(a: torch.Tensor, b_q_weight: torch.Tensor, b_gptq_qzeros: torch.Tensor, b_gptq_scales: "
        "torch.Tensor, b_g_idx: torch.Tensor, use_exllama: bool, use_v2_format: bool, bit: int) -> "
        "torch.Tensor:"
    ),
    "gptq_marlin_24_gemm": (
        "def gptq_marlin_24_gemm(a: torch.Tensor, b_q_weight: torch.Tensor, b_meta: torch.Tensor, b_scales: "
        "torch.Tensor, workspace: torch.Tensor, b_q_type: 'ScalarType', size_m: int, size_n: int, size_k: "
        "int) -> torch.Tensor:"
    ),
    "gptq_marlin_gemm": (
        "def gptq_marlin_gemm(a: torch.Tensor, c: 'torch.Tensor | None', b_q_weight: torch.Tensor, b_bias: "
        "'torch.Tensor | None', b_scales: torch.Tensor, a_scales: 'torch.Tensor | None', global_scale: "
        "'torch.Tensor | None', b_zeros: torch.Tensor, g_idx: torch.Tensor, perm: torch.Tensor, workspace: "
        "torch.Tensor, b_q_type: 'object', size_m: int, size_n: int, size_k: int, is_k_full: bool=True, "
        "use_atomic_add: bool=False, use_fp32_reduce: bool=False, is_zp_float: bool=False) -> torch.Tensor:"
    ),
    "gptq_marlin_moe_repack": (
        "def gptq_marlin_moe_repack(b_q_weight: torch.Tensor, perm: torch.Tensor, size_k: int, size_n: int, "
        "num_bits: int, is_a_8bit: bool=False) -> torch.Tensor:"
    ),
    "gptq_shuffle": ("def gptq_shuffle(q_weight: torch.Tensor, q_perm: torch.Tensor, bit: int) -> None:"),
    "grouped_topk": (
        "def grouped_topk(scores: torch.Tensor, num_expert_group: int, topk_group: int, topk: int, "
        "renormalize: bool, routed_scaling_factor: float, bias: torch.Tensor, scoring_func: int=0) -> None:"
    ),
    "hadacore_transform": ("def hadacore_transform(x: torch.Tensor, inplace: bool=True) -> torch.Tensor:"),
    "marlin_int4_fp8_preprocess": (
        "def marlin_int4_fp8_preprocess(qweight: torch.Tensor, qzeros_or_none: torch.Tensor | None=None, "
        "inplace: bool=False) -> None:"
    ),
    "merge_attn_states": (
        "def merge_attn_states(output: torch.Tensor, prefix_output: torch.Tensor, prefix_lse: torch.Tensor, "
        "suffix_output: torch.Tensor, suffix_lse: torch.Tensor, output_lse: torch.Tensor | None=None) -> "
        "None:"
    ),
    "moe_align_block_size": (
        "def moe_align_block_size(topk_ids, num_experts, block_size, sorted_token_ids, experts_ids, "
        "num_tokens_post_pad, expert_map=None):"
    ),
    "moe_lora_align_block_size": (
        "def moe_lora_align_block_size(topk_ids: torch.Tensor, token_lora_mapping: torch.Tensor, num_experts: "
        "int, block_size: int, max_loras: int, max_num_tokens_padded: int, max_num_m_blocks: int, "
        "sorted_token_ids: torch.Tensor, experts_ids: torch.Tensor, num_tokens_post_pad: torch.Tensor, "
        "adapter_enabled: torch.Tensor, lora_ids: torch.Tensor, expert_map: 'torch.Tensor | None'=None) -> "
        "None:"
    ),
    "moe_sum": ("def moe_sum(input: torch.Tensor, output: torch.Tensor) -> None:"),
    "paged_attention_v1": (
        "def paged_attention_v1(out: torch.Tensor, query: torch.Tensor, key_cache: torch.Tensor, value_cache: "
        "torch.Tensor, num_kv_heads: int, scale: float, block_tables: torch.Tensor, seq_lens: torch.Tensor, "
        "block_size: int, max_seq_len: int, alibi_slopes: torch.Tensor | None, kv_cache_dtype: str, k_scale: "
        "torch.Tensor, v_scale: torch.Tensor, tp_rank: int=0, blocksparse_local_blocks: int=0, "
        "blocksparse_vert_stride: int=0, blocksparse_block_size: int=64, blocksparse_head_sliding_step: "
        "int=0) -> None:"
    ),
    "paged_attention_v2": (
        "def paged_attention_v2(out: torch.Tensor, exp_sum: torch.Tensor, max_logits: torch.Tensor, tmp_out: "
        "torch.Tensor, query: torch.Tensor, key_cache: torch.Tensor, value_cache: torch.Tensor, num_kv_heads: "
        "int, scale: float, block_tables: torch.Tensor, seq_lens: torch.Tensor, block_size: int, max_seq_len: "
        "int, alibi_slopes: torch.Tensor | None, kv_cache_dtype: str, k_scale: torch.Tensor, v_scale: "
        "torch.Tensor, tp_rank: int=0, blocksparse_local_blocks: int=0, blocksparse_vert_stride: int=0, "
        "blocksparse_block_size: int=64, blocksparse_head_sliding_step: int=0) -> None:"
    ),
    "permute_cols": ("def permute_cols(a: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:"),
    "reshape_and_cache": (
        "def reshape_and_cache(key: torch.Tensor, value: torch.Tensor, key_cache: torch.Tensor, value_cache: "
        "torch.Tensor, slot_mapping: torch.Tensor, kv_cache_dtype: str, k_scale: torch.Tensor, v_scale: "
        "torch.Tensor) -> None:"
    ),
    "reshape_and_cache_flash": (
        "def reshape_and_cache_flash(key: torch.Tensor, value: torch.Tensor, key_cache: torch.Tensor, "
        "value_cache: torch.Tensor, slot_mapping: torch.Tensor, kv_cache_dtype: str, k_scale: torch.Tensor, "
        "v_scale: torch.Tensor) -> None:"
    ),
    "rms_norm": ("def rms_norm(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:"),
    "rms_norm_dynamic_per_token_quant": (
        "def rms_norm_dynamic_per_token_quant(input: torch.Tensor, weight: torch.Tensor, epsilon: float, "
        "quant_dtype: torch.dtype, scale_ub: torch.Tensor | None=None, residual: torch.Tensor | None=None) -> "
        "tuple:"
    ),
    "rms_norm_per_block_quant": (
        "def rms_norm_per_block_quant(input: torch.Tensor, weight: torch.Tensor, epsilon: float, quant_dtype: "
        "torch.dtype, group_size: list, scale_ub: torch.Tensor | None=None, residual: torch.Tensor | "
        "None=None, is_scale_transposed: bool=False) -> tuple:"
    ),
    "rotary_embedding": (
        "def rotary_embedding(positions: torch.Tensor, query: torch.Tensor, key: torch.Tensor | None, "
        "head_size: int, cos_sin_cache: torch.Tensor, is_neox: bool) -> None:"
    ),
    "scaled_fp8_quant": (
        "def scaled_fp8_quant(input: torch.Tensor, scale: torch.Tensor | None=None, num_token_padding: int | "
        "None=None, scale_ub: torch.Tensor | None=None, use_per_token_if_dynamic: bool=False, output: "
        "torch.Tensor | None=None) -> tuple:"
    ),
    "scaled_int8_quant": (
        "def scaled_int8_quant(input: torch.Tensor, scale: torch.Tensor | None=None, azp: torch.Tensor | "
        "None=None, symmetric: bool=True) -> tuple:"
    ),
    "selective_scan_fwd": (
        "def selective_scan_fwd(u: torch.Tensor, delta: torch.Tensor, A: torch.Tensor, B: torch.Tensor, C: "
        "torch.Tensor, D_: torch.Tensor | None, z_: torch.Tensor | None, delta_bias_: torch.Tensor | None, "
        "delta_softplus: bool, query_start_loc: torch.Tensor | None, cache_indices: torch.Tensor | None, "
        "has_initial_state: torch.Tensor | None, ssm_states: torch.Tensor, pad_slot_id: int, block_size: "
        "int=1024, block_idx_first_scheduled_token: torch.Tensor | None=None, block_idx_last_scheduled_token: "
        "torch.Tensor | None=None, initial_state_idx: torch.Tensor | None=None) -> None:"
    ),
    "shuffle_rows": ("def shuffle_rows(input_tensor: torch.Tensor, dst2src_map: torch.Tensor) -> None:"),
    "swap_blocks": ("def swap_blocks(src: torch.Tensor, dst: torch.Tensor, block_mapping: torch.Tensor) -> None:"),
    "topk_softmax": (
        "def topk_softmax(topk_weights: torch.Tensor, topk_ids: torch.Tensor, token_expert_indices: "
        "torch.Tensor, gating_output: torch.Tensor, renormalize: bool=False) -> None:"
    ),
}
