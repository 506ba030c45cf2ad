"""`kgb submit`: upload a run (or a directory of solution files) to the site.

A kgb run directory becomes the submission format of docs/submission_format.md: sample k of an operator
is `<ns>__<op>.py` (k = 0) or `<ns>__<op>.<k>.py`; each sample's usage object carries the four token counts
the API returned, `turns` = 1 (one request), `wall_time_s` (the request's wall time, retries included) and,
while the metadata stays under the site's limit, the transcript. A sample whose reply held no code is
uploaded as a one-line comment file, so its tokens count and it is judged (missing_entrypoint) like any
failure. The provenance that the metadata schema has no field for yet goes under `notes.kgb`: client and
version, `tokens: "metered"`, the protocol and generation settings, the model ids the server reported,
the local verdicts and the number of verify calls, and per attempt the raw usage, response id, finish
reason and retries.

A plain directory (`*.py` + `metadata.json`, the old `python -m leaderboard.cli submit` input) is uploaded
as it is.
"""

from __future__ import annotations

import io
import json
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import requests

from kgb import CLIENT_NAME, __version__
from kgb.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, KgbError
from kgb.rundir import RunDir, file_stem

METADATA_SCHEMA = "kgb-submission/1"
MAX_METADATA_BYTES = 8 * 1024 * 1024  # the site's limit (leaderboard/upload.py)
METADATA_SOFT_LIMIT = 7 * 1024 * 1024  # transcripts are added only while the document stays under this
MAX_TRANSCRIPT_BYTES = 2 * 1024 * 1024
MAX_SAMPLES = 10
TRANSCRIPT_POLICIES = ("auto", "all", "none")


def sample_file_name(operator_id: str, index: int) -> str:
    stem = file_stem(operator_id)
    return f"{stem}.py" if index == 0 else f"{stem}.{index}.py"


