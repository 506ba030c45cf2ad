"""Number formatting for the tables (one place, so every table and the home page agree)."""

from __future__ import annotations

from django import template

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
    return str(value)


@register.filter
def attr(obj, name: str):
    return getattr(obj, name, None) if not isinstance(obj, dict) else obj.get(name)


@register.filter
def item(mapping, key):
    return mapping.get(key) if mapping else None


@register.filter
def signed(value, digits: int = 1) -> str:
    if value is None:
        return "–"
    return f"{value:+.{int(digits)}f}"
