"""The public API: `Harness` keeps a warm pool of candidate processes for one device and turns
(operator, solution source) into a result document."""

from __future__ import annotations

from typing import Any

from evaluator.harness import backends, hidden
from evaluator.harness.backends import CLOCKS, FLUSH_MODES
from evaluator.harness.evaluate import Attempt, HarnessError
from evaluator.harness.gate import DeviceGate
from evaluator.harness.peaks import chip_from_device_name, load_peaks
from evaluator.harness.pool import WarmPool, default_host_memory_limit_bytes, plan_host_memory_limit
from evaluator.harness.result import base_environment
from evaluator.harness.specs import resolve
from operators.spec import OperatorSpec

TIMED_TIERS = ("perf",)


def default_tier(device_type: str) -> str:
    return "smoke" if device_type == "cpu" else "full"


class Harness:
    """Evaluate solutions on one device. Use as a context manager so the pool is shut down:

    with Harness(device="cpu") as h:
        h.evaluate("aten::add", source, tier="smoke")
    """

    def __init__(
        self,
        device: str | None = None,
        chip: str | None = None,
        pool_size: int = 1,
        *,
        peaks_file: str | None = None,
        time_tiers: tuple[str, ...] = TIMED_TIERS,
        static_policy: bool = True,
        time_budget_s: float = 1.5,
        max_cases: int | None = None,
        host_memory_limit_bytes: int | None = None,
        flush: str = "write",
        clock: str = "events",
    ) -> None:
        """`static_policy=False` skips the AST layer; the adversarial tests use it to prove that the
        runtime layers stop each exploit on their own. `host_memory_limit_bytes` caps each candidate
        process (None: min(16 GiB, half the RAM); 0: no limit); how it is enforced is recorded in
        `environment["host_memory"]`. `flush` is how L2 is emptied before each timed call (see
        timing.Flusher), recorded in `environment["l2_flush"]`. `clock` times the calls that are not
        graph-replayed: "events" (CUDA events around each call, do_bench's way) or "kernel" (the
        device's own timestamps of the call's work, kernel_clock.py; falls back to events, with a
        note, where the device keeps no such record), recorded in `environment["timing_clock"]`."""
        self.backend = backends.get_backend(device or backends.default_device_type())
        if not self.backend.available():
            raise HarnessError(f"device {self.backend.device_type!r} is not available on this machine")
        self.environment = base_environment(self.backend, None)
        self.chip = chip or chip_from_device_name(self.environment["device_name"], self.backend.device_type)
        self.environment["chip"] = self.chip
        self.peaks = load_peaks(self.chip, self.backend, peaks_file)
        self.pool_size = pool_size
        self.time_tiers = time_tiers
        self.static_policy = static_policy
        self.time_budget_s = time_budget_s  # per timed case, for the candidate and again for the baseline
        if max_cases is not None and max_cases < 1:
            raise HarnessError("max_cases must be at least 1")
        self.max_cases = max_cases  # None: every case of the tier
        if flush not in FLUSH_MODES:
            raise HarnessError(f"flush must be one of {', '.join(FLUSH_MODES)}")
        self.flush = flush
        self.environment["l2_flush"] = flush
        if clock not in CLOCKS:
            raise HarnessError(f"clock must be one of {', '.join(CLOCKS)}")
        self.clock = clock
        self.environment["timing_clock"] = clock
        if clock == "kernel" and self.backend.supports_timing:
            from evaluator.harness.kernel_clock import warm_up

            # the baseline is timed in this process: its first trace starts CUPTI (seconds) here
            unavailable = warm_up(self.backend)
            if unavailable:
                self.environment["timing_clock"] = f"events (kernel clock unavailable: {unavailable})"
        if host_memory_limit_bytes is None:
            host_memory_limit_bytes = default_host_memory_limit_bytes()
        if host_memory_limit_bytes < 0:
            raise HarnessError("host_memory_limit_bytes cannot be negative")
        self.host_memory = plan_host_memory_limit(self.backend, host_memory_limit_bytes)
        self.environment["host_memory"] = self.host_memory.record()
        self._pool: WarmPool | None = None
        self.gate = DeviceGate()  # evaluate() may be called from several threads (bundle workers)

    @property
    def pool(self) -> WarmPool:
        if self._pool is None:
            self._pool = WarmPool(self.backend, self.host_memory, self.pool_size, clock=self.clock)
        return self._pool

    def __enter__(self) -> Harness:
        _ = self.pool  # start warming now
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def evaluate(
        self,
        operator_id: str | OperatorSpec,
        solution_source: str,
        *,
        tier: str | None = None,
        seed: int | None = None,
        secret_seed: bool = False,
        timeout_s: float = 300,
        file_name: str | None = None,
        hidden_cases: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """The result document (schema kgb.result/1) for one attempt; raises HarnessError only when
        the harness itself cannot reach a verdict (unknown operator, empty tier, device missing,
        malformed hidden cases). `hidden_cases` (held-out runs, `full` tier only) are checked like
        the tier's own cases but never described in the result (evaluator/harness/hidden.py)."""
        spec, locator = resolve(operator_id)
        tier = tier or default_tier(self.backend.device_type)
        if tier not in ("smoke", "full", "edge", "perf"):
            raise HarnessError(f"unknown tier {tier!r}")
        if hidden_cases:
            if tier != hidden.HIDDEN_TIER or tier in self.time_tiers:
                raise HarnessError(f"hidden cases extend the untimed {hidden.HIDDEN_TIER!r} tier only, not {tier!r}")
            problems = hidden.case_key_problems(spec.id, spec.tier(hidden.HIDDEN_TIER), hidden_cases)
            if problems:
                raise HarnessError("; ".join(problems))
        attempt = Attempt(
            spec=spec,
            locator=locator,
            source=solution_source,
            file_name=file_name or spec.file_name,
            backend=self.backend,
            pool=self.pool,
            tier=tier,
            seed=seed,
            secret_seed=secret_seed,
            timeout_s=timeout_s,
            environment=self.environment,
            peaks=self.peaks,
            time_tiers=self.time_tiers,
            static_policy=self.static_policy,
            time_budget_s=self.time_budget_s,
            max_cases=self.max_cases,
            flush=self.flush,
            clock=self.clock,
            hidden_cases=tuple(hidden.HiddenCase(case) for case in hidden_cases or ()),
            gate=self.gate,
        )
        result = attempt.run()
        hidden.redact(result)
        return result
