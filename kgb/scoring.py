"""Pass@k, tokens and cost of a run, per operator source. Pure Python.

Two protocols, two definitions of pass@k:
- rounds (upstream's LLM track): round r regenerates only the operators not yet passed; pass@k is the
  share of the run's operators that passed in one of the first k rounds (cumulative).
- samples: n independent samples per operator; pass@k is the unbiased estimator
  1 - C(n-c, k)/C(n, k) (Chen et al. 2021), averaged over operators, for k <= n.

Cost = (prompt - cached) x input price + cached x cached-input price + completion x output price, prices
in USD per million tokens (the site's formula; completion includes reasoning tokens as billed).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from typing import Any

TOKEN_FIELDS = ("prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens")


@dataclasses.dataclass(frozen=True)
class Prices:
    input_per_mtok: float
    output_per_mtok: float
    cached_input_per_mtok: float | None = None

    def cost(self, usage: dict[str, int]) -> float:
        prompt, cached = usage.get("prompt_tokens", 0), usage.get("cached_tokens", 0)
        cached_price = self.input_per_mtok if self.cached_input_per_mtok is None else self.cached_input_per_mtok
        return (
            (prompt - cached) * self.input_per_mtok
            + cached * cached_price
            + usage.get("completion_tokens", 0) * self.output_per_mtok
        ) / 1e6

    def record(self) -> dict[str, float | None]:
        return dataclasses.asdict(self)


def pass_at_k_unbiased(n: int, c: int, k: int) -> float:
    if n < 0 or c < 0 or c > n or k < 1:
        raise ValueError(f"invalid pass@k arguments n={n} c={c} k={k}")
    if n == 0:
        return 0.0
    if n < k:
        return 1.0 if c else 0.0
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_at_k_rounds(first_pass: Iterable[int | None], k: int, total: int) -> float:
    """Share of `total` operators whose first passing round (0-based) is below k."""
    if total <= 0:
        return 0.0
    return sum(1 for r in first_pass if r is not None and r < k) / total


@dataclasses.dataclass
class OperatorOutcome:
    operator: str
    verdicts: list[str | None]  # per sample index; None: generated, not yet verified
    usage: dict[str, int]
    cost_usd: float
    request_s: float

    @property
    def first_pass(self) -> int | None:
        for index, verdict in enumerate(self.verdicts):
            if verdict == "correct":
                return index
        return None


def summarize(outcomes: list[OperatorOutcome], *, operators: list[str], mode: str, k_max: int) -> dict[str, Any]:
    """The summary document: overall and per source (aten, vllm13, cublas)."""
    by_id = {o.operator: o for o in outcomes}
    groups: dict[str, list[str]] = {"all": list(operators)}
    for op in operators:
        groups.setdefault(op.split("::", 1)[0], []).append(op)
    summary: dict[str, Any] = {"mode": mode, "k_max": k_max, "sets": {}}
    for name, ops in groups.items():
        present = [by_id[op] for op in ops if op in by_id]
        usage = {f: sum(o.usage.get(f, 0) for o in present) for f in TOKEN_FIELDS}
        passed = [o for o in present if o.first_pass is not None]
        samples = sum(len(o.verdicts) for o in present)
        pass_at: dict[str, float] = {}
        for k in range(1, k_max + 1):
            if mode == "rounds":
                pass_at[str(k)] = pass_at_k_rounds((o.first_pass for o in present), k, len(ops))
            else:
                values = []
                for op in ops:
                    o = by_id.get(op)
                    judged = [v for v in (o.verdicts if o else []) if v is not None]
                    values.append(pass_at_k_unbiased(len(judged), judged.count("correct"), k) if judged else 0.0)
                pass_at[str(k)] = sum(values) / len(values) if values else 0.0
        total_tokens = usage["prompt_tokens"] + usage["completion_tokens"]
        summary["sets"][name] = {
            "operators": len(ops),
            "attempted": len(present),
            "passed": len(passed),
            "accuracy": len(passed) / len(ops) if ops else 0.0,
            "samples": samples,
            "pass_at": pass_at,
            **usage,
            "total_tokens": total_tokens,
            "tokens_per_success": total_tokens / len(passed) if passed else None,
            "cost_usd": round(sum(o.cost_usd for o in present), 6),
            "request_s": round(sum(o.request_s for o in present), 3),
        }
    return summary
