"""What an upload says of the run that made it, read from its `notes.kgb` (written by `kgb submit` and
`kgb import`, docs/client.md): where its token counts come from, how many verifier calls the client made and
the client's run id (the tag of its test-mode checks). Anything else, or nothing, is self-reported.
Pure Python: the upload's metadata in, plain values out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from leaderboard.vocabulary import TokenSource

RUN_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")  # what test mode accepts as a run label


@dataclass(frozen=True)
class RunProvenance:
    token_source: str
    verify_calls_reported: int | None  # as the client counted them (local harness or the site's test mode)
    run_id: str  # "" when the upload names none


def run_provenance(extra: dict[str, Any]) -> RunProvenance:
    """`extra`: the upload's metadata beyond the schema's fields (`notes`, `links`)."""
    notes = extra.get("notes")
    kgb = notes.get("kgb") if isinstance(notes, dict) else None
    if not isinstance(kgb, dict):
        return RunProvenance(TokenSource.SELF_REPORTED, None, "")
    source = kgb.get("tokens")
    calls = kgb.get("verify_calls")
    run_id = kgb.get("run_id")
    return RunProvenance(
        token_source=source if source in TokenSource.values else TokenSource.SELF_REPORTED,
        verify_calls_reported=calls if type(calls) is int and 0 <= calls < 2**31 else None,
        run_id=run_id if isinstance(run_id, str) and RUN_ID.fullmatch(run_id) else "",
    )
