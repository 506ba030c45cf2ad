"""Plotly figure specifications as plain dicts (rendered by static/js/charts.js with the vendored plotly.min.js).

Plain dicts keep the page free of inline scripts (the JSON goes through `json_script`) and the web process free
of the plotly Python package's import cost.
"""

from __future__ import annotations

from leaderboard import metrics
from leaderboard.selectors import LeaderboardRow, MethodRow

FONT = {"family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", "size": 13, "color": "#1f2937"}
COLORS = ["#2563eb", "#db2777", "#059669", "#d97706", "#7c3aed", "#0891b2", "#dc2626", "#4b5563"]


def _layout(title: str, **extra) -> dict:
    return {
        "title": {"text": title, "x": 0, "font": {"size": 15}},
        "font": FONT,
        "margin": {"l": 60, "r": 20, "t": 40, "b": 60},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "#ffffff",
        "hoverlabel": {"font": {"size": 12}},
        **extra,
    }


# log axes tick at 1-2-5 steps, each label with its magnitude (Plotly's default labels the digits between decades
# alone, which reads "3 4 5 ... 9 1 2")
TOKEN_TICKS = [m * 10**e for e in range(1, 10) for m in (1, 2, 5)]


def _si(value: float) -> str:
    for size, prefix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{value / size:g}{prefix}"
    return f"{value:g}"


LOG_TOKENS = {"type": "log", "tickvals": TOKEN_TICKS, "ticktext": [_si(t) for t in TOKEN_TICKS], "gridcolor": "#e5e7eb"}
# speedups span a few factors of two around 1x: ticks at the powers of two, written as ratios
SPEEDUP_TICKS = [2.0**e for e in range(-6, 11)]


def _cohort_name(row: LeaderboardRow) -> str:
    return f"{row.chip_name} · {row.tier} tier" if row.tier else row.chip_name


def pareto_chart(rows: list[LeaderboardRow]) -> dict | None:
    """Accuracy (higher is better) against tokens per correct operator (lower is better): the points and the front
    of each chip (each cohort of comparable rows) in their own colour, the front drawn as steps. One front across
    chips would compare rows that are not comparable, and hide each chip's own front below it."""
    points = [r for r in rows if r.tokens_per_success and r.accuracy_pct is not None and not r.preliminary]
    if not points:
        return None
    cohorts: dict[str, list[LeaderboardRow]] = {}
    for row in points:
        cohorts.setdefault(_cohort_name(row), []).append(row)
    data = []
    for index, (name, members) in enumerate(cohorts.items()):
        color = COLORS[index % len(COLORS)]
        front = metrics.pareto_front(
            metrics.ParetoPoint(str(i), r.tokens_per_success, r.accuracy_pct) for i, r in enumerate(members)
        )
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": name,
                "legendgroup": name,
                "x": [r.tokens_per_success for r in members],
                "y": [r.accuracy_pct for r in members],
                "text": [f"{r.scaffold} ({r.model}) · {r.chip}" + (" · demo" if r.is_demo else "") for r in members],
                "hovertemplate": "%{text}<br>%{y:.1f}% correct<br>%{x:,.0f} tokens per success<extra></extra>",
                "marker": {
                    "size": [12 if r.pareto else 8 for r in members],
                    "color": color,
                    "opacity": 0.85,
                    "line": {"width": [2 if r.pareto else 0 for r in members], "color": "#111827"},
                },
            }
        )
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": f"Pareto front · {name}",
                "legendgroup": name,
                "x": [p.cost for p in front],
                "y": [p.score for p in front],
                "line": {"shape": "hv", "color": color, "width": 2, "dash": "dot"},
                "hoverinfo": "skip",
            }
        )
    layout = _layout(
        "Accuracy vs tokens per success, per chip",
        xaxis={"title": {"text": "tokens per correct operator (log)"}, **LOG_TOKENS},
        yaxis={"title": {"text": "accuracy (%)"}, "range": [0, 100], "gridcolor": "#e5e7eb"},
        showlegend=True,
        legend={"orientation": "h", "y": -0.25},
    )
    return {"data": data, "layout": layout}


def speedup_distribution_chart(distributions: list[dict]) -> dict | None:
    series = [d for d in distributions if d["speedups"]]
    if not series:
        return None
    data = [
        {
            "type": "box",
            "name": d["label"],
            "x": d["speedups"],
            "boxpoints": "outliers",
            "marker": {"color": COLORS[i % len(COLORS)]},
            "hovertemplate": "%{x:.2f}×<extra></extra>",
        }
        for i, d in enumerate(series)
    ]
    layout = _layout(
        "Speedup per correct operator (best sample)",
        xaxis={
            "title": {"text": "speedup over the baseline (log)"},
            "type": "log",
            "tickvals": SPEEDUP_TICKS,
            "ticktext": [f"{t:g}×" for t in SPEEDUP_TICKS],
            "gridcolor": "#e5e7eb",
        },
        yaxis={"automargin": True},
        showlegend=False,
        shapes=[
            {
                "type": "line",
                "x0": 1,
                "x1": 1,
                "yref": "paper",
                "y0": 0,
                "y1": 1,
                "line": {"color": "#9ca3af", "dash": "dash"},
            }
        ],
        height=max(260, 60 + 40 * len(series)),
    )
    return {"data": data, "layout": layout}


def chip_heatmap(chips: list, rows: list[MethodRow]) -> dict | None:
    """Accuracy per method (rows) and chip (columns) on the MC set."""
    if not chips or not rows:
        return None
    z = [[(row.cells[c.slug].accuracy_pct if c.slug in row.cells else None) for c in chips] for row in rows]
    text = [[("" if v is None else f"{v:.0f}%") for v in line] for line in z]
    data = [
        {
            "type": "heatmap",
            "z": z,
            "x": [c.name for c in chips],
            "y": [r.method + (" · demo" if r.is_demo else "") for r in rows],
            "text": text,
            "texttemplate": "%{text}",
            # pale for low accuracy, dark for high (Plotly's named "Blues" runs the other way)
            "colorscale": [[0.0, "#f7fbff"], [0.5, "#6baed6"], [1.0, "#08306b"]],
            "zmin": 0,
            "zmax": 100,
            "colorbar": {"title": {"text": "acc. %"}},
            "hovertemplate": "%{y}<br>%{x}: %{z:.1f}%<extra></extra>",
        }
    ]
    layout = _layout(
        "Accuracy on the multi-chip set, chip × method",
        height=max(280, 80 + 32 * len(rows)),
        yaxis={"automargin": True, "autorange": "reversed"},
        # chip names at the top take the room they need (a fixed margin clipped the long ones)
        xaxis={"side": "top", "automargin": True, "tickangle": -30 if len(chips) > 4 else 0},
    )
    layout["margin"]["t"] = 80
    return {"data": data, "layout": layout}
