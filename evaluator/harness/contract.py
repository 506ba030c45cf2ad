"""The job/result contract, defined once: what a runner is asked to evaluate and what it reports.

Frozen dataclasses for the documents the site, the runner agent, the harness's bundle runner and
the fake harness exchange (docs/harness.md): a `Job` (`kgb.jobs/1` entries and the runner API's
claim answer), the `Result` (`kgb.result/1`) with its `CaseEntry`, `CaseTiming`, `Timing`,
`Finding`, `Environment` and `Isolation`, and the bundles (`JobBundle`, `ResultsBundle`).

`from_dict` checks every key it knows for its type (and a few ranges: no negative time, a known
verdict and tier, a solution whose sha256 is its source's) and raises `ContractError`, naming the
key (`result.cases[3].passed`), on a malformed document. Keys that are absent or null read as
their default; keys the contract does not name are kept in `extra` and written back, so
`to_dict(from_dict(d)) == d` for every document the harness writes. The rest of what makes a
result believable (counts against the catalog, physics, verdict against cases) is the site's
check, evaluator.services.result_checks.

Pure stdlib: runner machines import it with the harness.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import math
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from evaluator.harness import JOBS_SCHEMA, RESULT_SCHEMA, RESULTS_SCHEMA, VERDICTS

TIERS = ("smoke", "full", "edge", "perf")
SEED_KINDS = ("public", "secret")
DEFAULT_TIMEOUT_S = 300


class ContractError(ValueError):
    """A document that does not follow the job/result contract; the message names the key."""


# ---- readers: (value, where) -> the value as stored, or ContractError ------------------------


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ContractError(f"{where} must be a string")
    return value


def _bool(value: Any, where: str) -> bool:
    if type(value) is not bool:
        raise ContractError(f"{where} must be true or false")
    return value


def _count(value: Any, where: str) -> int:
    if type(value) is not int or value < 0:
        raise ContractError(f"{where} must be a non-negative integer")
    return value


def _number(value: Any, where: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ContractError(f"{where} must be a number")
    return value


def _non_negative(value: Any, where: str) -> float | int:
    number = _number(value, where)
    if number < 0:
        raise ContractError(f"{where} must not be negative")
    return number


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
        raise ContractError(f"{where} must be an object")
    return copy.deepcopy(value)


def _choice(*allowed: str) -> Callable[[Any, str], str]:
    def read(value: Any, where: str) -> str:
        if value not in allowed:
            raise ContractError(f"{where} must be one of {', '.join(allowed)}; got {value!r}")
        return value

    return read


def _constant(expected: str) -> Callable[[Any, str], str]:
    def read(value: Any, where: str) -> str:
        if value != expected:
            raise ContractError(f"{where} must be {expected!r}; got {value!r}")
        return value

    return read


def _list(item: Callable[[Any, str], Any]) -> Callable[[Any, str], tuple]:
    def read(value: Any, where: str) -> tuple:
        if not isinstance(value, list | tuple):
            raise ContractError(f"{where} must be a list")
        return tuple(item(entry, f"{where}[{index}]") for index, entry in enumerate(value))

    return read


def _document(cls: type[_D]) -> Callable[[Any, str], _D]:
    return lambda value, where: cls.from_dict(value, where)


def _key(read: Callable[[Any, str], Any], default: Any = None, *, required: bool = False, always: bool = True) -> Any:
    """A field read with `read`. `always`: written even when null (the harness always writes it);
    otherwise written only when set."""
    metadata = {"read": read, "required": required, "always": always}
    if isinstance(default, dict | _Document):
        return dataclasses.field(default_factory=lambda: copy.deepcopy(default), metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def _extra() -> Any:
    return dataclasses.field(default_factory=dict, metadata={"extra": True})


def _key_order() -> Any:
    # the order of the keys read, so a document is written back as it came (not compared)
    return dataclasses.field(default=(), compare=False, repr=False, metadata={"order": True})


def _written(value: Any) -> Any:
    if isinstance(value, _Document):
        return value.to_dict()
    if isinstance(value, tuple):
        return [_written(item) for item in value]
    return copy.deepcopy(value)


_D = TypeVar("_D", bound="_Document")


class _Document:
    """to_dict()/from_dict() from the fields' `_key` metadata, in field order, `extra` last."""

    WHERE = "document"

    @classmethod
    def from_dict(cls: type[_D], document: Any, where: str | None = None) -> _D:
        where = where or cls.WHERE
        if not isinstance(document, dict):
            raise ContractError(f"{where} must be an object")
        values: dict[str, Any] = {}
        known = set()
        for field in dataclasses.fields(cls):
            if field.metadata.get("extra") or field.metadata.get("order"):
                continue
            known.add(field.name)
            value = document.get(field.name)
            if value is None:
                if field.metadata["required"]:
                    raise ContractError(f"{where}.{field.name} is required")
                continue
            values[field.name] = field.metadata["read"](value, f"{where}.{field.name}")
        if any(field.metadata.get("extra") for field in dataclasses.fields(cls)):
            values["extra"] = {key: copy.deepcopy(value) for key, value in document.items() if key not in known}
            values["key_order"] = tuple(document)
        made = cls(**values)
        made.check(where)
        return made

    def check(self, where: str) -> None:
        """Rules across fields (none by default)."""

    def to_dict(self) -> dict[str, Any]:
        written: dict[str, Any] = {}
        extra: Mapping[str, Any] = {}
        order: tuple[str, ...] = ()
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, field.name)
            if field.metadata.get("extra"):
                extra = value
            elif field.metadata.get("order"):
                order = value
            elif value is not None or field.metadata["always"]:
                written[field.name] = _written(value)
        for key, value in extra.items():
            written.setdefault(key, copy.deepcopy(value))
        if order:
            written = {key: written[key] for key in (*order, *written) if key in written}
        return written


