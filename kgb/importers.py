"""Runs made elsewhere, as a submission (files + metadata) that `kgb submit` uploads.

- Upstream's LLM track (`scripts/generate_kernel_and_verify.py` output): a folder with
  `pass_at_k_results.json` (its `operator_details[op].generated_codes_by_round` holds each round's code),
  `round_<i>/<ns>::<op>.py` and `args.json` (model, temperature, max_tokens, rounds, reflection). Round i is
  sample i. Upstream's LLM track records no token usage, so none is uploaded: the provenance says
  `tokens: "not recorded"`.
- Agent runs (upstream's `agent_bench/run.py` layout): `workspaces/<op>/` with Claude Code's
  `cc_output.jsonl` or OpenCode's `oc_output.json`, the kernel in `kernels/<op>.py` (or the workspace's
  `kernel.py`, or the last python block of Claude Code's `result` event), and `progress.json` for the wall
  time. Tokens are counted as upstream's `scripts/analyze/analyze_tokens.py` counts them, cache reads
  included:
  - Claude Code: over every `assistant` event, input + output + cache-creation + cache-read tokens. We
    upload prompt = input + cache creation + cache read, cached = cache read, completion = output, so the
    site's total (prompt + completion) is upstream's figure exactly. Like upstream, an assistant message
    logged as several events (one per content block) is counted once per event.
  - OpenCode: the last non-zero `part.tokens.total` of the `step_finish` events (a running total).
    completion = that step's output + reasoning tokens, cached = its cache reads, prompt = total -
    completion, so the total is upstream's figure; the split between the kinds is the last step's.
  Agent logs are the agent's own record: the provenance says `tokens: "agent-log"`, not "metered".
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kgb import CLIENT_NAME, __version__
from kgb.errors import KgbError
from kgb.extract import code_blocks
from kgb.submission import MAX_SAMPLES, MAX_TRANSCRIPT_BYTES, METADATA_SCHEMA, sample_file_name

SOURCES = ("aten", "vllm13", "cublas")


def _catalog() -> set[str]:
    from operators import registry

    return {s.id for s in registry.all_specs()}


def resolve_name(name: str, known: set[str]) -> str | None:
    """An operator id from a folder or file name: `aten::add`, `aten__add` or the bare `add`."""
    if "::" in name and name in known:
        return name
    for source in SOURCES:
        prefix = f"{source}__"
        if name.startswith(prefix) and f"{source}::{name[len(prefix) :]}" in known:
            return f"{source}::{name[len(prefix) :]}"
    matches = [f"{source}::{name}" for source in SOURCES if f"{source}::{name}" in known]
    return matches[0] if len(matches) == 1 else None


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise KgbError(f"{path} is missing") from None
    except (OSError, ValueError) as exc:
        raise KgbError(f"{path} is not valid JSON ({exc})") from None


def _metadata(
    *,
    name: str | None,
    provider: str | None,
    model_name: str | None,
    model_version: str | None,
    chip: str,
    public: bool,
    track: str,
    scaffold: dict[str, str],
    usage: dict[str, Any],
    provenance: dict[str, Any],
) -> dict[str, Any]:
    if not model_name:
        raise KgbError("--model-label is required: the model's name as the site shows it")
    return {
        "schema": METADATA_SCHEMA,
        "name": (name or f"{scaffold['name']} ({model_name})")[:120],
        "model": {"provider": provider or "unknown", "name": model_name, "version": model_version or ""},
        "scaffold": scaffold,
        "track": track,
        "target_chip": chip,
        "public": public,
        "operators": usage,
        "notes": {"kgb": {"client": f"{CLIENT_NAME} {__version__}", **provenance}},
    }


def import_upstream(
    directory: Path,
    *,
    name: str | None,
    provider: str | None,
    model_name: str | None,
    model_version: str | None,
    chip: str,
    public: bool,
) -> tuple[dict[str, str], dict[str, Any]]:
    results = _read_json(directory / "pass_at_k_results.json")
    args_path = directory / "args.json"
    args = _read_json(args_path) if args_path.is_file() else {}
    if not isinstance(results, dict) or not isinstance(results.get("operator_details"), dict):
        raise KgbError(f"{directory / 'pass_at_k_results.json'} has no operator_details: not upstream's pass@k output")
    known = _catalog()
    files: dict[str, str] = {}
    unknown: list[str] = []
    first_pass: dict[str, Any] = {}
    for op_name, detail in sorted(results["operator_details"].items()):
        operator = resolve_name(op_name, known)
        if operator is None:
            unknown.append(op_name)
            continue
        by_round = {int(k): v for k, v in (detail.get("generated_codes_by_round") or {}).items() if str(k).isdigit()}
        for round_dir in sorted(directory.glob("round_*")):
            match = re.fullmatch(r"round_(\d+)", round_dir.name)
            path = round_dir / f"{op_name}.py"
            if match and int(match[1]) not in by_round and path.is_file():
                by_round[int(match[1])] = path.read_text(encoding="utf-8")
        rounds = sorted(by_round)
        if rounds != list(range(len(rounds))):
            raise KgbError(f"{op_name}: rounds {rounds} have a gap; every round up to the last must have its code")
        for index in rounds[:MAX_SAMPLES]:
            code = by_round[index]
            files[sample_file_name(operator, index)] = code if code.strip() else "# empty reply\n"
        first_pass[operator] = detail.get("first_pass_round")
    if unknown:
        raise KgbError(f"operators not in the catalog: {', '.join(unknown[:10])}")
    if not files:
        raise KgbError(f"{directory} holds no generated code")
    rounds_run = len(results.get("rounds_summary") or []) or max(
        1, max((i for i in first_pass.values() if isinstance(i, int)), default=0) + 1
    )
    provenance = {
        "imported_from": "upstream-llm-track",
        "tokens": "not recorded",
        "tokens_note": "upstream's LLM track does not keep the token usage its API calls return",
        "protocol": "rounds",
        "rounds": args.get("max_rounds", rounds_run),
        "reflection": bool(args.get("reflection", False)),
        "generation": {k: args.get(k) for k in ("server_type", "model_name", "temperature", "max_tokens", "dataset")},
        "upstream_pass_rate": results.get("final_pass_rate"),
        "upstream_rounds_summary": results.get("rounds_summary"),
        "first_pass_round": first_pass,
    }
    kind = "one_shot" if provenance["rounds"] == 1 else "pass_at_k"
    metadata = _metadata(
        name=name,
        provider=provider,
        model_name=model_name or args.get("model_name"),
        model_version=model_version,
        chip=chip,
        public=public,
        track="llm",
        scaffold={"name": "upstream-llm-track", "kind": kind, "url": "https://github.com/flagos-ai/KernelGenBench"},
        usage={},
        provenance=provenance,
    )
    return files, metadata


def _jsonl(path: Path) -> list[dict[str, Any]]:
    events = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            line = line.strip()
            if not line:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                events.append(event)
    return events


def _n(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def claude_code_usage(events: list[dict[str, Any]]) -> dict[str, int]:
    prompt = completion = cached = turns = 0
    for event in events:
        if event.get("type") != "assistant":
            continue
        usage = (event.get("message") or {}).get("usage") or {}
        read = _n(usage.get("cache_read_input_tokens"))
        prompt += _n(usage.get("input_tokens")) + _n(usage.get("cache_creation_input_tokens")) + read
        cached += read
        completion += _n(usage.get("output_tokens"))
        turns += 1
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "cached_tokens": cached,
        "reasoning_tokens": 0,
        "turns": turns,
    }


def opencode_usage(events: list[dict[str, Any]]) -> dict[str, int]:
    last: dict[str, Any] = {}
    steps = 0
    for event in events:
        if event.get("type") != "step_finish":
            continue
        steps += 1
        tokens = (event.get("part") or {}).get("tokens") or {}
        if _n(tokens.get("total")):
            last = tokens
    total = _n(last.get("total"))
    reasoning = _n(last.get("reasoning"))
    completion = min(total, _n(last.get("output")) + reasoning)
    prompt = total - completion
    cached = min(prompt, _n((last.get("cache") or {}).get("read")))
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "cached_tokens": cached,
        "reasoning_tokens": min(reasoning, completion),
        "turns": steps,
    }


def _claude_code_kernel(events: list[dict[str, Any]]) -> str | None:
    for event in reversed(events):
        if event.get("type") == "result" and isinstance(event.get("result"), str):
            python = [body for tag, body in code_blocks(event["result"])[0] if tag in ("python", "py")]
            if python:
                return python[-1]
    return None


def import_agent(
    directory: Path,
    *,
    scaffold: str | None,
    name: str | None,
    provider: str | None,
    model_name: str | None,
    model_version: str | None,
    chip: str,
    public: bool,
) -> tuple[dict[str, str], dict[str, Any]]:
    workspaces = directory / "workspaces"
    if not workspaces.is_dir():
        raise KgbError(f"{directory} has no workspaces/ folder: not an agent run")
    progress_path = directory / "progress.json"
    progress = _read_json(progress_path).get("operators", {}) if progress_path.is_file() else {}
    known = _catalog()
    files: dict[str, str] = {}
    usage: dict[str, Any] = {}
    kinds: set[str] = set()
    unknown: list[str] = []
    upstream_totals: dict[str, int] = {}
    for workspace in sorted(p for p in workspaces.iterdir() if p.is_dir()):
        operator = resolve_name(workspace.name, known)
        if operator is None:
            unknown.append(workspace.name)
            continue
        cc, oc = workspace / "cc_output.jsonl", workspace / "oc_output.json"
        kernel = None
        if oc.is_file():
            kinds.add("opencode")
            log = oc
            events = _jsonl(oc)
            counts = opencode_usage(events)
        elif cc.is_file():
            kinds.add("claude-code")
            log = cc
            events = _jsonl(cc)
            counts = claude_code_usage(events)
            kernel = _claude_code_kernel(events)
        else:
            continue
        for candidate in (directory / "kernels" / f"{workspace.name}.py", workspace / "kernel.py"):
            if candidate.is_file():
                kernel = candidate.read_text(encoding="utf-8")
                break
        if not kernel or not kernel.strip():
            kernel = "# the agent left no kernel file\n"
        files[sample_file_name(operator, 0)] = kernel
        entry: dict[str, Any] = dict(counts)
        duration = (progress.get(workspace.name) or progress.get(operator) or {}).get("duration_seconds")
        if isinstance(duration, int | float) and duration >= 0:
            entry["wall_time_s"] = float(duration)
        text = log.read_text(encoding="utf-8", errors="replace")
        if len(text.encode()) <= MAX_TRANSCRIPT_BYTES // 4:  # keep the metadata well under the site's limit
            entry["transcript"] = text
        usage[operator] = entry
        upstream_totals[operator] = counts["prompt_tokens"] + counts["completion_tokens"]
    if unknown:
        raise KgbError(f"workspaces that name no catalog operator: {', '.join(unknown[:10])}")
    if not files:
        raise KgbError(f"{directory / 'workspaces'} holds no cc_output.jsonl or oc_output.json")
    scaffold_name = scaffold or ("+".join(sorted(kinds)) if kinds else "agent")
    provenance = {
        "imported_from": "agent-workspaces",
        "tokens": "agent-log",
        "tokens_note": "counted from the agent's logs as upstream's analyze_tokens.py counts them, cache reads included",
        "agent_logs": sorted(kinds),
        "upstream_token_totals": upstream_totals,
    }
    metadata = _metadata(
        name=name,
        provider=provider,
        model_name=model_name,
        model_version=model_version,
        chip=chip,
        public=public,
        track="agent",
        scaffold={"name": scaffold_name, "kind": "agent"},
        usage=usage,
        provenance=provenance,
    )
    return files, metadata
