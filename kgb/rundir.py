"""RUN_DIR: everything a run did, on disk, so it can be resumed, audited and submitted.

    RUN_DIR/
      run.json                      settings (the protocol, the model, the verifier) and what may change on resume
      attempts.jsonl                append-only event log, one JSON object per line (fsynced):
                                    "generated" (one API reply: usage, model id, timing, code), "verified"
                                    (the verifier's verdict on it), "api_error" (a call that produced no reply;
                                    not a sample), "session" (a start or end of `kgb generate`, with its reason)
      kernels/<ns>__<op>/<k>.py     the code extracted from sample k (absent when the reply had none)
      transcripts/<ns>__<op>/<k>.json   the messages sent, the full reply, the retried errors
      results/<ns>__<op>/<k>.json   the verifier's result document for sample k
      summary.json                  pass@k, tokens and cost per operator source, rewritten at the end of a session

A sample index k is given when its reply arrives: in the rounds protocol k is the round, in the
samples protocol the k-th independent sample. A crash can cost at most the replies in flight; a reply
recorded but not yet verified is verified on resume without asking the model again. A torn last line
(the process died mid-write) is ignored.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kgb import RUN_SCHEMA
from kgb.errors import KgbError

# settings that define what was measured: a resumed run must use the same values
PROTOCOL_KEYS = (
    "api",
    "base_url",
    "model",
    "mode",
    "reflection",
    "temperature",
    "max_tokens",
    "max_tokens_param",
    "extra_body",
    "prompt_set",
    "chip_family",
    "extract",
    "operators",
    "verify",
)
# may grow on resume (pass@5 continued to pass@10), never shrink
GROWABLE_KEYS = ("rounds", "samples")


def file_stem(operator_id: str) -> str:
    namespace, name = operator_id.split("::", 1)
    return f"{namespace}__{name}"


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclasses.dataclass
class SampleState:
    index: int
    generated: dict[str, Any] | None = None
    verified: dict[str, Any] | None = None

    @property
    def correct(self) -> bool:
        return bool(self.verified and self.verified.get("verdict") == "correct")


class RunDir:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.events_path = self.path / "attempts.jsonl"
        self.settings_path = self.path / "run.json"
        self._lock = threading.Lock()
        self._lock_file: Any = None

    # -- settings --------------------------------------------------------------------------------
    def exists(self) -> bool:
        return self.settings_path.is_file()

    def read_settings(self) -> dict[str, Any]:
        try:
            settings = json.loads(self.settings_path.read_text())
        except FileNotFoundError:
            raise KgbError(f"{self.path} is not a kgb run directory (no run.json)") from None
        except ValueError as exc:
            raise KgbError(f"{self.settings_path} is not valid JSON ({exc})") from None
        if not isinstance(settings, dict) or settings.get("schema") != RUN_SCHEMA:
            raise KgbError(f"{self.settings_path} is not a {RUN_SCHEMA} settings file")
        return settings

    def write_settings(self, settings: dict[str, Any]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        temporary = self.settings_path.with_suffix(".json.tmp")
        temporary.write_text(json.dumps(settings, indent=2, sort_keys=True) + "\n")
        os.replace(temporary, self.settings_path)

    @staticmethod
    def conflicts(stored: dict[str, Any], requested: dict[str, Any]) -> list[str]:
        problems = []
        for key in PROTOCOL_KEYS:
            if stored.get(key) != requested.get(key):
                problems.append(f"{key}: the run has {stored.get(key)!r}, this command asks for {requested.get(key)!r}")
        for key in GROWABLE_KEYS:
            if (requested.get(key) or 0) < (stored.get(key) or 0):
                problems.append(f"{key} can grow on resume but not shrink ({stored.get(key)} -> {requested.get(key)})")
        return problems

    # -- the exclusive lock: one `kgb generate` per run directory ----------------------------------
    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        self.path.mkdir(parents=True, exist_ok=True)
        handle = open(self.path / ".lock", "w")  # held for the whole session
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise KgbError(f"another kgb process is working on {self.path}") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()

    # -- events ------------------------------------------------------------------------------------
    def append(self, event: dict[str, Any]) -> None:
        line = json.dumps({"at": now_iso(), **event}, sort_keys=True) + "\n"
        with self._lock, open(self.events_path, "a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())

    def events(self) -> list[dict[str, Any]]:
        if not self.events_path.is_file():
            return []
        events = []
        with open(self.events_path, encoding="utf-8") as handle:
            for line in handle:
                line = line.strip()
                if not line:
                    continue
                try:
                    event = json.loads(line)
                except ValueError:
                    continue  # a torn last line from a killed process
                if isinstance(event, dict):
                    events.append(event)
        return events

    def samples(self) -> dict[str, list[SampleState]]:
        """operator -> its samples in index order, from the event log."""
        states: dict[str, dict[int, SampleState]] = {}
        for event in self.events():
            kind = event.get("event")
            if kind not in ("generated", "verified"):
                continue
            operator, index = event.get("operator"), event.get("sample")
            if not isinstance(operator, str) or not isinstance(index, int):
                continue
            state = states.setdefault(operator, {}).setdefault(index, SampleState(index))
            if kind == "generated":
                state.generated = event
            else:
                state.verified = event
        return {op: [by_index[i] for i in sorted(by_index)] for op, by_index in states.items()}

    # -- files -------------------------------------------------------------------------------------
    def artefact(self, kind: str, operator_id: str, index: int, suffix: str) -> Path:
        return self.path / kind / file_stem(operator_id) / f"{index}{suffix}"

    def write_artefact(self, kind: str, operator_id: str, index: int, suffix: str, text: str) -> str:
        path = self.artefact(kind, operator_id, index, suffix)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
        return str(path.relative_to(self.path))

    def read_json(self, relative: str) -> dict[str, Any] | None:
        try:
            value = json.loads((self.path / relative).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def read_text(self, relative: str | None) -> str | None:
        if not relative:
            return None
        try:
            return (self.path / relative).read_text(encoding="utf-8")
        except OSError:
            return None
