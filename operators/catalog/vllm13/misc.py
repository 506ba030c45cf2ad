"""vLLM sampling and state-space ops: apply_repetition_penalties_cuda, selective_scan_fwd."""

from __future__ import annotations

from typing import Any

import torch

from operators.catalog.vllm13._support import UPSTREAM, at_upstream_rule, bytes_cost, close, dt, kept_looser, vllm_spec
from operators.spec import Rng

# ---------------------------------------------------------------- repetition penalties


def apply_repetition_penalties_cuda(
    logits: torch.Tensor, prompt_mask: torch.Tensor, output_mask: torch.Tensor, repetition_penalties: torch.Tensor
) -> None:
    seen = prompt_mask | output_mask
    p = repetition_penalties[:, None].to(logits.dtype)
    penalised = torch.where(logits > 0, logits / p, logits * p)
    logits.copy_(torch.where(seen, penalised, logits))


def _penalty_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    batch, vocab = case["shape"]
    dtype = case.get("dtype", "float32")
    return {
        "logits": rng.randn((batch, vocab), dtype),
        "prompt_mask": rng.bernoulli((batch, vocab), 0.5),
        "output_mask": rng.bernoulli((batch, vocab), 0.5),
        "repetition_penalties": rng.uniform((batch,), 1.0, 2.0, dtype)
        if case.get("varied")
        else torch.full((batch,), 1.1, dtype=dt(dtype), device=rng.device),
    }


APPLY_REPETITION_PENALTIES_CUDA = vllm_spec(
    name="apply_repetition_penalties_cuda",
    category="elementwise",
    description=(
        "In place on logits [S, V]: for every token seen in the prompt or the output (prompt_mask | output_mask, "
        "bool [S, V]) with penalty p = repetition_penalties[s]: logit > 0 -> logit / p, otherwise logit * p; "
        "other logits unchanged."
    ),
    reference_impl=apply_repetition_penalties_cuda,
    make_inputs=_penalty_inputs,
    cases={
        "smoke": [{"shape": [3, 40]}, {"shape": [2, 33], "varied": True}],
        "full": [
            {"shape": list(s)}
            for s in [
                (1, 32),
                (4, 100),
                (128, 512),
                (256, 1024),
                (512, 4096),
                (1024, 32000),
                (2048, 16000),
                (4096, 8000),
                (2048, 32000),
                (4096, 16000),
            ]
        ],
        "edge": [{"shape": [5, 151936], "varied": True}, {"shape": [3, 17], "dtype": "float16", "varied": True}],
        "perf": [{"shape": [1024, 151936], "varied": True}, {"shape": [256, 202048], "varied": True}],
    },
    fidelity=(
        "vLLM _custom_ops.apply_repetition_penalties_torch (the CPU/non-contiguous fallback of the same op) and "
        "tests/kernels/test_apply_repetition_penalties.py. Upstream grid (10, p = 1.1); "
        + at_upstream_rule(12, 12)
        + "."
    ),
    returns=False,
    mutates=("logits",),
    checkers=(UPSTREAM,),
    cost=bytes_cost(lambda c, i: float(i["logits"].numel())),
)


# ---------------------------------------------------------------- selective scan (Mamba-1)


