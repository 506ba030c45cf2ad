"""One device call's worth of harness checks on a real GPU (what docs/benchmarks/harness.md reports):
the CLI over correct and hostile solutions, the device-hang fault procedure, then the stability,
accuracy and overhead benchmarks.
Every step is isolated (its own timeout, its failure recorded) and writes under --out.

    PYTHONPATH=. [KGB_TEST_DEVICE=cuda] python3 bench/harness_h200.py --out $OUT [--only STEPS | --skip STEPS]

Steps: cli, sandbox, suite_v2, precision, device_hang, stability, accuracy, overhead, hostile.
The pytest steps run the suites on the GPU when KGB_TEST_DEVICE=cuda is set.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ADVERSARIAL = [
    "torch_fallback",
    "return_input",
    "stale_empty",
    "cache_across_calls",
    "write_inputs",
    "python_math_ghost",
    "python_math_no_launch",
    "nan_output",
    "partial_output",
    "precision_downgrade",
    "os_exit",
    "segfault",
    "infinite_loop",
    "lazy_subclass",
    "gc_reference",
    "monkeypatch_torch",
]
# with the static layer off, only the files whose exploit then reaches the runtime layers on a GPU
RUNTIME_ONLY = [
    "torch_fallback",
    "stale_empty",
    "cache_across_calls",
    "write_inputs",
    "python_math_ghost",
    "nan_output",
    "os_exit",
    "segfault",
    "infinite_loop",
    "side_stream",
    "phase_counting",
]
CUDA_ONLY = ["side_stream", "phase_counting"]
TIMED_EXPLOITS = ["python_math_ghost", *CUDA_ONLY]  # judged on the perf tier, while being timed


def run(cmd: list[str], log: Path, timeout: int) -> tuple[int, str]:
    started = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        code, out, err = 124, exc.stdout or "", (exc.stderr or "") + "\nTIMEOUT"
        out = out.decode() if isinstance(out, bytes) else out
        err = err.decode() if isinstance(err, bytes) else err
    with log.open("a") as handle:
        handle.write(f"$ {' '.join(cmd)}  (rc={code}, {time.monotonic() - started:.1f} s)\n{out}\n{err[-4000:]}\n")
    return code, out


HOSTILE_PASSES = {"static": (True, "events"), "runtime": (False, "events"), "kernel": (False, "kernel")}


def hostile_via_api(out_dir: Path, passes: list[str]) -> list[dict]:
    """Every hostile file through the Python API (one warm pool) on the benchmark's add spec (plain
    same-shape tensors, so an exploit fails for its trick and not for a missing broadcast); the
    timing-only exploits on the perf tier; with and without the static layer."""
    from bench.harness_specs import ADD_BENCH
    from evaluator.harness import Harness

    rows = []
    # the kernel pass: the files whose exploit targets the timed calls, static layer off so each
    # reaches the timed calls under the kernel clock
    for static, clock in (HOSTILE_PASSES[name] for name in passes):
        with Harness(pool_size=2, static_policy=static, clock=clock) as harness:
            names = ADVERSARIAL + CUDA_ONLY if static else RUNTIME_ONLY
            for name in TIMED_EXPLOITS if clock == "kernel" else names:
                folder = "adversarial_cuda" if name in CUDA_ONLY else "adversarial"
                source = Path(f"tests/harness/{folder}/{name}.py").read_text()
                tier = "perf" if name in TIMED_EXPLOITS else "full"
                result = harness.evaluate(ADD_BENCH, source, tier=tier, timeout_s=8 if name == "infinite_loop" else 120)
                rows.append(
                    {
                        "file": name,
                        "static_layer": static,
                        "clock": clock,
                        "tier": tier,
                        "verdict": result["verdict"],
                        "reason": result["reason"][:240],
                        "layers": sorted({f["layer"] for f in result["findings"]}),
                        "duration_s": result["duration_s"],
                    }
                )
                print(
                    f"{name:24s} static={static!s:5s} {clock:6s} {result['verdict']:15s} {rows[-1]['layers']} "
                    f"{result['reason'][:100]}",
                    flush=True,
                )
    (out_dir / "hostile.json").write_text(json.dumps(rows, indent=1))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--skip", default="")
    parser.add_argument("--only", default="", help="run just these steps (comma-separated)")
    parser.add_argument(
        "--hostile-passes",
        default="static,runtime,kernel",
        help="static layer on / off (events), and the timed exploits under the kernel clock",
    )
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = out / "log.txt"
    skip = set(filter(None, args.skip.split(",")))
    only = set(filter(None, args.only.split(",")))
    py = sys.executable
    env_info = subprocess.run(
        [
            "nvidia-smi",
            "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw",
            "--format=csv",
        ],
        capture_output=True,
        text=True,
    )
    (out / "gpu.txt").write_text(
        env_info.stdout
        + env_info.stderr
        + f"\nncu: {subprocess.run(['which', 'ncu'], capture_output=True, text=True).stdout}"
    )
    steps = []
    if "cli" not in skip and (not only or "cli" in only):
        ref = "operators/solutions/triton_reference/aten__add.py"
        cli = []
        for label, cmd in [
            (
                "correct_full",
                [py, "-m", "evaluator", "check", "--operator", "aten::add", "--solution", ref, "--tier", "full"],
            ),
            (
                "correct_perf",
                [py, "-m", "evaluator", "check", "--operator", "aten::add", "--solution", ref, "--tier", "perf"],
            ),
            (
                "hostile_fallback",
                [
                    py,
                    "-m",
                    "evaluator",
                    "check",
                    "--operator",
                    "aten::add",
                    "--solution",
                    "tests/harness/adversarial/torch_fallback.py",
                ],
            ),
            (
                "hostile_segfault_static",
                [
                    py,
                    "-m",
                    "evaluator",
                    "check",
                    "--operator",
                    "aten::add",
                    "--solution",
                    "tests/harness/adversarial/segfault.py",
                ],
            ),
        ]:
            code, stdout = run(cmd, log, 300)
            try:
                result = json.loads(stdout)
                cli.append(
                    {
                        "label": label,
                        "rc": code,
                        "verdict": result["verdict"],
                        "reason": result["reason"][:300],
                        "timing": result["timing"],
                        "sol_pct": result["sol_pct"],
                        "duration_s": result["duration_s"],
                        "environment": result["environment"],
                        "profile": result.get("profile"),
                    }
                )
            except ValueError:
                cli.append({"label": label, "rc": code, "verdict": None})
            isolation = (cli[-1].get("environment") or {}).get("isolation") or {}
            print(
                label, cli[-1].get("verdict"), cli[-1].get("timing"),
                f"isolation: {isolation.get('sandbox')} complete={isolation.get('complete')} "
                f"missing={isolation.get('missing')} notes={isolation.get('level_notes')}",
                flush=True,
            )  # fmt: skip
        (out / "cli.json").write_text(json.dumps(cli, indent=1))
        steps.append("cli")
    pytest = [py, "-m", "pytest", "-p", "no:django", "-p", "no:cacheprovider", "-q", "-rA"]
    for name, cmd, limit in [
        # the sandbox with the cuda backend: probes from inside a candidate, checked from outside
        ("sandbox", [*pytest, "tests/harness/test_sandbox.py", f"--junitxml={out / 'sandbox.xml'}"], 300),
        # the second hostile suite and its honest controls against the cuda backend, the GPU-only
        # families with it (KGB_TEST_DEVICE switches the suite's harness fixtures)
        (
            "suite_v2",
            [*pytest, "tests/harness/test_adversarial_v2.py", f"--junitxml={out / 'suite_v2.xml'}"],
            int(os.environ.get("KGB_SUITE_V2_LIMIT", "420")),
        ),
        ("precision", [py, "bench/precision_h200.py", "--out", str(out / "precision.json")], 420),
        ("device_hang", [py, "bench/device_hang.py", "--timeout", "6", "--out", str(out / "device_hang.json")], 90),
        ("stability", [py, "bench/harness_stability.py", "--budget", "0.3", "--out", str(out / "stability.json")], 260),
        ("accuracy", [py, "bench/harness_accuracy.py", "--ncu", "--out", str(out / "accuracy.json")], 240),
        ("overhead", [py, "bench/harness_overhead.py", "--attempts", "8", "--out", str(out / "overhead.json")], 90),
    ]:
        if name in skip or (only and name not in only):
            continue
        code, stdout = run(cmd, log, limit)
        print(f"== {name} rc={code}\n{stdout[-3000:]}", flush=True)
    if "hostile" not in skip and (not only or "hostile" in only):
        try:
            hostile_via_api(out, [name for name in args.hostile_passes.split(",") if name in HOSTILE_PASSES])
        except Exception as exc:
            print("hostile step failed:", repr(exc), flush=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
