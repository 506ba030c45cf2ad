"""Hidden cases of held-out runs: extra `full`-tier correctness cases that live outside the public
catalog (the site operator's private file), so a solution cannot be tuned to them.

They run last, in a fresh candidate process of their own (evaluate.Attempt._run_hidden) that
never saw the public run and whose only published output is pass/fail per hidden case: a hidden
case's entry shows `HIDDEN_PARAMS` instead of its parameters, and nothing the candidate could have
shaped from those inputs (error texts, error sizes, findings, its output) is reported. The public
run's child never sees a hidden input, so its output can be published as usual.
Pure Python (no torch import here): the site validates its file with the same functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

HIDDEN_TIER = "full"  # hidden cases extend this tier, and take the keys of its cases
HIDDEN_PARAMS = {"hidden": True}
HIDDEN_CASE_REASON = "failed (a hidden case: its parameters and errors are not shown)"
HIDDEN_FAILURE = "a check failed while the hidden cases were evaluated (details are not shown)"


class HiddenCase(dict):
    """A case dict that `result.jsonable` writes as `HIDDEN_PARAMS`: the marker by which the
    evaluation appends hidden cases to a tier's cases without any other change to its flow."""


def key_sets(cases: Sequence[dict[str, Any]]) -> list[frozenset[str]]:
    """The distinct key sets of a tier's cases (one operator's cases may have optional keys)."""
    found: list[frozenset[str]] = []
    for case in cases:
        keys = frozenset(case)
        if keys not in found:
            found.append(keys)
    return found


def case_key_problems(operator_id: str, full_cases: Sequence[dict[str, Any]], cases: Any) -> list[str]:
    """Why `cases` cannot be hidden cases of an operator whose `full` tier is `full_cases`; empty when
    they can. Only key names are quoted, never values, so the messages may be shown anywhere."""
    if not isinstance(cases, list):
        return [f"{operator_id}: the hidden cases must be a list of case objects"]
    allowed = key_sets(full_cases)
    if not allowed:
        return [f"{operator_id}: the operator has no {HIDDEN_TIER} tier to extend"]
    problems = []
    for index, case in enumerate(cases):
        if not isinstance(case, dict) or not all(isinstance(key, str) for key in case):
            problems.append(f"{operator_id} case {index}: not an object with string keys")
            continue
        keys = frozenset(case)
        if keys not in allowed:
            expected = " or ".join("[" + ", ".join(sorted(option)) + "]" for option in allowed)
            problems.append(
                f"{operator_id} case {index}: keys [{', '.join(sorted(keys))}] differ from the "
                f"{HIDDEN_TIER}-tier case keys {expected}"
            )
    return problems


def _is_hidden(entry: dict[str, Any]) -> bool:
    return entry.get("params") == HIDDEN_PARAMS


def redact(result: dict[str, Any]) -> None:
    """Make a result document safe to publish after hidden cases were evaluated (in place), and
    record how many were: `hidden_cases`. Hidden entries get `"hidden": true`, no error sizes and,
    when failed, a fixed reason (the verdict's reason is fixed by the evaluation itself)."""
    cases = result.get("cases") or []
    hidden = [entry for entry in cases if _is_hidden(entry)]
    result["hidden_cases"] = len(hidden)
    for entry in hidden:
        entry.update(hidden=True, max_abs_err=None, max_rel_err=None)
        entry.pop("timing", None)
        if not entry.get("passed"):
            entry["reason"] = HIDDEN_CASE_REASON