def selective_scan_fwd(
    u: torch.Tensor,
    delta: torch.Tensor,
    A: torch.Tensor,
    B: torch.Tensor,
    C: torch.Tensor,
    D_: torch.Tensor | None,
    z_: torch.Tensor | None,
    delta_bias_: torch.Tensor | None,
    delta_softplus: bool,
    query_start_loc: torch.Tensor | None,
    cache_indices: torch.Tensor | None,
    has_initial_state: torch.Tensor | None,
    ssm_states: torch.Tensor,
    pad_slot_id: int,
    block_size: int = 1024,
    block_idx_first_scheduled_token: torch.Tensor | None = None,
    block_idx_last_scheduled_token: torch.Tensor | None = None,
    initial_state_idx: torch.Tensor | None = None,
) -> None:
    dim, total = u.shape
    device = u.device
    groups = B.shape[0]
    group_of_dim = torch.arange(dim, device=device) // (dim // groups)
    A32 = A.float()
    # the whole of dt at once (elementwise, as the per-token formula)
    dt_all = delta.float()
    if delta_bias_ is not None:
        dt_all = dt_all + delta_bias_.float()[:, None]
    if delta_softplus:
        dt_all = torch.where(dt_all <= 20.0, torch.log1p(torch.exp(dt_all)), dt_all)
    # all sequences advance together, one time step per iteration (the recurrence stays sequential in
    # time): max(seqlen) iterations instead of sum(seqlen), and no host reads inside the loop
    first = query_start_loc.long()[:-1]
    lengths = query_start_loc.long()[1:] - first
    count = first.numel()
    slots = cache_indices.long()[:count] if cache_indices is not None else torch.arange(count, device=device)
    live = slots != pad_slot_id
    safe_slots = torch.where(live, slots, 0)
    h = torch.zeros((count, dim, A.shape[1]), dtype=torch.float32, device=device)
    if has_initial_state is not None:
        h = torch.where(has_initial_state[:count].bool()[:, None, None], ssm_states[safe_slots].float(), h)
    # token-major copies, so a step gathers contiguous rows
    dt_rows, u_rows = dt_all.t().contiguous(), u.float().t().contiguous()  # [total, dim]
    b_rows, c_rows = B.float().permute(2, 0, 1).contiguous(), C.float().permute(2, 0, 1).contiguous()
    # one spare row takes the writes of sequences that are finished (or skipped) at a step
    y_rows = torch.zeros((total + 1, dim), dtype=torch.float32, device=device)
    for step in range(int(lengths.max()) if count else 0):
        active = live & (step < lengths)
        t = torch.where(active, first + step, 0)
        dt_t = dt_rows[t]  # [count, dim]
        b_t = b_rows[t][:, group_of_dim]  # [count, dim, dstate]
        c_t = c_rows[t][:, group_of_dim]
        stepped = torch.exp(dt_t[:, :, None] * A32) * h + (dt_t * u_rows[t])[:, :, None] * b_t
        h = torch.where(active[:, None, None], stepped, h)
        y_rows[torch.where(active, t, total)] = (h * c_t).sum(dim=-1)
    y_all = y_rows[:total].t()
    ssm_states[slots[live]] = h[live].to(ssm_states.dtype)
    if D_ is not None:
        y_all = y_all + D_.float()[:, None] * u.float()
    if z_ is not None:
        z = z_.float()
        z_.copy_((y_all * z * torch.sigmoid(z)).to(z_.dtype))
    delta.copy_(y_all.to(delta.dtype))


def _scan_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    batch, dim, dstate, groups, seqlens = case["ssm_cfg"]
    dtype = case["dtype"]
    total = sum(seqlens)
    opt = case["opt_combo"]
    dev = rng.device
    cu = [0]
    for s in seqlens:
        cu.append(cu[-1] + s)
    has_init = (
        rng.bernoulli((batch,), 0.5) if case["with_initial_state"] else torch.zeros(batch, dtype=torch.bool, device=dev)
    )
    return {
        "u": rng.randn((dim, total), dtype),
        "delta": rng.randn((dim, total), dtype, scale=0.5),
        "A": -rng.uniform((dim, dstate), 0.1, 1.1),
        "B": rng.randn((groups, dstate, total), dtype),
        "C": rng.randn((groups, dstate, total), dtype),
        "D_": rng.randn((dim,), "float32") if opt & 1 else None,
        "z_": rng.randn((dim, total), dtype) if opt & 2 else None,
        "delta_bias_": rng.uniform((dim,), -0.1, 0.1) if opt & 4 else None,
        "delta_softplus": case["delta_softplus"],
        "query_start_loc": torch.tensor(cu, dtype=torch.int32, device=dev),
        "cache_indices": torch.arange(batch, dtype=torch.int32, device=dev),
        "has_initial_state": has_init,
        "ssm_states": rng.randn((batch, dim, dstate), "float32", scale=0.5),
        "pad_slot_id": -1,
        "block_size": 1024,
        "block_idx_first_scheduled_token": None,
        "block_idx_last_scheduled_token": None,
        "initial_state_idx": None,
    }