# ---- the result (kgb.result/1) -------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Finding(_Document):
    """What an anti-cheat layer saw (`static`, `trace`, `launch`, `ghost`, `physics`)."""

    WHERE = "finding"
    layer: str = _key(_str, required=True)
    detail: str = _key(_str, required=True)
    extra: Mapping[str, Any] = _extra()
    key_order: tuple[str, ...] = _key_order()


@dataclasses.dataclass(frozen=True)
class CaseTiming(_Document):
    """One timed case: the candidate's and the baseline's medians, speedup, physical floor, %SOL."""

    WHERE = "timing"
    candidate_median_us: float | None = _key(_non_negative)
    candidate_iqr_us: float | None = _key(_non_negative)
    samples: int | None = _key(_count)
    baseline_median_us: float | None = _key(_non_negative)
    baseline_iqr_us: float | None = _key(_non_negative)
    baseline_samples: int | None = _key(_count)
    baseline_method: str | None = _key(_str)
    speedup: float | None = _key(_non_negative)
    method: str | None = _key(_str)
    input_sets: int | None = _key(_count)
    floor_us: float | None = _key(_non_negative)
    sol_pct: float | None = _key(_non_negative)
    warm_s: float | None = _key(_non_negative)
    measured_by: str | None = _key(_str)  # "replay" (replay.py) or "candidate_process"
    note: str | None = _key(_str)
    extra: Mapping[str, Any] = _extra()
    key_order: tuple[str, ...] = _key_order()


@dataclasses.dataclass(frozen=True)
class Timing(_Document):
    """A timed tier's summary: geometric means over its cases (samples: the total)."""

    WHERE = "timing"
    candidate_median_us: float | None = _key(_non_negative)
    candidate_iqr_us: float | None = _key(_non_negative)
    samples: int | None = _key(_count)
    baseline_median_us: float | None = _key(_non_negative)
    baseline_kind: str | None = _key(_str)
    speedup: float | None = _key(_non_negative)
    method: str | None = _key(_str)
    measured_by: str | None = _key(_str)  # "replay" when every case was, else "candidate_process"
    extra: Mapping[str, Any] = _extra()
    key_order: tuple[str, ...] = _key_order()


@dataclasses.dataclass(frozen=True)
class CaseEntry(_Document):
    """One case reached: its parameters, whether it passed, the worst errors, why it failed; `tier`
    is "perf" for the perf cases after a full tier, `hidden` marks a held-out case."""

    WHERE = "case"
    params: Mapping[str, Any] | None = _key(_object)
    passed: bool | None = _key(_bool)
    max_abs_err: float | None = _key(_number)
    max_rel_err: float | None = _key(_number)
    reason: str = _key(_str, "")
    tier: str | None = _key(_choice(*TIERS), always=False)
    timing: CaseTiming | None = _key(_document(CaseTiming), always=False)
    hidden: bool | None = _key(_bool, always=False)
    extra: Mapping[str, Any] = _extra()
    key_order: tuple[str, ...] = _key_order()


