"""Command line of the evaluator harness.

    python -m evaluator check --operator ID --solution FILE [--device D] [--tier T] [--seed N]
                              [--secret-seed] [--timeout S] [--chip SLUG] [--peaks FILE] [--json]
                              [--host-memory-gib G] [--flush write|read] [--clock events|kernel]
    python -m evaluator bundle run JOBS.json --out RESULTS.json [--device D] [--workers N]
                                   [--host-memory-gib G] [--flush write|read] [--clock events|kernel]

`check` prints one JSON result on stdout and exits 0 whenever a verdict was reached; 2 for bad
usage, 1 when the harness itself failed (the message is on stderr).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from evaluator.harness import RANKED_FAIL_FAST  # the package's top level imports no torch

TIERS = ("smoke", "full", "edge", "perf")
FLUSH_HELP = "how L2 is emptied before each timed call: write (default, do_bench's way) or read (clean, as ncu)"
CLOCK_HELP = "what times calls of ~20 us and more: events (default) or kernel (the device's own timestamps, as ncu)"
HOST_MEMORY_HELP = "host memory limit per candidate process in GiB (default: min(16, half the RAM); 0: none)"


def _gib(text: str) -> float:
    value = float(text)
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError("must be a number of GiB, 0 or more")
    return value


def _host_memory_bytes(gib: float | None) -> int | None:
    return None if gib is None else int(gib * (1 << 30))


def _parser() -> argparse.ArgumentParser:
    from evaluator.harness.backends import CLOCKS, FLUSH_MODES, known_device_types

    devices = known_device_types()
    parser = argparse.ArgumentParser(prog="python -m evaluator", description="KernelGenBench evaluator harness")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="evaluate one solution file")
    check.add_argument("--operator", required=True, help="operator id, e.g. aten::add")
    check.add_argument("--solution", required=True, help="the solution .py file")
    check.add_argument("--device", choices=devices, help="default: the accelerator if present, else cpu")
    check.add_argument("--tier", choices=TIERS, help="default: smoke on cpu, full elsewhere")
    check.add_argument("--seed", type=int, help="base seed for the inputs (default 0, or random with --secret-seed)")
    check.add_argument("--secret-seed", action="store_true", help="held-out run: the seed never appears in output")
    check.add_argument("--timeout", type=float, default=300.0, help="seconds for the whole attempt (default 300)")
    check.add_argument("--chip", help="chip slug for peaks and the environment (default: from the device name)")
    check.add_argument("--peaks", help="JSON file overriding the chip's peak rates")
    check.add_argument("--max-cases", type=int, help="evaluate an evenly spaced sample of at most N cases per tier")
    check.add_argument(
        "--fail-fast",
        type=_count,
        default=0,
        metavar="N",
        help="stop a tier after N failed cases (default 0: check all)",
    )
    check.add_argument("--time-budget", type=float, default=1.5, help="seconds of timing per perf case and side")
    check.add_argument("--host-memory-gib", type=_gib, help=HOST_MEMORY_HELP)
    check.add_argument("--flush", choices=FLUSH_MODES, default="write", help=FLUSH_HELP)
    check.add_argument("--clock", choices=CLOCKS, default="events", help=CLOCK_HELP)
    check.add_argument("--json", action="store_true", help="accepted for compatibility: output is always JSON")
    check.add_argument("--indent", type=int, default=None, help="pretty-print the JSON")

    bundle = sub.add_parser("bundle", help="job bundles for air-gapped runners")
    bundle_sub = bundle.add_subparsers(dest="bundle_command", required=True)
    run = bundle_sub.add_parser("run", help="evaluate every job of a bundle")
    run.add_argument("jobs", help="JOBS.json (schema kgb.jobs/1)")
    run.add_argument("--out", required=True, help="RESULTS.json to write (schema kgb.results/1)")
    run.add_argument("--device", choices=devices)
    run.add_argument(
        "--workers",
        type=int,
        default=1,
        help="attempts evaluated side by side (each timed phase still has the device alone; "
        "for trusted solution sets, see evaluator/harness/gate.py)",
    )
    run.add_argument("--peaks", help="JSON file overriding the chip's peak rates")
    run.add_argument("--max-cases", type=int, help="evaluate an evenly spaced sample of at most N cases per tier")
    run.add_argument(
        "--fail-fast",
        type=_count,
        default=RANKED_FAIL_FAST,
        metavar="N",
        help=f"stop a tier after N failed cases, as runners do (default {RANKED_FAIL_FAST}; 0: check all)",
    )
    run.add_argument("--time-budget", type=float, default=1.5, help="seconds of timing per perf case and side")
    run.add_argument("--host-memory-gib", type=_gib, help=HOST_MEMORY_HELP)
    run.add_argument("--flush", choices=FLUSH_MODES, help=FLUSH_HELP + "; default: the bundle's timing_protocol")
    run.add_argument("--clock", choices=CLOCKS, help=CLOCK_HELP + "; default: the bundle's timing_protocol")
    run.add_argument(
        "--no-timing",
        action="store_true",
        help="correctness only (e.g. several bundle processes sharing one GPU, where timings mean nothing)",
    )
    return parser


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("cannot be negative")
    return value


def _harness_config(args: argparse.Namespace, **fixed: Any) -> Any:
    """The HarnessConfig of the options `check` and `bundle run` share; `fixed` adds the rest."""
    from evaluator.harness.harness import HarnessConfig

    options = {key: value for key, value in fixed.items() if value is not None}
    return HarnessConfig(
        device=args.device,
        peaks_file=args.peaks,
        max_cases=args.max_cases,
        time_budget_s=args.time_budget,
        host_memory_limit_bytes=_host_memory_bytes(args.host_memory_gib),
        fail_fast_after=args.fail_fast,
        **options,
    )


def _check(args: argparse.Namespace) -> int:
    from evaluator.harness import Harness
    from evaluator.harness.evaluate import HarnessError

    path = Path(args.solution)
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read solution {path}: {exc}", file=sys.stderr)
        return 2
    try:
        with Harness(_harness_config(args, chip=args.chip, flush=args.flush, clock=args.clock)) as harness:
            result = harness.evaluate(
                args.operator,
                source,
                tier=args.tier,
                seed=args.seed,
                secret_seed=args.secret_seed,
                timeout_s=args.timeout,
                file_name=path.name,
            )
    except KeyError as exc:  # operators.registry.UnknownOperator
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=args.indent))
    return 0


def _bundle_run(args: argparse.Namespace) -> int:
    from evaluator.harness.bundle import BundleError, run_bundle

    try:
        jobs = json.loads(Path(args.jobs).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"error: cannot read job bundle {args.jobs}: {exc}", file=sys.stderr)
        return 2

    def progress(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    out = Path(args.out)

    def write(document: dict) -> None:
        # replaced whole after every finished job: a run cut off by a time limit keeps its results
        partial = out.with_name(out.name + ".partial")
        partial.write_text(json.dumps(document, indent=1), encoding="utf-8")
        partial.replace(out)

    try:
        results = run_bundle(
            jobs,
            config=_harness_config(args),
            workers=args.workers,
            timing=not args.no_timing,
            flush=args.flush,
            clock=args.clock,
            progress=progress,
            checkpoint=write,
        )
    except BundleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    write(results)
    progress(f"wrote {len(results['results'])} results to {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "check":
            return _check(args)
        return _bundle_run(args)
    except Exception as exc:  # a harness failure: say what broke, exit 1
        import traceback

        traceback.print_exc(file=sys.stderr)
        print(f"error: harness failure: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
