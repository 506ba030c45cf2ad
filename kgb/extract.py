"""The kernel file out of a model's reply.

Upstream's LLM track keeps the first fenced code block of the reply; that is our default rule
("first"). A block tagged python/py is preferred over an untagged one; "last" and "longest" are the
alternatives a run may choose (recorded in its settings). A reply with an opening fence and no closing
one was cut off (usually at max_tokens): it yields no code, with the reason "truncated", rather than
half a file.
"""

from __future__ import annotations

import dataclasses
import re

RULES = ("first", "last", "longest")
_FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([A-Za-z0-9_+.-]*)[^\n]*$", re.MULTILINE)
_PYTHON_TAGS = {"python", "py", "python3"}


@dataclasses.dataclass(frozen=True)
class Extraction:
    code: str | None
    problem: str  # "" when code was found; else "no code block", "truncated", "empty code block"
    blocks: int  # closed code blocks seen


def code_blocks(text: str) -> tuple[list[tuple[str, str]], bool]:
    """(language tag, body) of every closed fenced block, and whether a fence was left open."""
    blocks: list[tuple[str, str]] = []
    position = 0
    while True:
        opening = _FENCE.search(text, position)
        if not opening:
            return blocks, False
        fence, tag = opening.group(1), opening.group(2).lower()
        closing_re = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.MULTILINE)
        closing = closing_re.search(text, opening.end())
        if not closing:
            return blocks, True
        body = text[opening.end() + 1 : closing.start()] if opening.end() < len(text) else ""
        blocks.append((tag, body))
        position = closing.end()


def extract_code(text: str, rule: str = "first") -> Extraction:
    if rule not in RULES:
        raise ValueError(f"unknown extraction rule {rule!r}; known: {', '.join(RULES)}")
    blocks, left_open = code_blocks(text or "")
    python = [body for tag, body in blocks if tag in _PYTHON_TAGS]
    candidates = python or [body for tag, body in blocks if tag == ""] or [body for _, body in blocks]
    if not candidates:
        return Extraction(None, "truncated" if left_open else "no code block", len(blocks))
    if rule == "first":
        code = candidates[0]
    elif rule == "last":
        code = candidates[-1]
    else:
        code = max(candidates, key=len)
    if not code.strip():
        return Extraction(None, "empty code block", len(blocks))
    return Extraction(code if code.endswith("\n") else code + "\n", "", len(blocks))
