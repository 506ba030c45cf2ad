"""vLLM paged KV-cache ops: reshape_and_cache(_flash), concat_and_cache_mla, copy_blocks(_mla), swap_blocks,
cp_gather_cache, cp_gather_indexer_k_quant_cache, gather_and_maybe_dequant_cache, convert_fp8."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from operators.catalog.vllm13._support import FP8, FP8_MAX, bytes_cost, dt, exact, vllm_spec
from operators.spec import Cost, Rng


def _to_fp8_bytes(x: torch.Tensor, scale: float | torch.Tensor) -> torch.Tensor:
    """vLLM's scaled_convert to e4m3fn with saturation: fp8(clamp(x / scale, +-448)), as raw bytes."""
    return (x.float() / scale).clamp(-FP8_MAX, FP8_MAX).to(FP8).view(torch.uint8)


def _store(cache_value: torch.Tensor, x: torch.Tensor, kv_cache_dtype: str, scale: torch.Tensor) -> torch.Tensor:
    if kv_cache_dtype.startswith("fp8"):
        return _to_fp8_bytes(x, scale.float().reshape(()))
    return x.to(cache_value.dtype)


def _slots(slot_mapping: torch.Tensor, block_size: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Token rows with a real slot (negative slots are padding and skipped), their block and offset."""
    slots = slot_mapping.long()
    rows = torch.nonzero(slots >= 0).flatten()
    return rows, slots[rows] // block_size, slots[rows] % block_size


def _slot_mapping(rng: Rng, tokens: int, num_blocks: int, block_size: int, padded: int = 0) -> torch.Tensor:
    """Distinct slots (no two tokens write the same place); the last `padded` tokens get -1."""
    slots = rng.randperm(num_blocks * block_size)[:tokens].to(torch.int64)
    if padded:
        slots[-padded:] = -1
    return slots


def _scale(value: float, device: torch.device) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float32, device=device)


def _stale_cache(rng: Rng, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """A cache holding earlier entries (random values, random bytes for fp8), as a live vLLM cache does:
    a slot left unwritten, or a cache cleared before writing, then differs from the reference, and a
    call that writes nothing (a ghost replay with launches off) can never pass for a correct one."""
    if dtype == torch.uint8:
        return rng.randint(0, 256, shape, dtype)
    return rng.randn(shape, dtype)


def _cache_write_cost(sources: tuple[str, ...], cache: str) -> Callable[[dict[str, Any], dict[str, Any]], Cost]:
    """Least traffic of a cache write: the slot mapping, the source rows of the tokens with a slot, and
    their cache entries. Not the cache's capacity: a call touches only the written slots, so counting
    the whole cache puts the physics floor far above what any kernel needs."""

    def cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
        slots = inputs["slot_mapping"]
        written = int((slots >= 0).sum())
        row_elements = sum(inputs[name][0].numel() for name in sources)
        row_bytes = sum(inputs[name][0].numel() * inputs[name].element_size() for name in sources)
        entry_bytes = row_elements * inputs[cache].element_size()
        return Cost(
            flops=0.0,
            bytes=float(slots.numel() * slots.element_size() + written * (row_bytes + entry_bytes)),
            dtype=str(inputs[sources[0]].dtype).removeprefix("torch."),
        )

    return cost


# ---------------------------------------------------------------- reshape_and_cache


def reshape_and_cache(
    key: torch.Tensor,
    value: torch.Tensor,
    key_cache: torch.Tensor,
    value_cache: torch.Tensor,
    slot_mapping: torch.Tensor,
    kv_cache_dtype: str,
    k_scale: torch.Tensor,
    v_scale: torch.Tensor,
) -> None:
    heads, head_size = key.shape[1], key.shape[2]
    block_size, x = key_cache.shape[3], key_cache.shape[4]
    rows, blocks, offsets = _slots(slot_mapping, block_size)
    k = _store(key_cache, key[rows], kv_cache_dtype, k_scale).reshape(-1, heads, head_size // x, x)
    v = _store(value_cache, value[rows], kv_cache_dtype, v_scale)
    key_cache[blocks, :, :, offsets, :] = k
    value_cache[blocks, :, :, offsets] = v


def _rc_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    tokens, heads, head_size, num_blocks, block_size = case["shape"][:5]
    dtype = dt(case["dtype"])
    cache_dtype = torch.uint8 if case.get("kv_cache_dtype", "auto").startswith("fp8") else dtype
    x = 16 // torch.empty(0, dtype=cache_dtype).element_size()
    dev = rng.device
    return {
        "key": rng.randn((tokens, heads, head_size), dtype),
        "value": rng.randn((tokens, heads, head_size), dtype),
        "key_cache": _stale_cache(rng, (num_blocks, heads, head_size // x, block_size, x), cache_dtype),
        "value_cache": _stale_cache(rng, (num_blocks, heads, head_size, block_size), cache_dtype),
        "slot_mapping": _slot_mapping(rng, tokens, num_blocks, block_size, case.get("padded", 0)),
        "kv_cache_dtype": case.get("kv_cache_dtype", "auto"),
        "k_scale": _scale(case.get("k_scale", 1.0), dev),
        "v_scale": _scale(case.get("v_scale", 1.0), dev),
    }


UPSTREAM_RC = [
    (4, 8, 64, 16, 16),
    (32, 8, 64, 32, 16),
    (128, 8, 64, 64, 16),
    (128, 16, 128, 64, 16),
    (256, 8, 64, 64, 16),
    (256, 16, 128, 64, 16),
    (512, 16, 64, 128, 16),
    (512, 32, 128, 128, 16),
    (1024, 16, 128, 256, 16),
]

RESHAPE_AND_CACHE = vllm_spec(
    name="reshape_and_cache",
    category="cache",
    description=(
        "Scatter new key/value rows [T, H, D] into the paged v0 caches: for slot s = slot_mapping[t] >= 0, "
        "block b = s // block_size, offset o = s % block_size: key_cache[b, h, d // x, o, d % x] = key[t, h, d] "
        "(key_cache [NB, H, D/x, BS, x], x = 16 bytes / element size) and value_cache[b, h, d, o] = value[t, h, d] "
        "(value_cache [NB, H, D, BS]); negative slots are skipped. kv_cache_dtype 'fp8' stores "
        "e4m3fn(clamp(x / scale)) bytes in uint8 caches."
    ),
    reference_impl=reshape_and_cache,
    make_inputs=_rc_inputs,
    cases={
        "smoke": [{"shape": [5, 2, 16, 4, 4], "dtype": "float16"}, {"shape": [6, 3, 32, 3, 8], "dtype": "bfloat16"}],
        "full": [{"shape": list(s), "dtype": d} for s in UPSTREAM_RC for d in ("float16", "bfloat16")],
        "edge": [
            {"shape": [42, 8, 80, 64, 32], "dtype": "float32", "padded": 5},
            {
                "shape": [21, 4, 64, 16, 16],
                "dtype": "bfloat16",
                "kv_cache_dtype": "fp8",
                "k_scale": 0.5,
                "v_scale": 2.0,
            },
        ],
        "perf": [
            {"shape": [8192, 8, 128, 4096, 16], "dtype": "bfloat16"},
            {"shape": [256, 32, 128, 2048, 16], "dtype": "float16"},
        ],
    },
    fidelity=(
        "vLLM csrc/cache_kernels.cu reshape_and_cache (x-split key layout, negative slot = skip, fp8 via "
        "scaled_convert with saturation) and tests/kernels/attention/test_cache.py. Upstream grid (18) in `full`; "
        "exact comparison (a copy). FP8 variant assumed: e4m3fn, max 448 (edge tier, power-of-two scales). "
        "Caches start with stale random entries (upstream's tests fill them randomly too), so unwritten slots "
        "are compared as well; cost counts the written slots, not the cache's capacity."
    ),
    returns=False,
    mutates=("key_cache", "value_cache"),
    checkers=(exact, exact),
    cost=_cache_write_cost(("key", "value"), "key_cache"),
)


# ---------------------------------------------------------------- reshape_and_cache_flash


def reshape_and_cache_flash(
    key: torch.Tensor,
    value: torch.Tensor,
    key_cache: torch.Tensor,
    value_cache: torch.Tensor,
    slot_mapping: torch.Tensor,
    kv_cache_dtype: str,
    k_scale: torch.Tensor,
    v_scale: torch.Tensor,
) -> None:
    rows, blocks, offsets = _slots(slot_mapping, key_cache.shape[1])
    key_cache[blocks, offsets] = _store(key_cache, key[rows], kv_cache_dtype, k_scale)
    value_cache[blocks, offsets] = _store(value_cache, value[rows], kv_cache_dtype, v_scale)


def _flash_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    tokens, heads, head_size, num_blocks, block_size = case["shape"]
    dtype = dt(case["dtype"])
    cache_dtype = torch.uint8 if case.get("kv_cache_dtype", "auto").startswith("fp8") else dtype
    dev = rng.device
    if case.get("layout", "NHD") == "HND":
        # vLLM also accepts head-major pages: [NB, H, BS, D] memory seen as [NB, BS, H, D]
        kc = _stale_cache(rng, (num_blocks, heads, block_size, head_size), cache_dtype).transpose(1, 2)
        vc = _stale_cache(rng, (num_blocks, heads, block_size, head_size), cache_dtype).transpose(1, 2)
    else:
        kc = _stale_cache(rng, (num_blocks, block_size, heads, head_size), cache_dtype)
        vc = _stale_cache(rng, (num_blocks, block_size, heads, head_size), cache_dtype)
    return {
        "key": rng.randn((tokens, heads, head_size), dtype),
        "value": rng.randn((tokens, heads, head_size), dtype),
        "key_cache": kc,
        "value_cache": vc,
        "slot_mapping": _slot_mapping(rng, tokens, num_blocks, block_size, case.get("padded", 0)),
        "kv_cache_dtype": case.get("kv_cache_dtype", "auto"),
        "k_scale": _scale(case.get("k_scale", 1.0), dev),
        "v_scale": _scale(case.get("v_scale", 1.0), dev),
    }


RESHAPE_AND_CACHE_FLASH = vllm_spec(
    name="reshape_and_cache_flash",
    category="cache",
    description=(
        "Scatter key/value rows [T, H, D] into flash-layout paged caches [NB, BS, H, D] (strides honoured, so a "
        "head-major [NB, H, BS, D] page seen through a transposed view works too): "
        "key_cache[s // BS, s % BS] = key[t] for s = slot_mapping[t] >= 0; negative slots skipped."
    ),
    reference_impl=reshape_and_cache_flash,
    make_inputs=_flash_inputs,
    cases={
        "smoke": [{"shape": [5, 2, 16, 4, 4], "dtype": "float16"}, {"shape": [6, 3, 32, 3, 8], "dtype": "bfloat16"}],
        "full": [
            {"shape": [s[0], s[1], s[2], s[3], s[4]], "dtype": d} for s in UPSTREAM_RC for d in ("float16", "bfloat16")
        ],
        "edge": [
            {"shape": [21, 8, 80, 64, 32], "dtype": "float32", "padded": 3},
            {"shape": [17, 4, 64, 16, 16], "dtype": "bfloat16", "layout": "HND"},
            {"shape": [9, 2, 64, 8, 16], "dtype": "float16", "kv_cache_dtype": "fp8", "k_scale": 0.25, "v_scale": 0.5},
        ],
        # 4096 blocks, not 32768: a timed call's outputs come back whole (4 kept calls x 2 caches), and
        # 2 x 1 GiB caches made that reply 8 GiB, over the harness's message cap (a runtime_error)
        "perf": [{"shape": [8192, 8, 128, 4096, 16], "dtype": "bfloat16"}],
    },
    fidelity=(
        "vLLM csrc/cache_kernels.cu reshape_and_cache_flash (block/page/head strides taken from the cache, so "
        "NHD and HND pages) and test_cache.py::test_reshape_and_cache_flash. Upstream grid (18); exact. "
        "FP8 variant e4m3fn, max 448 (edge tier). Caches start with stale random entries; cost counts the "
        "written slots, not the cache's capacity."
    ),
    returns=False,
    mutates=("key_cache", "value_cache"),
    checkers=(exact, exact),
    cost=_cache_write_cost(("key", "value"), "key_cache"),
)


# ---------------------------------------------------------------- concat_and_cache_mla


def concat_and_cache_mla(
    kv_c: torch.Tensor,
    k_pe: torch.Tensor,
    kv_cache: torch.Tensor,
    slot_mapping: torch.Tensor,
    kv_cache_dtype: str,
    scale: torch.Tensor,
) -> None:
    rows, blocks, offsets = _slots(slot_mapping, kv_cache.shape[1])
    entry = torch.cat([kv_c[rows], k_pe[rows]], dim=-1)
    kv_cache[blocks, offsets] = _store(kv_cache, entry, kv_cache_dtype, scale)


def _mla_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    tokens, rank, pe, num_blocks, block_size = case["shape"]
    dtype = dt(case["dtype"])
    cache_dtype = torch.uint8 if case.get("kv_cache_dtype", "auto").startswith("fp8") else dtype
    return {
        "kv_c": rng.randn((tokens, rank), dtype),
        "k_pe": rng.randn((tokens, pe), dtype),
        "kv_cache": _stale_cache(rng, (num_blocks, block_size, rank + pe), cache_dtype),
        "slot_mapping": _slot_mapping(rng, tokens, num_blocks, block_size, case.get("padded", 0)),
        "kv_cache_dtype": case.get("kv_cache_dtype", "auto"),
        "scale": _scale(case.get("scale", 1.0), rng.device),
    }


CONCAT_AND_CACHE_MLA = vllm_spec(
    name="concat_and_cache_mla",
    category="cache",
    description=(
        "MLA cache write: kv_cache[s // BS, s % BS, :] = cat(kv_c[t], k_pe[t]) for s = slot_mapping[t] >= 0 "
        "(kv_cache [NB, BS, kv_lora_rank + pe_dim]); negative slots skipped; 'fp8' stores e4m3fn(x / scale) bytes."
    ),
    reference_impl=concat_and_cache_mla,
    make_inputs=_mla_inputs,
    cases={
        "smoke": [{"shape": [5, 32, 16, 4, 4], "dtype": "float16"}, {"shape": [3, 64, 8, 2, 8], "dtype": "bfloat16"}],
        "full": [
            {"shape": list(s), "dtype": d}
            for s in [
                (4, 512, 64, 16, 16),
                (32, 512, 64, 32, 16),
                (128, 256, 64, 64, 16),
                (128, 256, 128, 64, 16),
                (256, 256, 64, 64, 16),
                (256, 512, 64, 64, 16),
                (512, 256, 128, 128, 16),
                (512, 512, 64, 128, 16),
                (1024, 512, 64, 256, 16),
            ]
            for d in ("float16", "bfloat16")
        ],
        "edge": [
            {"shape": [42, 512, 64, 8, 16], "dtype": "float32", "padded": 4},
            {"shape": [11, 512, 64, 4, 16], "dtype": "bfloat16", "kv_cache_dtype": "fp8", "scale": 0.5},
        ],
        "perf": [{"shape": [8192, 512, 64, 4096, 64], "dtype": "bfloat16"}],
    },
    fidelity=(
        "vLLM csrc/cache_kernels.cu concat_and_cache_mla (entry = kv_c then k_pe, slot -1 skipped) and "
        "test_cache.py::test_concat_and_cache_mla. Upstream grid (18); exact. FP8 e4m3fn max 448 in edge. "
        "The cache starts with stale random entries; cost counts the written slots, not the cache's capacity."
    ),
    returns=False,
    mutates=("kv_cache",),
    checkers=(exact,),
    cost=_cache_write_cost(("kv_c", "k_pe"), "kv_cache"),
)


# ---------------------------------------------------------------- copy_blocks / copy_blocks_mla


def copy_blocks(key_caches: list, value_caches: list, block_mapping: torch.Tensor) -> None:
    src, dst = block_mapping[:, 0].long(), block_mapping[:, 1].long()
    for cache in [*key_caches, *value_caches]:
        cache[dst.to(cache.device)] = cache[src.to(cache.device)]


def copy_blocks_mla(kv_caches: list, block_mapping: torch.Tensor) -> None:
    src, dst = block_mapping[:, 0].long(), block_mapping[:, 1].long()
    for cache in kv_caches:
        cache[dst.to(cache.device)] = cache[src.to(cache.device)]


def _disjoint_mapping(rng: Rng, num_blocks: int, pairs: int, device: torch.device | str) -> torch.Tensor:
    """[pairs, 2] int64 (src, dst) with every block used at most once (vLLM's kernels race otherwise)."""
    perm = rng.randperm(num_blocks)
    return torch.stack([perm[:pairs], perm[pairs : 2 * pairs]], dim=1).to(torch.int64).to(device)


def _block_copy_cost(*cache_lists: str) -> Callable[[dict[str, Any], dict[str, Any]], Cost]:
    """Least traffic of whole-block copies: the mapping, and per mapped pair one block read and one block
    written in every cache. Not the caches' capacity: blocks outside the mapping are not touched."""

    def cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
        mapping = inputs["block_mapping"]
        caches = [cache for name in cache_lists for cache in inputs[name]]
        block_bytes = sum(cache.numel() // cache.shape[0] * cache.element_size() for cache in caches)
        return Cost(
            flops=0.0,
            bytes=float(mapping.numel() * mapping.element_size() + 2 * mapping.shape[0] * block_bytes),
            dtype=str(caches[0].dtype).removeprefix("torch."),
        )

    return cost


def _copy_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    num_blocks, heads, head_size, block_size, pairs = case["config"]
    layers, dtype = case.get("num_layers", 1), case.get("dtype", "float16")
    x = 16 // torch.empty(0, dtype=dt(dtype)).element_size()
    return {
        "key_caches": [rng.randn((num_blocks, heads, head_size // x, block_size, x), dtype) for _ in range(layers)],
        "value_caches": [rng.randn((num_blocks, heads, head_size, block_size), dtype) for _ in range(layers)],
        "block_mapping": _disjoint_mapping(rng, num_blocks, pairs, rng.device),
    }


UPSTREAM_COPY = [
    (8, 4, 64, 16, 2),
    (32, 8, 128, 16, 4),
    (64, 4, 64, 32, 8),
    (64, 8, 128, 32, 8),
    (64, 16, 128, 32, 16),
    (128, 8, 64, 32, 8),
    (128, 16, 128, 32, 16),
    (128, 8, 128, 32, 16),
    (16, 8, 64, 16, 4),
    (256, 16, 128, 64, 16),
    (256, 32, 256, 64, 32),
    (512, 16, 128, 32, 16),
]

COPY_BLOCKS = vllm_spec(
    name="copy_blocks",
    category="cache",
    description=(
        "For every layer's key and value cache (lists of tensors whose first dimension is the block index) copy "
        "block block_mapping[i, 0] onto block block_mapping[i, 1] (block_mapping [n, 2] int64). Sources and "
        "destinations are disjoint."
    ),
    reference_impl=copy_blocks,
    make_inputs=_copy_inputs,
    cases={
        "smoke": [{"config": [6, 2, 16, 4, 2], "num_layers": 2}, {"config": [5, 1, 32, 8, 2], "dtype": "bfloat16"}],
        "full": [{"config": list(c)} for c in UPSTREAM_COPY],
        "edge": [
            {"config": [9, 3, 80, 16, 4], "num_layers": 3, "dtype": "float32"},
            {"config": [4, 2, 64, 16, 0], "num_layers": 1},
        ],
        "perf": [{"config": [1024, 8, 128, 16, 256], "num_layers": 8, "dtype": "bfloat16"}],
    },
    fidelity=(
        "vLLM (v0) csrc/cache_kernels.cu copy_blocks: per layer, whole-block copies (numel of one block) for key "
        "and value caches. Upstream configs (12, one fp16 layer, [NB, H, D, BS] caches); we use vLLM's real "
        "key [NB, H, D/x, BS, x] / value [NB, H, D, BS] layouts (same bytes per block). Exact."
    ),
    returns=False,
    mutates=("key_caches", "value_caches"),
    checkers=(exact,),
    cost=_block_copy_cost("key_caches", "value_caches"),
)


def _copy_mla_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    num_blocks, block_size, kv_dim, pairs = case["config"]
    layers, dtype = case.get("num_layers", 1), case.get("dtype", "float16")
    return {
        "kv_caches": [rng.randn((num_blocks, block_size, kv_dim), dtype) for _ in range(layers)],
        "block_mapping": _disjoint_mapping(rng, num_blocks, pairs, rng.device),
    }


COPY_BLOCKS_MLA = vllm_spec(
    name="copy_blocks_mla",
    category="cache",
    description=(
        "For every MLA cache in kv_caches ([NB, BS, kv_lora_rank + rope_dim] each) copy block block_mapping[i, 0] "
        "onto block block_mapping[i, 1]; sources and destinations are disjoint."
    ),
    reference_impl=copy_blocks_mla,
    make_inputs=_copy_mla_inputs,
    cases={
        "smoke": [{"config": [6, 4, 72, 2], "num_layers": 2}, {"config": [5, 2, 576, 2], "dtype": "bfloat16"}],
        "full": [
            {"config": list(c)}
            for c in [
                (8, 16, 576, 2),
                (32, 16, 576, 4),
                (64, 16, 576, 8),
                (64, 32, 576, 8),
                (64, 64, 576, 16),
                (128, 16, 576, 8),
                (128, 16, 576, 16),
                (128, 32, 576, 16),
                (16, 32, 576, 4),
                (256, 32, 576, 16),
                (256, 64, 576, 32),
                (512, 32, 576, 16),
            ]
        ],
        "edge": [{"config": [7, 3, 9, 3], "num_layers": 3, "dtype": "float32"}],
        "perf": [{"config": [2048, 64, 576, 512], "num_layers": 8, "dtype": "bfloat16"}],
    },
    fidelity="vLLM csrc/cache_kernels.cu copy_blocks_mla (whole-block copies per layer); upstream configs (12); exact.",
    returns=False,
    mutates=("kv_caches",),
    checkers=(exact,),
    cost=_block_copy_cost("kv_caches"),
)


# ---------------------------------------------------------------- swap_blocks


def swap_blocks(src: torch.Tensor, dst: torch.Tensor, block_mapping: torch.Tensor) -> None:
    # one indexed copy, not a copy per mapping row (thousands of launches at perf size); the mapping's
    # destinations are distinct, so the order of the row copies does not matter
    mapping = block_mapping.to(device=src.device, dtype=torch.long)
    dst[mapping[:, 1].to(dst.device)] = src[mapping[:, 0]].to(dst.device)


def _swap_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    """Per mapping row one block (src.stride(0) elements) read from src and written to dst; the mapping
    lives on the host (vLLM requires it there), so it moves no device memory. Not the caches' capacity."""
    src = inputs["src"]
    block_bytes = src.stride(0) * src.element_size()
    return Cost(
        flops=0.0,
        bytes=float(2 * inputs["block_mapping"].shape[0] * block_bytes),
        dtype=str(src.dtype).removeprefix("torch."),
    )


def _swap_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    n = case["num_blocks"]
    h, w = case["block_shape"]
    kind = case["mapping_kind"]
    if kind == "identity":
        src_idx = dst_idx = torch.arange(n)
    elif kind == "reverse":
        src_idx, dst_idx = torch.arange(n), torch.arange(n - 1, -1, -1)
    else:
        k = max(1, n // 2)
        src_idx, dst_idx = rng.randperm(n)[:k].cpu(), rng.randperm(n)[:k].cpu()
    # vLLM requires block_mapping on the CPU whatever the cache device
    mapping = torch.stack([src_idx, dst_idx], dim=1).to(device="cpu", dtype=torch.int64)
    return {
        "src": rng.randn((n, h, w), case["dtype"]),
        "dst": rng.randn((n, h, w), case["dtype"]),
        "block_mapping": mapping,
    }


SWAP_BLOCKS = vllm_spec(
    name="swap_blocks",
    category="cache",
    description=(
        "Copy whole blocks between two caches: dst[block_mapping[i, 1]] = src[block_mapping[i, 0]] for every row "
        "of block_mapping ([n, 2] int64, on the CPU); a block is src.stride(0) elements."
    ),
    reference_impl=swap_blocks,
    make_inputs=_swap_inputs,
    cases={
        "smoke": [
            {"num_blocks": 4, "block_shape": [4, 8], "dtype": "float16", "mapping_kind": "reverse"},
            {"num_blocks": 6, "block_shape": [2, 16], "dtype": "bfloat16", "mapping_kind": "random_subset"},
        ],
        "full": [
            {"num_blocks": n, "block_shape": list(b), "dtype": d, "mapping_kind": m}
            for n in (1, 32, 512)
            for b in ((16, 64), (32, 128), (64, 256))
            for d in ("float16", "bfloat16")
            for m in ("identity", "reverse", "random_subset")
        ],
        "edge": [{"num_blocks": 3, "block_shape": [1, 7], "dtype": "float32", "mapping_kind": "reverse"}],
        "perf": [{"num_blocks": 2048, "block_shape": [16, 1024], "dtype": "bfloat16", "mapping_kind": "random_subset"}],
    },
    fidelity=(
        "vLLM 0.13 csrc/cache_kernels.cu swap_blocks(src, dst, block_mapping): per mapping row a memcpy of "
        "element_size * src.stride(0) bytes. Upstream grid (54); exact. Device-to-device only here."
    ),
    returns=False,
    mutates=("dst",),
    checkers=(exact,),
    cost=_swap_cost,
)


# ---------------------------------------------------------------- gathers


def _table_entries(lengths: list[int], block_size: int, starts: list[int] | None = None) -> int:
    """Block-table entries that sequences of these lengths use (a sequence starting at position s of
    its blocks spans the blocks of positions s .. s + length - 1)."""
    firsts = starts if starts is not None else [0] * len(lengths)
    return sum((s + n - 1) // block_size - s // block_size + 1 for s, n in zip(firsts, lengths, strict=True) if n > 0)


def _gather_rows(
    block_table: torch.Tensor, cu_seq_lens: torch.Tensor, batch: int, block_size: int, seq_starts: torch.Tensor | None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(dst row, cache block, in-block offset) for every token of the first `batch` sequences, all
    sequences at once (no per-sequence launches or host reads)."""
    device = block_table.device
    cu = cu_seq_lens.to(device).long()[: batch + 1]
    lengths = cu[1:] - cu[:-1]
    seq = torch.repeat_interleave(torch.arange(batch, device=device), lengths)
    rows = cu[0] + torch.arange(seq.numel(), device=device)
    pos = rows - cu[seq]
    block_col = pos // block_size
    if seq_starts is not None:
        block_col = block_col + seq_starts.to(device).long()[seq] // block_size
    return rows, block_table.long()[seq, block_col], pos % block_size


def cp_gather_cache(
    src_cache: torch.Tensor,
    dst: torch.Tensor,
    block_table: torch.Tensor,
    cu_seq_lens: torch.Tensor,
    batch_size: int,
    seq_starts: torch.Tensor | None = None,
) -> None:
    rows, blocks, offsets = _gather_rows(block_table, cu_seq_lens, batch_size, src_cache.shape[1], seq_starts)
    dst[rows] = src_cache[blocks, offsets]


def _seq_layout(
    rng: Rng, batch: int, blocks_per_seq: int, block_size: int, num_blocks: int, full: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """A block table [batch, blocks_per_seq] (distinct blocks) and cu_seq_lens [batch+1] int32."""
    table = rng.randperm(num_blocks)[: batch * blocks_per_seq]
    if table.numel() < batch * blocks_per_seq:  # more table entries than blocks: reuse blocks (reads only)
        table = rng.randint(0, num_blocks, (batch * blocks_per_seq,))
    cap = blocks_per_seq * block_size
    lens = torch.full((batch,), cap) if full else rng.randint(1, cap + 1, (batch,)).cpu()
    cu = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lens.cpu(), 0)])
    return table.reshape(batch, blocks_per_seq).to(torch.int32), cu.to(torch.int32).to(rng.device)


def _cp_gather_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    """Least traffic: per gathered token its cache entry read and its dst row written, the block-table
    entries the sequences use, cu_seq_lens (and seq_starts). Not the cache's capacity: blocks no sequence
    uses are not read. seq_starts shifts a sequence by whole blocks, so its blocks start at offset 0."""
    src, dst, cu, batch = inputs["src_cache"], inputs["dst"], inputs["cu_seq_lens"], inputs["batch_size"]
    bounds = cu[: batch + 1].tolist()
    lengths = [bounds[b + 1] - bounds[b] for b in range(batch)]
    starts = inputs["seq_starts"]
    index_bytes = (batch + 1) * cu.element_size() + (batch * starts.element_size() if starts is not None else 0)
    table_bytes = _table_entries(lengths, src.shape[1]) * inputs["block_table"].element_size()
    entry_bytes = src[0, 0].numel() * (src.element_size() + dst.element_size())
    return Cost(
        flops=0.0,
        bytes=float(sum(lengths) * entry_bytes + table_bytes + index_bytes),
        dtype=str(src.dtype).removeprefix("torch."),
    )


def _cp_gather_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    num_blocks, block_size, heads, head_size, batch = case["config"]
    dtype = case.get("dtype", "float16")
    table, cu = _seq_layout(rng, batch, 2, block_size, num_blocks, case.get("full_blocks", True))
    total = int(cu[-1])
    return {
        "src_cache": rng.randn((num_blocks, block_size, heads, head_size), dtype),
        "dst": torch.full((total, heads, head_size), float("nan"), dtype=dt(dtype), device=rng.device),
        "block_table": table,
        "cu_seq_lens": cu,
        "batch_size": batch,
        "seq_starts": None,
    }


CP_GATHER_CACHE = vllm_spec(
    name="cp_gather_cache",
    category="cache",
    description=(
        "Gather the cached entries of each sequence into a contiguous buffer: for batch b and token i < "
        "cu_seq_lens[b+1] - cu_seq_lens[b]: dst[cu_seq_lens[b] + i] = src_cache[block_table[b, i // BS], i % BS] "
        "(src_cache [NB, BS, ...], dst [total, ...]); seq_starts (optional) shifts the block-table start by "
        "seq_starts[b] // BS blocks."
    ),
    reference_impl=cp_gather_cache,
    make_inputs=_cp_gather_inputs,
    cases={
        "smoke": [{"config": [8, 4, 2, 16, 2]}, {"config": [6, 8, 1, 32, 3], "full_blocks": False}],
        "full": [
            {"config": list(c)}
            for c in [
                (8, 16, 4, 64, 2),
                (16, 16, 8, 128, 2),
                (32, 32, 4, 64, 4),
                (16, 32, 8, 64, 2),
                (32, 16, 4, 128, 4),
                (64, 16, 4, 64, 4),
                (64, 32, 8, 128, 4),
                (128, 32, 8, 256, 8),
            ]
        ],
        "edge": [{"config": [9, 16, 1, 576, 3], "full_blocks": False, "dtype": "bfloat16"}],
        "perf": [{"config": [4096, 64, 1, 576, 64], "dtype": "bfloat16"}],
    },
    fidelity=(
        "vLLM csrc/cache_kernels.cu cp_gather_cache (per-batch walk of the block table, cu_seq_lens offsets) and "
        "test_cache.py::test_cp_gather_cache. Upstream configs (8, full blocks); edge adds partial last blocks. "
        "Exact."
    ),
    returns=False,
    mutates=("dst",),
    checkers=(exact,),
    cost=_cp_gather_cost,
)


def gather_and_maybe_dequant_cache(
    src_cache: torch.Tensor,
    dst: torch.Tensor,
    block_table: torch.Tensor,
    cu_seq_lens: torch.Tensor,
    token_to_seq: torch.Tensor,
    num_tokens: int,
    kv_cache_dtype: str,
    scale: torch.Tensor,
    seq_starts: torch.Tensor | None = None,
) -> None:
    block_size = src_cache.shape[1]
    t = torch.arange(num_tokens, device=dst.device)
    seq = token_to_seq.long()[:num_tokens]
    pos = t - cu_seq_lens.long()[seq]
    if seq_starts is not None:
        pos = pos + seq_starts.long()[seq]
    blocks = block_table.long()[seq, pos // block_size]
    entries = src_cache[blocks, pos % block_size]
    if kv_cache_dtype.startswith("fp8"):
        dst[:num_tokens] = (entries.view(FP8).float() * scale.float().reshape(())).to(dst.dtype)
    else:
        dst[:num_tokens] = entries.to(dst.dtype)


def _gather_dequant_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    """Least traffic: per token t < num_tokens its token_to_seq entry and cache entry read and its dst row
    written, the block-table entries the sequences use, cu_seq_lens, seq_starts when given and the scale
    when dequantising. Not the cache's capacity: blocks no sequence uses are not read."""
    src, dst, cu, tokens = inputs["src_cache"], inputs["dst"], inputs["cu_seq_lens"], inputs["num_tokens"]
    token_to_seq, starts = inputs["token_to_seq"], inputs["seq_starts"]
    lengths = torch.bincount(token_to_seq[:tokens].long(), minlength=cu.numel() - 1).tolist()
    first_positions = starts.tolist() if starts is not None else None
    table_bytes = _table_entries(lengths, src.shape[1], first_positions) * inputs["block_table"].element_size()
    index_bytes = tokens * token_to_seq.element_size() + cu.numel() * cu.element_size()
    if starts is not None:
        index_bytes += starts.numel() * starts.element_size()
    if inputs["kv_cache_dtype"].startswith("fp8"):
        index_bytes += inputs["scale"].element_size()
    entry_bytes = src[0, 0].numel() * (src.element_size() + dst.element_size())
    return Cost(
        flops=0.0,
        bytes=float(tokens * entry_bytes + table_bytes + index_bytes),
        dtype=str(dst.dtype).removeprefix("torch."),
    )


def _gather_dequant_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    num_blocks, block_size, entry, batch = case["config"]
    dtype = case.get("dtype", "float16")
    table, cu = _seq_layout(rng, batch, 2, block_size, num_blocks, case.get("full_blocks", True))
    total = int(cu[-1])
    lens = (cu[1:] - cu[:-1]).long()
    token_to_seq = torch.repeat_interleave(torch.arange(batch, device=rng.device), lens).to(torch.int32)
    fp8 = case.get("kv_cache_dtype", "auto").startswith("fp8")
    src = rng.randn((num_blocks, block_size, entry), dtype)
    if fp8:
        src = _to_fp8_bytes(src, 1.0)
    return {
        "src_cache": src,
        "dst": torch.full((total, entry), float("nan"), dtype=dt(dtype), device=rng.device),
        "block_table": table,
        "cu_seq_lens": cu,
        "token_to_seq": token_to_seq,
        "num_tokens": total,
        "kv_cache_dtype": case.get("kv_cache_dtype", "auto"),
        "scale": torch.tensor([case.get("scale", 1.0)], dtype=torch.float32, device=rng.device),
        "seq_starts": None,
    }


GATHER_AND_MAYBE_DEQUANT_CACHE = vllm_spec(
    name="gather_and_maybe_dequant_cache",
    category="cache",
    description=(
        "Token-parallel MLA cache gather: for token t < num_tokens with b = token_to_seq[t] and position "
        "p = t - cu_seq_lens[b] (+ seq_starts[b] when given): dst[t] = src_cache[block_table[b, p // BS], p % BS], "
        "dequantised as fp8_e4m3fn * scale when kv_cache_dtype is 'fp8' (src_cache [NB, BS, entry])."
    ),
    reference_impl=gather_and_maybe_dequant_cache,
    make_inputs=_gather_dequant_inputs,
    cases={
        "smoke": [{"config": [8, 4, 40, 2]}, {"config": [6, 8, 24, 3], "full_blocks": False, "dtype": "bfloat16"}],
        "full": [
            {"config": [c[0], c[1], 576, c[4]]}
            for c in [
                (4, 16, 1, 576, 2),
                (8, 16, 1, 576, 2),
                (8, 32, 1, 576, 4),
                (16, 16, 1, 576, 4),
                (32, 32, 1, 576, 4),
                (32, 64, 1, 576, 4),
                (64, 32, 1, 576, 4),
                (64, 32, 1, 576, 8),
                (64, 64, 1, 576, 4),
                (64, 64, 1, 576, 8),
                (128, 32, 1, 576, 4),
                (128, 64, 1, 576, 4),
                (128, 64, 1, 576, 8),
            ]
        ],
        "edge": [
            {
                "config": [9, 16, 576, 3],
                "full_blocks": False,
                "dtype": "bfloat16",
                "kv_cache_dtype": "fp8",
                "scale": 0.5,
            }
        ],
        "perf": [{"config": [4096, 64, 576, 64], "dtype": "bfloat16"}],
    },
    fidelity=(
        "vLLM 0.13 gather_and_maybe_dequant_cache (token_to_seq / num_tokens signature; fp8 dequant = value * "
        "scale). Upstream configs (13) with vLLM's 3-D MLA cache [NB, BS, 576] (upstream passes 4-D [NB, BS, 1, "
        "576]). Exact for 'auto'; fp8 (e4m3fn) edge case is exact too (one multiply, one rounding)."
    ),
    returns=False,
    mutates=("dst",),
    checkers=(exact,),
    cost=_gather_dequant_cost,
)


def cp_gather_indexer_k_quant_cache(
    kv_cache: torch.Tensor,
    dst_k: torch.Tensor,
    dst_scale: torch.Tensor,
    block_table: torch.Tensor,
    cu_seq_lens: torch.Tensor,
) -> None:
    num_blocks, block_size, stride = kv_cache.shape
    head_dim = dst_k.shape[1]
    scale_bytes = stride - head_dim
    raw = kv_cache.reshape(num_blocks, block_size * stride)
    values = raw[:, : block_size * head_dim].reshape(num_blocks, block_size, head_dim)
    scales = raw[:, block_size * head_dim :].reshape(num_blocks, block_size, scale_bytes)
    batch = cu_seq_lens.numel() - 1
    rows, blocks, offsets = _gather_rows(block_table, cu_seq_lens, batch, block_size, None)
    dst_k.view(torch.uint8)[rows] = values[blocks, offsets]
    dst_scale.view(torch.uint8).reshape(dst_scale.shape[0], -1)[rows] = scales[blocks, offsets]


def _indexer_gather_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    """Least traffic: per gathered token its key bytes and scale bytes read from the cache (one cache row's
    worth) and written to dst_k and dst_scale, the block-table entries the sequences use and cu_seq_lens.
    Not the cache's capacity: blocks no sequence uses are not read."""
    kv_cache, cu = inputs["kv_cache"], inputs["cu_seq_lens"]
    bounds = cu.tolist()
    lengths = [bounds[b + 1] - bounds[b] for b in range(len(bounds) - 1)]
    table_bytes = _table_entries(lengths, kv_cache.shape[1]) * inputs["block_table"].element_size()
    read = kv_cache.shape[2] * kv_cache.element_size()
    written = sum(inputs[name].shape[1] * inputs[name].element_size() for name in ("dst_k", "dst_scale"))
    return Cost(
        flops=0.0,
        bytes=float(sum(lengths) * (read + written) + table_bytes + cu.numel() * cu.element_size()),
        dtype="uint8",
    )


def _indexer_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    num_blocks, block_size, head_dim, batch = case["config"]
    qbs = case.get("quant_block_size", 128)
    groups = head_dim // qbs
    # a realistic cache: keys quantised per (token, group) to e4m3fn with scale = amax / 448, fp32 scales
    # stored after the block's values, exactly as vLLM's indexer_k_quant_and_cache writes them
    keys = rng.randn((num_blocks, block_size, groups, qbs), "float32")
    scales = keys.abs().amax(dim=-1, keepdim=True).clamp_min(1e-4) / FP8_MAX
    values = _to_fp8_bytes(keys, scales).reshape(num_blocks, block_size * head_dim)
    scale_bytes = scales.reshape(num_blocks, block_size * groups).contiguous().view(torch.uint8)
    kv_cache = torch.cat([values, scale_bytes], dim=1).reshape(num_blocks, block_size, head_dim + 4 * groups)
    table, cu = _seq_layout(rng, batch, 2, block_size, num_blocks, case.get("full_blocks", True))
    total = int(cu[-1])
    return {
        "kv_cache": kv_cache,
        "dst_k": torch.zeros((total, head_dim), dtype=torch.uint8, device=rng.device),
        "dst_scale": torch.zeros((total, 4 * groups), dtype=torch.uint8, device=rng.device),
        "block_table": table,
        "cu_seq_lens": cu,
    }


CP_GATHER_INDEXER_K_QUANT_CACHE = vllm_spec(
    name="cp_gather_indexer_k_quant_cache",
    category="cache",
    description=(
        "DeepSeek-V3.2 indexer cache gather. kv_cache is uint8 [NB, BS, head_dim + 4*head_dim/128]: each block "
        "holds BS*head_dim fp8 key bytes (token-major) followed by BS*(head_dim/128) fp32 scales. For every token "
        "of every sequence (cu_seq_lens, block_table as in cp_gather_cache) copy its head_dim key bytes to "
        "dst_k[t] and its scale bytes to dst_scale[t] (uint8 [T, 4*head_dim/128])."
    ),
    reference_impl=cp_gather_indexer_k_quant_cache,
    make_inputs=_indexer_inputs,
    cases={
        "smoke": [{"config": [4, 4, 128, 2]}, {"config": [5, 8, 256, 2], "full_blocks": False}],
        "full": [
            {"config": [c[0], c[1], 128 * max(1, c[3] // 128), c[4]]}
            for c in [
                (4, 16, 4, 64, 2),
                (8, 16, 8, 128, 2),
                (8, 32, 4, 64, 4),
                (16, 16, 8, 64, 2),
                (16, 16, 4, 64, 4),
                (16, 32, 4, 128, 4),
                (32, 16, 4, 64, 4),
                (32, 32, 8, 128, 4),
                (32, 64, 4, 128, 4),
                (64, 32, 8, 128, 4),
                (64, 64, 8, 256, 4),
                (64, 64, 8, 256, 8),
                (128, 64, 8, 256, 8),
            ]
        ],
        "edge": [{"config": [7, 64, 128, 3], "full_blocks": False}],
        "perf": [{"config": [8192, 64, 128, 64]}],
    },
    fidelity=(
        "vLLM csrc/cache_kernels.cu cp_gather_indexer_k_quant_cache_kernel: value bytes at block*stride_block + "
        "(i % BS)*head_dim, scales at block start + BS*head_dim + (i % BS)*head_dim*4/quant_block_size, "
        "quant_block_size 128. Upstream's test passes an fp16 [NB, BS, H, D] cache (not the op's byte layout); "
        "we build the real layout with upstream's block/batch sizes (13 configs, head_dim 128/256). Exact."
    ),
    returns=False,
    mutates=("dst_k", "dst_scale"),
    checkers=(exact, exact),
    cost=_indexer_gather_cost,
)


# ---------------------------------------------------------------- convert_fp8


def convert_fp8(output: torch.Tensor, input: torch.Tensor, scale: float = 1.0, kv_dtype: str = "fp8") -> None:
    if input.dtype == torch.uint8:
        output.copy_((input.view(FP8).float() * scale).to(output.dtype))
    else:
        output.copy_(_to_fp8_bytes(input, scale))


def _convert_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    shape = tuple(case["input"])
    dtype = dt(case["dtype"])
    if case.get("direction", "to_fp8") == "from_fp8":
        src = _to_fp8_bytes(rng.randn(shape, "float32", scale=4.0), 1.0)
        out = torch.full(shape, float("nan"), dtype=dtype, device=rng.device)
    else:
        src = rng.randn(shape, dtype, scale=case.get("spread", 1.0))
        out = torch.zeros(shape, dtype=torch.uint8, device=rng.device)
    return {"output": out, "input": src, "scale": case["scale"], "kv_dtype": case["kv_dtype"]}


CONVERT_FP8 = vllm_spec(
    name="convert_fp8",
    category="quantization",
    description=(
        "Convert between a float cache and an fp8 (e4m3fn) cache stored as uint8: float input -> output bytes of "
        "e4m3fn(clamp(input / scale, +-448)) (round to nearest even, saturating); uint8 input -> output = "
        "e4m3fn value * scale in the output dtype."
    ),
    reference_impl=convert_fp8,
    make_inputs=_convert_inputs,
    cases={
        "smoke": [
            {"input": [3, 32], "scale": 0.5, "kv_dtype": "fp8", "dtype": "float16"},
            {"input": [2, 48], "scale": 1.0, "kv_dtype": "fp8_e4m3", "dtype": "bfloat16", "spread": 300.0},
        ],
        "full": [
            {"input": list(s), "scale": sc, "kv_dtype": k, "dtype": d}
            for s in ((1, 32), (128, 512), (1024, 4096), (5333, 8192))
            for sc in (0.5, 1.0)
            for k in ("fp8", "fp8_e4m3")
            for d in ("float16", "bfloat16")
        ],
        "edge": [
            {"input": [7, 33], "scale": 0.25, "kv_dtype": "fp8", "dtype": "float32", "spread": 200.0},
            {"input": [5, 64], "scale": 2.0, "kv_dtype": "fp8", "dtype": "bfloat16", "direction": "from_fp8"},
        ],
        "perf": [{"input": [16384, 8192], "scale": 0.5, "kv_dtype": "fp8", "dtype": "bfloat16"}],
    },
    fidelity=(
        "vLLM csrc/cache_kernels.cu convert_fp8 with fp8::scaled_convert (x / scale, __nv_cvt_float_to_fp8 "
        "with __NV_SATFINITE, e4m3); torch's e4m3fn cast after a clamp to +-448 rounds identically. Upstream grid "
        "(32); exact bytes, as upstream. FP8 variant: e4m3fn, max 448."
    ),
    returns=False,
    mutates=("output",),
    checkers=(exact,),
    cost=bytes_cost(),
)

SPECS = [
    RESHAPE_AND_CACHE,
    RESHAPE_AND_CACHE_FLASH,
    CONCAT_AND_CACHE_MLA,
    COPY_BLOCKS,
    COPY_BLOCKS_MLA,
    SWAP_BLOCKS,
    CP_GATHER_CACHE,
    GATHER_AND_MAYBE_DEQUANT_CACHE,
    CP_GATHER_INDEXER_K_QUANT_CACHE,
    CONVERT_FP8,
]
