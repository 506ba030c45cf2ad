"""The evaluator harness: trusted verdicts on untrusted Triton kernels, on any chip.

Pure Python on torch + triton + stdlib (no Django). The trust model is in docs/harness.md:
the process that owns the verdict never imports candidate code; each candidate runs in a fresh
child process from a warm pool; inputs and references stay on the trusted side.

    from evaluator.harness import Harness
    with Harness(device="cpu") as harness:
        result = harness.evaluate("aten::add", source, tier="smoke")
"""

from __future__ import annotations

from typing import Any

HARNESS_VERSION = "0.1.0"
RESULT_SCHEMA = "kgb.result/1"
# job bundles in, results bundles out (air-gapped runners): the site and the harness share these
JOBS_SCHEMA = "kgb.jobs/1"
RESULTS_SCHEMA = "kgb.results/1"
RANKED_FAIL_FAST = 8  # failed cases after which a runner's evaluation stops (it is incorrect already)
VERDICTS = ("compile_error", "missing_entrypoint", "runtime_error", "timeout", "incorrect", "cheat_detected", "correct")

__all__ = ["HARNESS_VERSION", "RESULT_SCHEMA", "VERDICTS", "Harness"]


def __getattr__(name: str) -> Any:
    # lazy: the candidate process imports this package too and must not pay for the parent's modules
    if name == "Harness":
        from evaluator.harness.harness import Harness

        return Harness
    raise AttributeError(name)
