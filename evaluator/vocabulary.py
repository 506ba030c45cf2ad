"""The evaluator's words: tiers, verdicts, job and runner states, device types.

Each word is defined here once. The models take their choices and check constraints from these
classes, the services and selectors compare against their members, and the runner API validates
against them. Pure Python (no Django): the harness side may import it.

The verdicts belong to the harness (`evaluator.harness.VERDICTS`), which produces them: `Verdict`
names those values and refuses to load if the two ever disagree. The tiers belong to the operator
catalog (`operators.spec.TIERS`, which imports torch, so it is not imported here): a test keeps
`Tier` equal to it.
"""

from __future__ import annotations

from typing import ClassVar

from evaluator.harness import VERDICTS as HARNESS_VERDICTS


class Words:
    """A closed set of words. Members are plain `str` class attributes in upper case; subclasses get
    `values` (in definition order), `choices` (value, label) for model fields and `labels`.

    `source=` names the tuple that defines the set elsewhere: the class fails to load unless it
    holds exactly those values.
    """

    values: ClassVar[tuple[str, ...]] = ()
    choices: ClassVar[list[tuple[str, str]]] = []
    labels: ClassVar[dict[str, str]] = {}

    def __init_subclass__(cls, source: tuple[str, ...] | None = None, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls.values = tuple(v for k, v in vars(cls).items() if k.isupper() and isinstance(v, str))
        cls.labels = {value: cls.labels.get(value, value) for value in cls.values}
        cls.choices = list(cls.labels.items())
        if source is not None and set(source) != set(cls.values):
            raise TypeError(f"{cls.__name__} {sorted(cls.values)} differs from its source {sorted(source)}")


class Tier(Words):
    SMOKE = "smoke"
    FULL = "full"
    EDGE = "edge"
    PERF = "perf"


class Verdict(Words, source=HARNESS_VERDICTS):
    CORRECT = "correct"
    INCORRECT = "incorrect"
    COMPILE_ERROR = "compile_error"
    MISSING_ENTRYPOINT = "missing_entrypoint"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    CHEAT_DETECTED = "cheat_detected"
    labels = {
        COMPILE_ERROR: "compile error",
        MISSING_ENTRYPOINT: "missing entrypoint",
        RUNTIME_ERROR: "runtime error",
        CHEAT_DETECTED: "cheat detected",
    }


# the kernel compiled and reached its entrypoints (the leaderboard's "compiled" column)
COMPILED_VERDICTS = frozenset(
    {Verdict.CORRECT, Verdict.INCORRECT, Verdict.RUNTIME_ERROR, Verdict.TIMEOUT, Verdict.CHEAT_DETECTED}
)
# best first: which of several verdicts of one operator a per-operator table shows
VERDICT_RANK = {
    Verdict.CORRECT: 6,
    Verdict.INCORRECT: 5,
    Verdict.CHEAT_DETECTED: 4,
    Verdict.TIMEOUT: 3,
    Verdict.RUNTIME_ERROR: 2,
    Verdict.MISSING_ENTRYPOINT: 1,
    Verdict.COMPILE_ERROR: 0,
}


class JobState(Words):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"
    labels = {FAILED: "failed (no verdict: harness or runner failure)"}


# a job in one of these states has settled: it changes no more (evaluator.signals.job_settled)
TERMINAL_JOB_STATES = (JobState.DONE, JobState.FAILED, JobState.CANCELLED)
# jobs that count against their owner's queue cap
PENDING_JOB_STATES = (JobState.QUEUED, JobState.RUNNING)


class RunnerState(Words):
    ACTIVE = "active"
    DRAINING = "draining"
    DISABLED = "disabled"
    labels = {DRAINING: "draining (finishes current jobs, takes no new ones)"}


class DeviceType(Words):
    CUDA = "cuda"
    CPU = "cpu"
    NPU = "npu"
    MUSA = "musa"
    XPU = "xpu"
    MLU = "mlu"
    labels = {
        CUDA: "cuda (NVIDIA, and AMD/Hygon/Iluvatar/MetaX through CUDA-compatible torch)",
        CPU: "cpu (Triton interpreter)",
        NPU: "npu (Ascend)",
        MUSA: "musa (Moore Threads)",
    }
