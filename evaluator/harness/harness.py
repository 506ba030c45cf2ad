"""The public API: `Harness` keeps a warm pool of candidate processes for one device and turns
(operator, solution source) into a result document. Its options are one frozen `HarnessConfig`
(the CLI, bundles and runners build one and pass it on); each evaluation's own parameters are an
`AttemptRequest`."""

from __future__ import annotations

import dataclasses
from typing import Any

from evaluator.harness import backends, hidden, sandbox
from evaluator.harness.backends import CLOCKS, FLUSH_MODES
from evaluator.harness.evaluate import Attempt, HarnessError
from evaluator.harness.gate import DeviceGate
from evaluator.harness.peaks import chip_from_device_name, load_peaks
from evaluator.harness.pool import WarmPool, default_host_memory_limit_bytes, plan_host_memory_limit
from evaluator.harness.result import base_environment, scrub_result, secret_strings
from evaluator.harness.specs import resolve
from operators.spec import OperatorSpec

TIMED_TIERS = ("perf",)
TIERS = ("smoke", "full", "edge", "perf")


def default_tier(device_type: str) -> str:
    return "smoke" if device_type == "cpu" else "full"


@dataclasses.dataclass(frozen=True)
class HarnessConfig:
    """How a Harness evaluates. `static_policy=False` skips the AST layer (the adversarial tests
    prove the runtime layers on their own with it); `host_memory_limit_bytes` caps each candidate
    process (None: min(16 GiB, half the RAM); 0: no limit); `flush` is how L2 is emptied before a
    timed call (timing.Flusher) and `clock` how non-graph calls are timed ("events" around each
    call, do_bench's way, or "kernel", the device's own timestamps, kernel_clock.py); `secrets`
    are strings (a runner token) scrubbed from every result in any common encoding, besides the
    secret-looking variables of this process's environment. Runners (the worker, bundles) stop a
    tier after RANKED_FAIL_FAST failed cases."""

    device: str | None = None
    chip: str | None = None
    pool_size: int = 1
    peaks_file: str | None = None
    time_tiers: tuple[str, ...] = TIMED_TIERS
    static_policy: bool = True
    time_budget_s: float = 1.5  # per timed case, for the candidate and again for the baseline
    max_cases: int | None = None  # None: every case of the tier
    host_memory_limit_bytes: int | None = None
    flush: str = "write"
    clock: str = "events"
    secrets: tuple[str, ...] = ()
    # timed cases replayed from recorded launches in a process that never runs candidate code
    # (replay.py) where the backend can; False times every case in the candidate's own process
    # (bench/harness_replay.py compares the two; such timings are never ranked)
    replay_timing: bool = True
    # stop checking a tier once this many of its cases failed (0: check them all); the result
    # says how many were not run (`cases_skipped`)
    fail_fast_after: int = 0

    def __post_init__(self) -> None:
        if self.fail_fast_after < 0:
            raise HarnessError("fail_fast_after cannot be negative")
        if self.max_cases is not None and self.max_cases < 1:
            raise HarnessError("max_cases must be at least 1")
        if self.flush not in FLUSH_MODES:
            raise HarnessError(f"flush must be one of {', '.join(FLUSH_MODES)}")
        if self.clock not in CLOCKS:
            raise HarnessError(f"clock must be one of {', '.join(CLOCKS)}")
        if self.host_memory_limit_bytes is not None and self.host_memory_limit_bytes < 0:
            raise HarnessError("host_memory_limit_bytes cannot be negative")
        if self.pool_size < 1:
            raise HarnessError("pool_size must be at least 1")
        unknown = set(self.time_tiers) - set(TIERS)
        if unknown:
            raise HarnessError(f"unknown timed tier(s): {', '.join(sorted(unknown))}")


@dataclasses.dataclass(frozen=True)
class AttemptRequest:
    """One evaluation: the tier, the seed (public, or secret and never published), the time
    limit of the whole attempt, the file name the source is loaded as, and held-out cases."""

    tier: str
    seed: int | None = None
    secret_seed: bool = False
    timeout_s: float = 300
    file_name: str | None = None
    hidden_cases: tuple[hidden.HiddenCase, ...] = ()


