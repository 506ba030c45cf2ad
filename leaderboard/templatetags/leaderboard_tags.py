"""Number formatting for the tables (one place, so every table and the home page agree)."""

from __future__ import annotations

from django import template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe

from evaluator.services import is_ranked_protocol, timing_protocol
from leaderboard.metrics import held_out_label

register = template.Library()


def _tokens(value: float) -> str:
    if value >= 1e9:
        return f"{value / 1e9:.2f} B"
    if value >= 1e6:
        return f"{value / 1e6:.2f} M"
    if value >= 1e3:
        return f"{value / 1e3:.1f} k"
    return f"{value:.0f}"


@register.filter
def fmt(value, kind: str) -> str:
    """Format a metric by its column kind; missing values show as an en dash."""
    if value is None or value == "":
        return "–"
    if kind == "pct":
        return f"{value:.1f}%"
    if kind == "ratio":
        return f"{value:.2f}×"
    if kind == "tokens":
        return _tokens(float(value))
    if kind == "usd":
        return f"${value:,.2f}" if value >= 0.01 else f"${value:.4f}"
    if kind == "hours":
        return f"{value:.1f} h" if value >= 0.1 else f"{value * 60:.0f} min"
    if kind == "int":
        return f"{value:,}"
    if kind == "seconds":
        return _seconds(float(value))
    return str(value)


def _seconds(value: float) -> str:
    if value < 90:
        return f"{value:.0f} s"
    if value < 90 * 60:
        return f"{value / 60:.0f} min"
    return f"{value / 3600:.1f} h"


@register.filter
def attr(obj, name: str):
    return getattr(obj, name, None) if not isinstance(obj, dict) else obj.get(name)


@register.filter(name="held_out_label")
def held_out_label_of(evaluation) -> str:
    """The held-out badge text of an Evaluation, or of a values() row of one."""
    return held_out_label(bool(attr(evaluation, "held_out")), attr(evaluation, "hidden_cases_passed") or 0)


@register.filter
def unranked_protocol(evaluation) -> str:
    """The timing protocol of an Evaluation that was timed under another protocol than the ranked
    one (its speedup is withheld), else ""."""
    if not (evaluation.chip.timing_meaningful and evaluation.timing):
        return ""
    environment = evaluation.environment or {}
    return "" if is_ranked_protocol(environment) else timing_protocol(environment)


@register.filter
def breakable(label: str) -> str:
    """A column label that may wrap after a slash ("Tok/success"), for narrow screens."""
    return mark_safe(conditional_escape(label).replace("/", "/<wbr>"))  # escaped first


@register.filter
def item(mapping, key):
    return mapping.get(key) if mapping else None


@register.filter
def signed(value, digits: int = 1) -> str:
    if value is None:
        return "–"
    return f"{value:+.{int(digits)}f}"


@register.simple_tag
def metric_cells(row, columns) -> str:
    """The metric <td>s of one leaderboard row, built in Python: one tag call per row instead of a dozen
    lookups and filters per cell keeps a 50-row page cheap to render."""
    cells = []
    for column in columns:
        if column.key == "operators_evaluated":
            cells.append(
                format_html(
                    '<td class="num {}" title="{} evaluated of {} attempted">{}<span class="muted">/{}</span></td>',
                    column.css,
                    row.operators_evaluated,
                    row.operators_attempted,
                    row.operators_evaluated,
                    row.operators_attempted,
                )
            )
        elif column.key == "samples":
            cells.append(
                format_html(
                    '<td class="num {}" title="{} sample(s) per operator">{}</td>',
                    column.css,
                    row.samples_per_operator,
                    fmt(row.samples, "int"),
                )
            )
        else:
            cells.append(
                format_html('<td class="num {}">{}</td>', column.css, fmt(getattr(row, column.key), column.kind))
            )
    return mark_safe("".join(cells))  # every part went through format_html


BADGES = (
    ("is_demo", "badge-demo", "Sample data loaded by seed_demo", "demo"),
    ("preliminary", "badge-prelim", "Too few operators evaluated for this view to rank it", "preliminary"),
    # every operator verified with secret seeds; the tooltip is the row's held_out_label (hidden shapes)
    ("held_out", "badge-heldout", None, "held-out verified"),
    ("pareto", "badge-pareto", "On the accuracy vs tokens-per-success Pareto front", "Pareto"),
    # apart from self-reported figures: the kgb client recorded every request's usage block as the API returned it
    ("tokens_metered", "badge-metered", "Tokens recorded by the kgb client from the API's usage blocks", "metered"),
)


@register.simple_tag
def row_badges(row) -> str:
    parts = [
        format_html('<span class="badge {}" title="{}">{}</span>', css, title or row.held_out_label, label)
        for attribute, css, title, label in BADGES
        if getattr(row, attribute, False)
    ]
    if not getattr(row, "is_public", True):
        parts.append(
            format_html('<span class="badge badge-private" title="{}">private</span>', "Only you can see this")
        )
    return mark_safe(" ".join(parts))  # every part went through format_html


@register.simple_tag
def verify_calls(row) -> str:
    """A run's verifier calls, saying who counted them: the site (test-mode checks tagged with the run's id) or
    the client (its own count, local harness runs included). "" when neither is known."""
    parts = []
    if row.verify_calls_counted is not None:
        checks = row.verify_calls_counted
        parts.append(f"{checks:,} test-mode check{'s' if checks != 1 else ''} (site)")
    if row.verify_calls_reported is not None:
        calls = row.verify_calls_reported
        parts.append(f"{calls:,} verifier call{'s' if calls != 1 else ''} (client-reported)")
    return " · ".join(parts)
