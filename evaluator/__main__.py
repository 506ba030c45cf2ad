"""Command line of the evaluator harness.

    python -m evaluator check --operator ID --solution FILE [--device D] [--tier T] [--seed N]
                              [--secret-seed] [--timeout S] [--chip SLUG] [--peaks FILE] [--json]
                              [--host-memory-gib G] [--flush write|read] [--clock events|kernel]
    python -m evaluator bundle run JOBS.json --out RESULTS.json [--device D] [--workers N]
                                   [--host-memory-gib G] [--flush write|read] [--clock events|kernel]
                                   [--signing-key KEY]
    python -m evaluator bundle sign RESULTS.json --signing-key KEY [--out SIGNED.json]
    python -m evaluator bundle keygen --out KEY

Results files are signed with the runner's Ed25519 private key (evaluator/harness/signing.py), which
needs the `cryptography` package: on a GPU machine without it, `bundle run` writes the file unsigned
and `bundle sign` signs it where the key is. `keygen` makes a key pair (the public key is printed,
for the site's runner registration); the site can also make one when it registers the runner.

`check` prints one JSON result on stdout and exits 0 whenever a verdict was reached; 2 for bad
usage, 1 when the harness itself failed (the message is on stderr).
"""

from __future__ import annotations

import argparse
import json
import math
import os
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
    run.add_argument(
        "--signing-key",
        default=os.environ.get("KGB_RUNNER_SIGNING_KEY_FILE") or None,
        help="the runner's Ed25519 private key (PEM) to sign the results with (default: $KGB_RUNNER_SIGNING_KEY_FILE; "
        "none: unsigned, sign later with `bundle sign`); needs the `cryptography` package",
    )
    sign = bundle_sub.add_parser("sign", help="sign a results file with the runner's Ed25519 private key")
    sign.add_argument("results", help="RESULTS.json (schema kgb.results/1)")
    sign.add_argument("--signing-key", required=True, help="the runner's private key (PEM)")
    sign.add_argument("--out", help="where to write the signed file (default: replace RESULTS.json)")
    keygen = bundle_sub.add_parser("keygen", help="make a runner signing key pair; prints the public key")
    keygen.add_argument("--out", required=True, help="the private key file to create (mode 0600, never overwritten)")
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


def _signing_key(path: str) -> Any:
    """The loaded private key of a PEM file; SigningError (with the reason) when it is unusable."""
    from evaluator.harness import signing

    try:
        pem = Path(path).read_bytes()
    except OSError as exc:
        raise signing.SigningError(f"cannot read the signing key {path}: {exc}") from None
    return signing.load_private_key(pem)


def _write_replacing(out: Path, document: dict) -> None:
    partial = out.with_name(out.name + ".partial")
    partial.write_text(json.dumps(document, indent=1), encoding="utf-8")
    partial.replace(out)


def _bundle_run(args: argparse.Namespace) -> int:
    from evaluator.harness import signing
    from evaluator.harness.bundle import BundleError, run_bundle

    try:
        jobs = json.loads(Path(args.jobs).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"error: cannot read job bundle {args.jobs}: {exc}", file=sys.stderr)
        return 2
    signing_key = None
    if args.signing_key:
        # before any job runs: a key that cannot be used must not cost a night of GPU time
        try:
            signing_key = _signing_key(args.signing_key)
        except signing.SigningError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2

    def progress(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    out = Path(args.out)

    def write(document: dict) -> None:
        # replaced whole after every finished job: a run cut off by a time limit keeps its results
        _write_replacing(out, document)

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
            signing_key=signing_key,
        )
    except BundleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    write(results)
    progress(f"wrote {len(results['results'])} results to {args.out}")
    if signing_key is None:
        progress(f"unsigned: sign it with `python -m evaluator bundle sign {args.out} --signing-key KEY` before import")
    return 0


def _bundle_sign(args: argparse.Namespace) -> int:
    from evaluator.harness import RESULTS_SCHEMA, signing

    try:
        document = json.loads(Path(args.results).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"error: cannot read results file {args.results}: {exc}", file=sys.stderr)
        return 2
    if not isinstance(document, dict) or document.get("schema") != RESULTS_SCHEMA:
        print(f"error: not a results file (schema must be {RESULTS_SCHEMA!r})", file=sys.stderr)
        return 2
    try:
        key = _signing_key(args.signing_key)
    except signing.SigningError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    document["signature"] = signing.sign_document(document, key)
    _write_replacing(Path(args.out or args.results), document)
    print(
        f"signed {len(document.get('results') or [])} results with key {document['signature']['key_id']}",
        file=sys.stderr,
    )
    return 0


def _bundle_keygen(args: argparse.Namespace) -> int:
    from evaluator.harness import signing

    try:
        pem, public = signing.generate_key_pair()
    except signing.SigningError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        # created 0600 and never over an existing key (that would orphan its registration)
        descriptor = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        print(f"error: cannot create {args.out}: {exc}", file=sys.stderr)
        return 2
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(pem)
    print(public)
    print(
        f"private key written to {args.out}; give the public key above to the site's runner registration",
        file=sys.stderr,
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "check":
            return _check(args)
        return {"run": _bundle_run, "sign": _bundle_sign, "keygen": _bundle_keygen}[args.bundle_command](args)
    except Exception as exc:  # a harness failure: say what broke, exit 1
        import traceback

        traceback.print_exc(file=sys.stderr)
        print(f"error: harness failure: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