@dataclasses.dataclass(frozen=True)
class Isolation(_Document):
    """The candidate's sandbox as the parent read it from /proc; only `complete` results rank."""

    WHERE = "isolation"
    sandbox: str | None = _key(_str, always=False)
    uid: int | None = _key(_count, always=False)
    missing: tuple[str, ...] | None = _key(_list(_str), always=False)
    complete: bool | None = _key(_bool, always=False)
    extra: Mapping[str, Any] = _extra()
    key_order: tuple[str, ...] = _key_order()


@dataclasses.dataclass(frozen=True)
class Environment(_Document):
    """Where the result was produced: chip, device, versions, the timing protocol, the isolation."""

    WHERE = "environment"
    chip: str | None = _key(_str, always=False)
    device_type: str | None = _key(_str, always=False)
    device_name: str | None = _key(_str, always=False)
    driver: str | None = _key(_str, always=False)
    torch: str | None = _key(_str, always=False)
    triton: str | None = _key(_str, always=False)
    python: str | None = _key(_str, always=False)
    harness_version: str | None = _key(_str, always=False)
    isolation: Isolation | None = _key(_document(Isolation))  # null until a candidate process ran
    l2_flush: str | None = _key(_str, always=False)
    timing_clock: str | None = _key(_str, always=False)
    extra: Mapping[str, Any] = _extra()
    key_order: tuple[str, ...] = _key_order()


@dataclasses.dataclass(frozen=True)
class Result(_Document):
    """The harness's verdict on one attempt (schema kgb.result/1)."""

    WHERE = "result"
    schema: str = _key(_constant(RESULT_SCHEMA), RESULT_SCHEMA)
    verdict: str = _key(_choice(*VERDICTS), required=True)
    reason: str = _key(_str, "")
    operator: str | None = _key(_str)
    tier: str | None = _key(_choice(*TIERS))
    seed_kind: str | None = _key(_choice(*SEED_KINDS))
    cases: tuple[CaseEntry, ...] = _key(_list(_document(CaseEntry)), ())
    timing: Timing | None = _key(_document(Timing))
    sol_pct: float | None = _key(_non_negative)
    findings: tuple[Finding, ...] = _key(_list(_document(Finding)), ())
    environment: Environment = _key(_document(Environment), Environment())
    stderr_tail: str = _key(_str, "")
    duration_s: float | None = _key(_non_negative)
    # written as the harness adds them
    seed: int | None = _key(_count, always=False)
    cases_skipped: int | None = _key(_count, always=False)
    profile: Mapping[str, Any] | None = _key(_object, always=False)
    hidden_cases: int | None = _key(_count, always=False)
    extra: Mapping[str, Any] = _extra()
    key_order: tuple[str, ...] = _key_order()

    def check(self, where: str) -> None:
        if self.seed_kind == "secret" and self.seed is not None:
            raise ContractError(f"{where}.seed must not be written on a secret-seed run")


# ---- the job (what a runner is asked to evaluate) ---------------------------------------------


@dataclasses.dataclass(frozen=True)
class Solution(_Document):
    WHERE = "solution"
    source: str = _key(_str, required=True)
    sha256: str = _key(_str, required=True)
    file_name: str | None = _key(_str)

    def check(self, where: str) -> None:
        if hashlib.sha256(self.source.encode("utf-8", "surrogatepass")).hexdigest() != self.sha256:
            raise ContractError(f"{where}.sha256 does not match its source")

    def to_dict(self) -> dict[str, Any]:  # the order the site has always written
        return {"file_name": self.file_name, "source": self.source, "sha256": self.sha256}


def _timeout(value: Any, where: str) -> float | int:
    number = _number(value, where)
    try:
        finite = math.isfinite(number)
    except OverflowError:  # an int beyond the float range
        finite = False
    if not (finite and number > 0):
        raise ContractError(f"{where} must be a positive number of seconds")
    return number


