"""Tabulate signed bundle results files (kgb.results) as Markdown: one row per operator, the newest
file winning when an operator appears in several (later runs carry fixes).

    python bench/bundle_results_table.py RESULTS.json [RESULTS.json ...] [--label NAME ...]

Each file may be given a label (e.g. the device call it came from) shown in the `run` column.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path


def rows_from(path: Path, label: str) -> list[dict]:
    document = json.loads(path.read_text())
    rows = []
    for item in document.get("results", []):
        result = item.get("result") or {}
        timing = result.get("timing") or {}
        cases = result.get("cases") or []
        timed = [c for c in cases if c.get("timing")]
        rows.append(
            {
                "operator": result.get("operator", "?"),
                "verdict": result.get("verdict", "?"),
                "checked": sum(1 for c in cases if c.get("tier") != "perf"),
                "timed": len(timed),
                "speedup": timing.get("speedup"),
                "baseline": timing.get("baseline_kind", ""),
                "sol_pct": result.get("sol_pct"),
                "seconds": result.get("duration_s"),
                "reason": (result.get("reason") or "").replace("|", "/")[:160],
                "run": label,
            }
        )
    return rows


def fmt(value: float | None, pattern: str) -> str:
    return "–" if value is None else pattern.format(value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--label", action="append", default=[])
    args = parser.parse_args()
    labels = args.label + [p.stem for p in args.results[len(args.label) :]]
    newest: dict[str, dict] = {}
    for path, label in zip(args.results, labels, strict=True):
        for row in rows_from(path, label):
            newest[row["operator"]] = row
    print(
        "| operator | verdict | full cases checked | perf cases timed | speedup | baseline | %SOL | s | run | reason |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for op in sorted(newest):
        r = newest[op]
        reason = "" if r["verdict"] == "correct" else r["reason"]
        print(
            f"| {op} | {r['verdict']} | {r['checked']} | {r['timed']} | {fmt(r['speedup'], '{:.2f}×')} | "
            f"{r['baseline']} | {fmt(r['sol_pct'], '{:.0f}%')} | {fmt(r['seconds'], '{:.0f}')} | {r['run']} | {reason} |"
        )
    totals = Counter(r["verdict"] for r in newest.values())
    print(f"\nTotals: {dict(totals)} of {len(newest)} operators")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
