"""Catalog command line (no Django).

python -m operators list [--source aten|vllm13|cublas] [--mc] [--json]
python -m operators prompt ID [--chip-family nvidia|amd|ascend|...]
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from operators import registry
from operators.prompts import CHIP_FAMILIES, render_prompt
from operators.spec import SOURCES, TIERS, OperatorSpec


def catalog_row(spec: OperatorSpec) -> dict[str, Any]:
    return {
        "id": spec.id,
        "source": spec.source,
        "category": spec.category,
        "mc": spec.mc,
        "provisional": spec.provisional,
        "tiers": {tier: len(spec.tier(tier)) for tier in TIERS},
        "has_reference_solution": registry.reference_solution_path(spec) is not None,
    }


def _list(args: argparse.Namespace) -> int:
    rows = [catalog_row(s) for s in registry.all_specs(args.source, mc_only=args.mc)]
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for row in rows:
        tiers = " ".join(f"{t}={n}" for t, n in row["tiers"].items())
        flags = ("mc " if row["mc"] else "") + ("ref " if row["has_reference_solution"] else "")
        flags += "provisional" if row["provisional"] else ""
        print(f"{row['id']:<48} {row['category']:<14} {tiers:<40} {flags.strip()}")
    print(f"{len(rows)} operators", file=sys.stderr)
    return 0


def _prompt(args: argparse.Namespace) -> int:
    try:
        spec = registry.get(args.id)
    except registry.UnknownOperator as exc:
        print(exc, file=sys.stderr)
        return 2
    sys.stdout.write(render_prompt(spec, args.chip_family))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m operators", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="print the catalog")
    listing.add_argument("--source", choices=SOURCES)
    listing.add_argument("--mc", action="store_true", help="only the multi-chip set")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(run=_list)
    prompt = commands.add_parser("prompt", help="print the prompt for one operator")
    prompt.add_argument("id")
    prompt.add_argument("--chip-family", default="nvidia", choices=sorted(CHIP_FAMILIES))
    prompt.set_defaults(run=_prompt)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