UPSTREAM_SSM = [
    (1, 16, 8, 1, [1]),
    (2, 32, 16, 1, [3, 5]),
    (4, 64, 16, 1, [7, 3, 12, 1]),
    (2, 128, 32, 2, [16, 32]),
    (3, 256, 16, 4, [64, 32, 48]),
]

SSM_CLOSE = close(5e-2, 3e-2)  # vLLM test_mamba_ssm.py bf16 tolerances (rtol 3e-2, atol 5e-2)

SELECTIVE_SCAN_FWD = vllm_spec(
    name="selective_scan_fwd",
    category="reduction",
    description=(
        "Mamba-1 selective scan over variable-length sequences (query_start_loc [B+1]); channels split evenly into "
        "B.shape[0] groups. Per sequence, state h [dim, dstate] starts from ssm_states[cache_indices[b]] when "
        "has_initial_state[b] else 0; per token: dt = delta (+ delta_bias_), softplus if delta_softplus; "
        "h = exp(dt*A)*h + dt*u*B[:, t]; y = sum_n h*C[:, t] (+ D_*u). y overwrites `delta`; with z_ the gated "
        "y*silu(z) overwrites z_; the final state is written back to ssm_states[cache_indices[b]] (fp32). "
        "Sequences whose cache index equals pad_slot_id are skipped."
    ),
    reference_impl=selective_scan_fwd,
    make_inputs=_scan_inputs,
    cases={
        "smoke": [
            {
                "ssm_cfg": [2, 8, 4, 2, [3, 2]],
                "dtype": "float16",
                "delta_softplus": True,
                "opt_combo": 7,
                "with_initial_state": True,
            },
            {
                "ssm_cfg": [1, 4, 4, 1, [4]],
                "dtype": "bfloat16",
                "delta_softplus": False,
                "opt_combo": 0,
                "with_initial_state": False,
            },
        ],
        "full": [
            {"ssm_cfg": list(cfg), "dtype": d, "delta_softplus": sp, "opt_combo": o, "with_initial_state": w}
            for cfg in UPSTREAM_SSM
            for d in ("float16", "bfloat16")
            for sp in (False, True)
            for o in (0, 1, 3, 7)
            for w in (False, True)
        ],
        "edge": [
            {
                "ssm_cfg": [2, 24, 16, 3, [1, 9]],
                "dtype": "float16",
                "delta_softplus": True,
                "opt_combo": 3,
                "with_initial_state": True,
            }
        ],
        "perf": [
            {
                "ssm_cfg": [4, 2048, 16, 1, [512, 512, 512, 512]],
                "dtype": "bfloat16",
                "delta_softplus": True,
                "opt_combo": 7,
                "with_initial_state": True,
            }
        ],
    },
    fidelity=(
        "vLLM tests/kernels/mamba/test_mamba_ssm.py selective_scan_ref recurrence (softplus with threshold 20, "
        "exp(dt*A) decay, D skip, silu(z) gate) applied per varlen sequence with initial/final states as "
        "csrc/mamba/mamba_ssm/selective_scan_fwd.cu does. Upstream grid (160). Outputs (delta, z_) rtol 3e-2 "
        "atol 5e-2, states the same (vLLM's bf16 tolerances), "
        + kept_looser(
            "the reference on the GPU against itself on the host on 10 of 320 full case-seeds (ssm_states: 1 of "
            "12288 elements outside atol 1e-4, rtol 1e-5 at fp32)"
        )
        + "."
    ),
    returns=False,
    mutates=("delta", "z_", "ssm_states"),
    checkers=(SSM_CLOSE, SSM_CLOSE, SSM_CLOSE),
    cost=bytes_cost(lambda c, i: 9.0 * i["u"].numel() * i["A"].shape[1]),
)

SPECS = [APPLY_REPETITION_PENALTIES_CUDA, SELECTIVE_SCAN_FWD]