@dataclasses.dataclass(frozen=True)
class Job(_Document):
    """One evaluation a runner is asked for. The seed is secret on held-out jobs (the harness keeps
    it from the candidate); `hidden_cases` (held-out full-tier jobs) reach only the trusted side;
    `ceilings` are the chip's, as the site ranks %SOL and the physics floor with them."""

    WHERE = "job"
    job_id: str = _key(_str, required=True)
    operator: str = _key(_str, required=True)
    tier: str = _key(_choice(*TIERS), required=True)
    seed: int | None = _key(_count)
    secret_seed: bool = _key(_bool, False)
    timeout_s: float = _key(_timeout, DEFAULT_TIMEOUT_S)
    solution: Solution = _key(_document(Solution), required=True)
    ceilings: Mapping[str, Any] | None = _key(_object)  # null: the harness's own defaults
    hidden_cases: tuple[Mapping[str, Any], ...] | None = _key(_list(_object), always=False)

    def check(self, where: str) -> None:
        if not self.job_id:
            raise ContractError(f"{where}.job_id must not be empty")


# ---- bundles (air-gapped runners) -----------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class JobBundle(_Document):
    """`kgb.jobs/1`: a chip's queued jobs, for `python -m evaluator bundle run`."""

    WHERE = "bundle"
    schema: str = _key(_constant(JOBS_SCHEMA), JOBS_SCHEMA, required=True)
    chip: str | None = _key(_str)
    timing_protocol: str | None = _key(_str, always=False)  # FLUSH:CLOCK; absent: the harness default
    ceilings: Mapping[str, Any] | None = _key(_object)
    jobs: tuple[Job, ...] = _key(_list(_document(Job)), (), required=True)

    @classmethod
    def envelope(cls, document: Any) -> tuple[JobBundle, list[Any]]:
        """The bundle checked without its jobs, and the job entries as they are: a runner reads
        each with Job.from_dict, so one malformed job fails alone."""
        entries = document.get("jobs") if isinstance(document, dict) else None
        if not isinstance(entries, list):
            entries = None  # reported by from_dict below
        bundle = cls.from_dict({**document, "jobs": []} if entries is not None else document)
        return bundle, list(entries or [])


@dataclasses.dataclass(frozen=True)
class ResultItem(_Document):
    """One job's outcome in a results bundle: its result, or (`error`) why the runner produced none."""

    WHERE = "item"
    job_id: str = _key(_str, required=True)
    result: Result | None = None
    error: str | None = None

    @classmethod
    def from_dict(cls, document: Any, where: str | None = None) -> ResultItem:
        return cls.read(document, where or cls.WHERE, Result.from_dict)

    @classmethod
    def read(cls, document: Any, where: str, read_result: Callable[[Any, str], Result]) -> ResultItem:
        if not isinstance(document, dict):
            raise ContractError(f"{where} must be an object with job_id and result")
        job_id = _str(document.get("job_id"), f"{where}.job_id")
        raw = document.get("result")
        if not isinstance(raw, dict):
            raise ContractError(f"{where}.result must be an object")
        if raw.get("verdict") is None and isinstance(raw.get("error"), str) and raw["error"]:
            return cls(job_id=job_id, error=raw["error"])
        return cls(job_id=job_id, result=read_result(raw, where))  # named as the site has always named it

    def to_dict(self) -> dict[str, Any]:
        result = self.result.to_dict() if self.result is not None else {"error": self.error}
        return {"job_id": self.job_id, "result": result}


@dataclasses.dataclass(frozen=True)
class ResultsBundle(_Document):
    """`kgb.results/1`: the results of a job bundle, signed with the runner's key (signing.py);
    the signature covers the document as written, so check it before reading the document."""

    WHERE = "bundle"
    schema: str = _key(_constant(RESULTS_SCHEMA), RESULTS_SCHEMA, required=True)
    chip: str | None = _key(_str)
    environment: Environment = _key(_document(Environment), Environment())
    results: tuple[ResultItem, ...] = _key(_list(_document(ResultItem)), (), required=True)
    signature: Mapping[str, Any] | None = _key(_object)

    @classmethod
    def read(cls, document: Any, read_result: Callable[[Any, str], Result] = Result.from_dict) -> ResultsBundle:
        """The bundle with each result read by `read_result` (the site adds its size limits)."""
        entries = document.get("results") if isinstance(document, dict) else None
        if not isinstance(entries, list):
            return cls.from_dict(document)  # the error names `results`
        bundle = cls.from_dict({**document, "results": []})
        items = tuple(ResultItem.read(item, f"results[{index}]", read_result) for index, item in enumerate(entries))
        return dataclasses.replace(bundle, results=items)
