"""The summary table printed at the end of `kgb generate` (and by `kgb status`)."""

from __future__ import annotations

from typing import Any


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _int(value: int) -> str:
    return f"{value:,}"


def summary_table(summary: dict[str, Any]) -> Any:
    from rich.table import Table

    k_max = summary.get("k_max", 1)
    shown_k = [k for k in (1, 2, 3, 5, 10) if k <= k_max] or [1]
    if k_max not in shown_k:
        shown_k.append(k_max)
    label = "rounds (cumulative)" if summary.get("mode") == "rounds" else "samples (unbiased)"
    table = Table(title=f"kgb run: pass@k by {label}", title_justify="left")
    table.add_column("set")
    table.add_column("ops", justify="right")
    table.add_column("passed", justify="right")
    for k in shown_k:
        table.add_column(f"pass@{k} %", justify="right")
    for column in ("prompt", "cached", "compl.", "reason.", "tok/success", "cost $"):
        table.add_column(column, justify="right")
    for name, row in summary.get("sets", {}).items():
        table.add_row(
            name,
            str(row["operators"]),
            str(row["passed"]),
            *(_pct(row["pass_at"].get(str(k))) for k in shown_k),
            _int(row["prompt_tokens"]),
            _int(row["cached_tokens"]),
            _int(row["completion_tokens"]),
            _int(row["reasoning_tokens"]),
            "-" if row["tokens_per_success"] is None else f"{row['tokens_per_success']:,.0f}",
            f"{row['cost_usd']:.4f}",
        )
    return table


def print_summary(console: Any, summary: dict[str, Any]) -> None:
    console.print(summary_table(summary))
    models = ", ".join(summary.get("models_reported") or []) or "none"
    console.print(
        f"models reported by the server: {models}; verify calls: {summary.get('verify_calls', 0)}; "
        f"retried errors: {summary.get('retries', 0)}; failed requests: {summary.get('api_errors', 0)}",
        markup=False,
        highlight=False,
    )
