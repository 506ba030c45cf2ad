"""Hidden cases of held-out runs: extra `full`-tier correctness cases that live outside the public
catalog (the site operator's private file), so a solution cannot be tuned to them.

The candidate process only ever sees their inputs. The result must not describe them either: a
hidden case's entry shows `HIDDEN_PARAMS` instead of its parameters, and nothing the candidate
could have shaped from those inputs (error texts, error sizes, its own output) is reported.
Pure Python (no torch import here): the site validates its file with the same functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

HIDDEN_TIER = "full"  # hidden cases extend this tier, and take the keys of its cases
HIDDEN_PARAMS = {"hidden": True}
HIDDEN_CASE_REASON = "failed (a hidden case: its parameters and errors are not shown)"
WITHHELD_OUTPUT = "(withheld: the candidate process saw the inputs of hidden cases)"
ERROR_VERDICTS = ("compile_error", "runtime_error", "timeout")


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
    when failed, a fixed reason; a verdict reason that came from a hidden case is replaced; the
    candidate's output is withheld, since the candidate could have printed what it was given."""
    cases = result.get("cases") or []
    hidden = [entry for entry in cases if _is_hidden(entry)]
    result["hidden_cases"] = len(hidden)
    if not hidden:
        return
    for entry in hidden:
        entry.update(hidden=True, max_abs_err=None, max_rel_err=None)
        if not entry.get("passed"):
            entry["reason"] = HIDDEN_CASE_REASON
    result["stderr_tail"] = WITHHELD_OUTPUT
    verdict, reason = result.get("verdict"), str(result.get("reason", ""))
    # the evaluation names a case by its params, so a hidden case shows up as HIDDEN_PARAMS in
    # the reason; an error verdict reached on a hidden case is about that case whatever its text
    decided_by_hidden = repr(HIDDEN_PARAMS) in reason or (verdict in ERROR_VERDICTS and _is_hidden(cases[-1]))
    if not decided_by_hidden:
        return
    if verdict == "incorrect":
        failed = sum(1 for entry in cases if not entry.get("passed"))
        result["reason"] = f"{failed} of {len(cases)} cases failed, hidden cases among them ({HIDDEN_CASE_REASON})"
    else:
        result["reason"] = f"{verdict} once hidden cases were being checked (details are not shown)"
