"""What the model is sent: the operator's prompt (a named, versioned prompt set) and, for a reflection
round, the fix request built from the verifier's feedback.

Prompt set `kgb/1` is the catalog's prompt (operators/prompts.py, the same text the site shows on each
operator page) for a chip family. A fix request follows upstream's reflection (its `build_fix`): one
fresh user message that repeats the task, shows the previous code and what the verifier reported
(verdict, reason, the failing cases with their parameters and errors, anti-cheat findings, the
candidate's stderr), and asks for the complete corrected file. It is not a growing conversation, so a
round costs about as much as the first.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from kgb.errors import KgbError

PROMPT_SETS = {"kgb/1": "the catalog prompt (operators/prompts.py) for the run's chip family"}
DEFAULT_PROMPT_SET = "kgb/1"
MAX_FAILED_CASES = 5
MAX_STDERR_CHARS = 2000


def check_prompt_set(name: str) -> str:
    if name not in PROMPT_SETS:
        raise KgbError(f"unknown prompt set {name!r}; known: {', '.join(sorted(PROMPT_SETS))}")
    return name


def operator_prompt(operator_id: str, *, prompt_set: str, chip_family: str) -> str:
    from operators import registry
    from operators.prompts import render_prompt

    check_prompt_set(prompt_set)
    try:
        return render_prompt(registry.get(operator_id), chip_family)
    except registry.UnknownOperator as exc:
        raise KgbError(str(exc)) from None
    except ValueError as exc:  # unknown chip family
        raise KgbError(str(exc)) from None


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def feedback_text(result: dict[str, Any]) -> str:
    """The verifier's findings on one attempt, as the model reads them."""
    lines = [f"Verdict: {result.get('verdict', 'unknown')}"]
    if result.get("reason"):
        lines.append(f"Reason: {result['reason']}")
    cases = result.get("cases") or []
    failed = [c for c in cases if not c.get("passed")]
    if cases:
        lines.append(f"Cases: {len(cases) - len(failed)} of {len(cases)} passed.")
    for case in failed[:MAX_FAILED_CASES]:
        params = json.dumps(case.get("params", {}), sort_keys=True)
        detail = case.get("reason") or ""
        errors = ", ".join(
            f"{key}={case[key]:.3g}" for key in ("max_abs_err", "max_rel_err") if isinstance(case.get(key), float)
        )
        lines.append(f"- failing case {params}: {detail}" + (f" ({errors})" if errors else ""))
    if len(failed) > MAX_FAILED_CASES:
        lines.append(f"- ... and {len(failed) - MAX_FAILED_CASES} more failing cases")
    for finding in (result.get("findings") or [])[:5]:
        lines.append(f"- anti-cheat finding [{finding.get('layer')}]: {finding.get('detail')}")
    stderr = (result.get("stderr_tail") or "").strip()
    if stderr:
        lines.append("Standard error of your code (last lines):\n```\n" + stderr[-MAX_STDERR_CHARS:] + "\n```")
    return "\n".join(lines)


def fix_prompt(
    task_prompt: str, previous_code: str | None, previous_problem: str, result: dict[str, Any] | None
) -> str:
    """The reflection round's single user message."""
    if previous_code is None:
        attempt = f"Your previous reply contained no usable code ({previous_problem})."
        feedback = "Reply with the complete file in one ```python ... ``` code block."
    else:
        attempt = f"Your previous attempt:\n```python\n{previous_code.rstrip()}\n```"
        feedback = "The verifier reported:\n" + (feedback_text(result) if result else "no result")
    return (
        f"{task_prompt.rstrip()}\n\n## Previous attempt and verifier feedback\n{attempt}\n\n{feedback}\n\n"
        "Fix the problems and reply with the complete corrected file in one ```python ... ``` code block."
    )