class Harness:
    """Evaluate solutions on one device. Use as a context manager so the pool is shut down:

    with Harness(device="cpu") as h:
        h.evaluate("aten::add", source, tier="smoke")

    Options are those of HarnessConfig, given as keywords or as `config=`."""

    def __init__(self, config: HarnessConfig | None = None, **options: Any) -> None:
        if config is not None and options:
            raise HarnessError("give either a HarnessConfig or keyword options, not both")
        self.config = config or HarnessConfig(**options)
        sandbox.set_undumpable()  # same-uid processes cannot read this process's memory
        self.backend = backends.get_backend(self.config.device or backends.default_device_type())
        if not self.backend.available():
            raise HarnessError(f"device {self.backend.device_type!r} is not available on this machine")
        self.environment = base_environment(self.backend, None)
        self.chip = self.config.chip or chip_from_device_name(self.environment["device_name"], self.backend.device_type)
        self.environment["chip"] = self.chip
        self.peaks = load_peaks(self.chip, self.backend, self.config.peaks_file)
        self.environment["l2_flush"] = self.config.flush
        self.environment["timing_clock"] = self.config.clock
        if self.config.clock == "kernel" and self.backend.supports_timing:
            from evaluator.harness.kernel_clock import warm_up

            # the baseline is timed in this process: its first trace starts CUPTI (seconds) here
            unavailable = warm_up(self.backend)
            if unavailable:
                self.environment["timing_clock"] = f"events (kernel clock unavailable: {unavailable})"
        limit = self.config.host_memory_limit_bytes
        self.host_memory = plan_host_memory_limit(
            self.backend, default_host_memory_limit_bytes() if limit is None else limit
        )
        self.environment["host_memory"] = self.host_memory.record()
        self._pool: WarmPool | None = None
        self.gate = DeviceGate()  # evaluate() may be called from several threads (bundle workers)

    @property
    def pool(self) -> WarmPool:
        if self._pool is None:
            self._pool = WarmPool(self.backend, self.host_memory, self.config.pool_size, clock=self.config.clock)
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

    def evaluate(self, operator_id: str | OperatorSpec, solution_source: str, **options: Any) -> dict[str, Any]:
        """The result document (schema kgb.result/1) for one attempt (`options` as for
        evaluate_public); raises HarnessError only when the harness itself cannot reach a verdict
        (unknown operator, empty tier, device missing, malformed hidden cases). `hidden_cases`
        (held-out runs, `full` tier only) are checked in a child of their own after the public run
        and never described (evaluator/harness/hidden.py)."""
        return self.evaluate_public(operator_id, solution_source, **options).complete()

    def evaluate_public(
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
    ) -> PendingResult:
        """`evaluate` in two steps: the public run now, the held-out cases when `complete()` is
        called, which may be after other attempts' public runs (run_bundle does so: a candidate
        that reads a clock then learns nothing from how long another's held-out phase took)."""
        spec, locator = resolve(operator_id)
        tier = tier or default_tier(self.backend.device_type)
        if tier not in TIERS:
            raise HarnessError(f"unknown tier {tier!r}")
        if hidden_cases:
            if tier != hidden.HIDDEN_TIER or tier in self.config.time_tiers:
                raise HarnessError(f"hidden cases extend the untimed {hidden.HIDDEN_TIER!r} tier only, not {tier!r}")
            problems = hidden.case_key_problems(spec.id, spec.tier(hidden.HIDDEN_TIER), hidden_cases)
            if problems:
                raise HarnessError("; ".join(problems))
        request = AttemptRequest(
            tier=tier,
            seed=seed,
            secret_seed=secret_seed,
            timeout_s=timeout_s,
            file_name=file_name or spec.file_name,
            hidden_cases=tuple(hidden.HiddenCase(case) for case in hidden_cases or ()),
        )
        attempt = Attempt(spec=spec, locator=locator, source=solution_source, request=request, harness=self)
        attempt.run_public()
        return PendingResult(
            attempt, secrets=(*self.config.secrets, *([str(attempt.base_seed)] if secret_seed else ()))
        )


class PendingResult:
    """An attempt whose public run is done; `complete()` runs its held-out cases (if any) and
    returns the result document, redacted and scrubbed. Nothing of it is published before."""

    def __init__(self, attempt: Attempt, *, secrets: tuple[str, ...]) -> None:
        self._attempt = attempt
        self._secrets = secrets
        self._result: dict[str, Any] | None = None

    def complete(self) -> dict[str, Any]:
        if self._result is not None:
            return self._result
        attempt = self._attempt
        result = self._result = attempt.run_hidden()
        hidden.redact(result)
        scrub_result(result, secrets=[*secret_strings(), *self._secrets], paths=attempt.private_paths)
        return result
