"""Which part of the candidate sandbox a GPU stack trips over: CUDA and Triton are started in a
process under each variant of the seccomp filter (and then under the whole sandbox through the
pool, level by level), and what each run hit is printed. Run on the GPU machine:

    PYTHONPATH=. python3 bench/sandbox_cuda_probe.py --out probe.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import traceback

WORKLOAD = """
import torch, triton, triton.language as tl
x = torch.arange(1024, device="cuda", dtype=torch.float32)
@triton.jit
def k(x_ptr, y_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(y_ptr + o, tl.load(x_ptr + o) * 2)
y = torch.empty_like(x)
k[(1,)](x, y, BLOCK=1024)
torch.cuda.synchronize()
assert torch.equal(y, x * 2)
print("WORKLOAD_OK", flush=True)
"""

# variant -> what is switched off in the filter (module globals seccomp_program reads at call time)
VARIANTS = {
    "full filter": {},
    "AF_UNIX allowed": {"AF_UNIX": 255},
    "clone3 allowed": {"SYSCALL_CLONE3_X86_64": 4095},
    "namespace clone allowed": {"ANY_NAMESPACE": 0},
    "no deny list": {"DENIED_SYSCALLS_X86_64": {}},
}


def filtered_run(variant: str) -> None:
    from evaluator.harness import sandbox

    for name, value in VARIANTS[variant].items():
        setattr(sandbox, name, value)
    sandbox.install_seccomp()
    _run_workload()


def _run_workload() -> None:
    """Triton's @jit reads its function's source: the workload must live in a file."""
    import runpy
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(WORKLOAD)
    runpy.run_path(handle.name)


def bisect_deny_list() -> list[str]:
    """Each denied syscall alone in the list: which of them the workload needs."""
    from evaluator.harness import sandbox

    needed = []
    for name, number in sandbox.DENIED_SYSCALLS_X86_64.items():
        code = (
            "import sys; sys.path.insert(0, '.'); from evaluator.harness import sandbox; "
            f"sandbox.DENIED_SYSCALLS_X86_64 = {{{name!r}: {number}}}; sandbox.install_seccomp(); "
            "from bench.sandbox_cuda_probe import _run_workload; _run_workload()"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        if "WORKLOAD_OK" not in done.stdout:
            needed.append(f"{name}: rc={done.returncode} {done.stderr.strip().splitlines()[-1:]}")
    return needed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--variant")
    args = parser.parse_args()
    if args.variant:
        filtered_run(args.variant)
        return
    report: dict = {"variants": {}}
    for variant in VARIANTS:
        done = subprocess.run(
            [sys.executable, __file__, "--out", args.out, "--variant", variant],
            capture_output=True, text=True, timeout=180, env={**os.environ, "PYTHONPATH": os.getcwd()},
        )  # fmt: skip
        ok = "WORKLOAD_OK" in done.stdout
        report["variants"][variant] = {"ok": ok, "rc": done.returncode, "stderr_tail": done.stderr[-1500:]}
        print(f"{variant:26s} ok={ok} rc={done.returncode} {done.stderr.strip().splitlines()[-1:]}", flush=True)
    if not report["variants"]["no deny list"]["ok"] or not report["variants"]["full filter"]["ok"]:
        report["deny_list_needed"] = bisect_deny_list() if report["variants"]["no deny list"]["ok"] else []
        print("denied syscalls the workload needs:", report["deny_list_needed"], flush=True)
    # the pool's own start, level by level, with the whole message
    from evaluator.harness import backends
    from evaluator.harness.pool import SANDBOX_LEVELS, Child, plan_host_memory_limit

    backend = backends.get_backend("cuda")
    report["levels"] = {}
    for level in SANDBOX_LEVELS[:2]:
        child = Child(backend, plan_host_memory_limit(backend, 0), level=level, clock="events")
        try:
            info = child.wait_ready(180)
            report["levels"][level.name] = {"ok": True, "sandbox": info.get("sandbox")}
        except Exception:
            report["levels"][level.name] = {"ok": False, "error": traceback.format_exc()[-3000:]}
        finally:
            tail = child.output_tail(8000)
            child.kill()
        report["levels"][level.name]["output_tail"] = tail[-3000:]
        print(f"level {level.name}: {json.dumps(report['levels'][level.name])[:3000]}", flush=True)
    with open(args.out, "w") as handle:
        json.dump(report, handle, indent=1)


if __name__ == "__main__":
    main()