def zip_files(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            archive.writestr(name, files[name])
    return buffer.getvalue()


def directory_files(directory: Path) -> dict[str, str]:
    """The top-level .py files of DIR (no subdirectories: the site refuses nested paths)."""
    paths = sorted(p for p in directory.iterdir() if p.is_file() and p.suffix == ".py")
    if not paths:
        raise KgbError(f"no .py solution files in {directory}")
    return {p.name: p.read_text(encoding="utf-8") for p in paths}


def _transcript_text(run: RunDir, generated: dict[str, Any]) -> str:
    transcript = run.read_json(generated.get("transcript") or "")
    if not transcript:
        return ""
    text = json.dumps(
        {"messages": transcript.get("request", {}).get("messages", []), "reply": transcript.get("reply", "")},
        ensure_ascii=False,
    )
    if len(text.encode()) > MAX_TRANSCRIPT_BYTES:
        keep = MAX_TRANSCRIPT_BYTES // 2 - 200
        text = text[:keep] + "\n[... transcript cut by kgb: the whole one is in the run directory ...]\n" + text[-keep:]
    return text


def scaffold_kind(settings: dict[str, Any]) -> str:
    k = settings["rounds"] if settings["mode"] == "rounds" else settings["samples"]
    return "one_shot" if k == 1 else "pass_at_k"


def build_from_run(
    run: RunDir,
    *,
    name: str | None,
    provider: str | None,
    model_name: str | None,
    model_version: str | None,
    chip: str | None,
    public: bool,
    transcripts: str = "auto",
) -> tuple[dict[str, str], dict[str, Any]]:
    """(files, metadata) for a kgb run directory."""
    from kgb.generate import run_summary

    settings = run.read_settings()
    states = run.samples()
    files: dict[str, str] = {}
    usage: dict[str, list[dict[str, Any]]] = {}
    attempts: list[dict[str, Any]] = []
    transcript_of: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (usage entry, its generated event)
    for operator in settings["operators"]:
        samples = [s for s in states.get(operator, []) if s.generated]
        for expected, state in enumerate(samples):
            if state.index != expected:
                raise KgbError(f"{run.path}: {operator} has sample {state.index} without sample {expected}")
        for state in samples[:MAX_SAMPLES]:
            generated = state.generated or {}
            code = run.read_text(generated.get("code", {}).get("path"))
            if code is None:
                problem = generated.get("code", {}).get("problem") or "no code block"
                code = f"# kgb: the model's reply held no usable code ({problem}); see the transcript\n"
            files[sample_file_name(operator, state.index)] = code
            response = generated.get("response", {})
            counts = {
                k: int(response.get("usage", {}).get(k, 0))
                for k in ("prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens")
            }
            entry = {**counts, "turns": 1, "wall_time_s": round(float(generated.get("wall_time_s") or 0.0), 3)}
            usage.setdefault(operator, []).append(entry)
            transcript_of.append((entry, generated))
            attempts.append(
                {
                    "operator": operator,
                    "sample": state.index,
                    "response_id": response.get("id", ""),
                    "model_reported": response.get("model", ""),
                    "finish_reason": response.get("finish_reason", ""),
                    "usage_raw": response.get("usage_raw", {}),
                    "retries": response.get("retries", 0),
                    "prompt_sha256": generated.get("request", {}).get("prompt_sha256"),
                    "feedback_from": generated.get("request", {}).get("feedback_from"),
                    "code_sha256": generated.get("code", {}).get("sha256"),
                    "local_verdict": state.verified.get("verdict") if state.verified else None,
                }
            )
    if not files:
        raise KgbError(f"{run.path} has no generated samples yet: run `kgb generate` first")
    summary = run_summary(run, settings, None)
    target_chip = (
        chip or settings.get("submit_chip") or (settings["verify"].get("chip") if settings.get("verify") else None)
    )
    if not target_chip:
        raise KgbError("--chip is required: the site chip whose runners evaluate the submission (e.g. cpu, h200)")
    provenance = {
        "client": f"{CLIENT_NAME} {__version__}",
        "tokens": "metered",
        "tokens_note": "usage blocks returned by the model's API, recorded per request by the kgb client",
        "run_id": settings.get("run_id"),
        "protocol": settings["mode"],
        "rounds": settings.get("rounds"),
        "samples": settings.get("samples"),
        "reflection": settings.get("reflection"),
        "generation": {
            k: settings.get(k)
            for k in (
                "api",
                "model",
                "temperature",
                "max_tokens",
                "max_tokens_param",
                "extra_body",
                "prompt_set",
                "chip_family",
                "extract",
            )
        },
        "models_reported": summary.get("models_reported", []),
        "verify": settings.get("verify"),
        "verify_calls": summary.get("verify_calls", 0),
        "local_summary": {
            name: {k: row[k] for k in ("operators", "passed", "pass_at")} for name, row in summary["sets"].items()
        },
        "attempts": attempts,
    }
    label = settings.get("provider") or provider
    metadata: dict[str, Any] = {
        "schema": METADATA_SCHEMA,
        "name": (name or settings.get("name") or f"{settings['model']} ({settings['mode']}, kgb)")[:120],
        "model": {
            "provider": provider or label or "unknown",
            "name": model_name or settings.get("model_label") or settings["model"],
            "version": model_version or settings.get("model_version") or "",
        },
        "scaffold": {"name": CLIENT_NAME, "version": __version__, "kind": scaffold_kind(settings)},
        "track": "llm",
        "target_chip": target_chip,
        "public": public,
        "operators": usage,
        "notes": {"kgb": provenance},
    }
    if transcripts != "none":
        size = len(json.dumps(metadata).encode())
        for entry, generated in transcript_of:
            text = _transcript_text(run, generated)
            cost = len(json.dumps(text).encode()) + 20
            if transcripts == "auto" and size + cost > METADATA_SOFT_LIMIT:
                provenance["transcripts"] = "partial: the metadata size limit was reached; all are in the run directory"
                break
            if text:
                entry["transcript"] = text
                size += cost
        provenance.setdefault("transcripts", "all")
    else:
        provenance["transcripts"] = "none"
    return files, metadata


def upload(
    files: dict[str, str], metadata_bytes: bytes, *, site: str, token: str, timeout: float = 60.0
) -> tuple[int, dict[str, Any] | None, str]:
    """POST the archive and metadata; (status, JSON body or None, text). No retries: a repeated POST would
    create a second submission."""
    url = site.rstrip("/") + "/api/v1/submissions/"
    try:
        response = requests.post(
            url,
            headers={"Authorization": f"Token {token}"},
            files={
                "archive": ("solutions.zip", zip_files(files), "application/zip"),
                "metadata": ("metadata.json", metadata_bytes, "application/json"),
            },
            timeout=timeout,
        )
    except requests.RequestException as exc:
        raise KgbError(f"cannot reach {site}: {type(exc).__name__}: {exc}", exit_code=EXIT_FAILED) from None
    try:
        body = response.json()
    except ValueError:
        body = None
    return response.status_code, body if isinstance(body, dict) else None, response.text


def report_refusal(status: int, body: dict[str, Any] | None, text: str) -> None:
    print(f"error: the site answered {status}", file=sys.stderr)
    if body is None:
        print(text[:2000], file=sys.stderr)
        return
    for error in body.get("errors", []):
        print(f"  {error['where']}: {error['message']}", file=sys.stderr)
    if "detail" in body and not body.get("errors"):
        print(f"  {body['detail']}", file=sys.stderr)


def wait_for(site: str, token: str, submission_id: str, timeout: float, poll_s: float = 5.0) -> int:
    url = site.rstrip("/") + f"/api/v1/submissions/{submission_id}/progress/"
    while True:
        try:
            progress = requests.get(url, headers={"Authorization": f"Token {token}"}, timeout=timeout).json()
        except (requests.RequestException, ValueError) as exc:
            print(f"error: cannot read the progress: {exc}", file=sys.stderr)
            return EXIT_FAILED
        print(f"  {progress['finished']}/{progress['total']} finished, verdicts {json.dumps(progress['verdicts'])}")
        if not progress["active"]:
            return EXIT_OK
        time.sleep(poll_s)


def submit_path(
    path: Path,
    *,
    site: str,
    token: str,
    wait: bool = False,
    timeout: float = 60.0,
    name: str | None = None,
    provider: str | None = None,
    model_name: str | None = None,
    model_version: str | None = None,
    chip: str | None = None,
    public: bool = True,
    transcripts: str = "auto",
    dry_run: Path | None = None,
) -> int:
    """Upload a kgb run directory or a plain solution directory; returns the exit status."""
    if not path.is_dir():
        print(f"error: {path} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    run = RunDir(path)
    if run.exists():
        files, metadata = build_from_run(
            run,
            name=name,
            provider=provider,
            model_name=model_name,
            model_version=model_version,
            chip=chip,
            public=public,
            transcripts=transcripts,
        )
        metadata_bytes = json.dumps(metadata, ensure_ascii=False).encode()
    else:
        metadata_path = path / "metadata.json"
        if not metadata_path.is_file():
            print(f"error: {metadata_path} is missing (and {path} is not a kgb run directory)", file=sys.stderr)
            return EXIT_USAGE
        files = directory_files(path)
        metadata_bytes = metadata_path.read_bytes()
    if len(metadata_bytes) > MAX_METADATA_BYTES:
        raise KgbError(f"the metadata is {len(metadata_bytes):,} bytes, over the site's limit; use --transcripts none")
    if dry_run is not None:
        export(dry_run, files, metadata_bytes)
        print(f"wrote {len(files)} files and metadata.json to {dry_run} (nothing uploaded)")
        return EXIT_OK
    if not site or not token:
        raise KgbError("--site and --token are required (or KGB_SITE and KGB_TOKEN in the environment)")
    status, body, text = upload(files, metadata_bytes, site=site, token=token, timeout=timeout)
    if status != 201 or body is None:
        report_refusal(status, body, text)
        return EXIT_FAILED
    print(f"submitted {body['id']} ({body['attempts']} files): {body['url']}")
    if wait:
        return wait_for(site, token, body["id"], timeout)
    return EXIT_OK


def export(destination: Path, files: dict[str, str], metadata_bytes: bytes) -> None:
    destination.mkdir(parents=True, exist_ok=True)
    for file_name, source in files.items():
        (destination / file_name).write_text(source, encoding="utf-8")
    (destination / "metadata.json").write_bytes(metadata_bytes)
