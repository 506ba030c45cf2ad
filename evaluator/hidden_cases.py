"""The site operator's hidden cases for held-out runs (KGB_HIDDEN_CASES_FILE).

The catalog is public, so the extra cases that keep ranked solutions from being tuned to the public
ones live in a private JSON file, `{"<operator id>": [case, ...]}`, each case in exactly the format
of that operator's `full`-tier cases. Held-out `full` jobs carry their operator's hidden cases to
the runner's trusted harness (evaluator.services.job_payload); public jobs never do. No setting:
the feature is off.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import torch
from django.conf import settings

from evaluator.harness.hidden import HIDDEN_TIER, case_key_problems
from operators import registry
from operators.spec import OperatorSpec, Rng

HiddenCases = dict[str, list[dict[str, Any]]]
# check_hidden_cases builds inputs only for cases up to this many input bytes (keys are checked for all)
DEFAULT_BUILD_LIMIT_BYTES = 256 << 20


class HiddenCasesFileError(Exception):
    """The configured file cannot be used; the message lists every problem (key names, never values)."""


def parse(text: str) -> HiddenCases:
    """The file's cases, checked for shape, known operators and full-tier keys."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise HiddenCasesFileError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise HiddenCasesFileError('the file must hold one object: {"<operator id>": [case, ...]}')
    problems = []
    for operator_id, cases in data.items():
        try:
            spec = registry.get(operator_id)
        except registry.UnknownOperator:
            problems.append(f"unknown operator {operator_id!r}")
            continue
        problems.extend(case_key_problems(operator_id, spec.tier(HIDDEN_TIER), cases))
    if problems:
        raise HiddenCasesFileError("; ".join(problems))
    return data


def read(path: str) -> HiddenCases:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise HiddenCasesFileError(f"cannot read {path}: {exc}") from None
    return parse(text)


_cache: dict[str, tuple[tuple[int, int], HiddenCases]] = {}


def configured() -> HiddenCases:
    """The configured file's cases (empty when the setting is blank), re-read when the file changes."""
    path = settings.KGB_HIDDEN_CASES_FILE
    if not path:
        return {}
    try:
        stat = os.stat(path)
    except OSError as exc:
        raise HiddenCasesFileError(f"cannot read {path}: {exc}") from None
    version = (stat.st_mtime_ns, stat.st_size)
    cached = _cache.get(path)
    if cached is None or cached[0] != version:
        _cache[path] = (version, read(path))
    return _cache[path][1]


def cases_for(operator_id: str) -> list[dict[str, Any]]:
    return configured().get(operator_id, [])


def _nbytes(value: Any) -> int:
    if isinstance(value, torch.Tensor):
        return value.untyped_storage().nbytes()
    if isinstance(value, dict):
        return sum(_nbytes(item) for item in value.values())
    if isinstance(value, list | tuple):
        return sum(_nbytes(item) for item in value)
    return 0


def input_bytes(spec: OperatorSpec, case: dict[str, Any]) -> int | None:
    """The bytes of a case's inputs, found by building them with fake tensors (no memory, no data);
    None when that build fails (a build that reads tensor values, or a bad case: the real build says)."""
    from torch._subclasses.fake_tensor import FakeTensorMode  # heavy, and only this command needs it

    try:
        with FakeTensorMode():
            return _nbytes(spec.make_inputs(case, Rng(0, "cpu")))
    except Exception:  # any failure here is for the real build to explain
        return None


@dataclass
class FileCheck:
    problems: list[str]
    cases: int = 0
    built: int = 0
    not_built: int = 0


def check_file(path: str, *, build_limit_bytes: int = DEFAULT_BUILD_LIMIT_BYTES) -> FileCheck:
    """Everything `parse` checks, then each case's inputs built on the CPU with Rng(0, "cpu"),
    except cases whose inputs take more than `build_limit_bytes` (their keys are still checked)."""
    try:
        cases = read(path)
    except HiddenCasesFileError as exc:
        return FileCheck(problems=[str(exc)])
    check = FileCheck(problems=[])
    for operator_id, operator_cases in cases.items():
        spec = registry.get(operator_id)
        for index, case in enumerate(operator_cases):
            check.cases += 1
            size = input_bytes(spec, case)
            if size is not None and size > build_limit_bytes:
                check.not_built += 1
                continue
            try:
                spec.make_inputs(case, Rng(0, "cpu"))
            except Exception as exc:  # any failure to build is the case's fault: report it and go on
                check.problems.append(
                    f"{operator_id} case {index}: inputs cannot be built: {type(exc).__name__}: {exc}"
                )
            else:
                check.built += 1
    return check
