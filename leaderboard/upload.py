"""Validation of a submission upload: a zip of `<ns>__<op>.py` solution files plus a metadata JSON document.

Pure Python (no Django): everything is checked before anything is stored, and every problem is reported with
the file it concerns. The format is documented in docs/submission_format.md; keep the two in step.

The zip is hostile input. We never extract it to disk; names are checked before reading; every member is read
through a size cap (a lying header cannot make us inflate more than the cap); the ratio of inflated to
compressed size is bounded (zip bombs); encrypted members, directories, links and nested paths are refused.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
import stat
import zipfile
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import cast

from kgsite.errors import ErrorItem, Invalid
from kgsite.text import unsafe_characters_message
from leaderboard.vocabulary import ScaffoldKind, Track

METADATA_SCHEMA = "kgb-submission/1"
MAX_ARCHIVE_BYTES = 16 * 1024 * 1024
MAX_METADATA_BYTES = 8 * 1024 * 1024
MAX_FILE_BYTES = 256 * 1024
MAX_TOTAL_BYTES = 64 * 1024 * 1024
MAX_COMPRESSION_RATIO = 100  # deflated Python source compresses ~4-10x; 100x is a bomb
MAX_SAMPLES = 10  # samples per operator (pass@k up to k = 10)
MAX_FILES = 250 * MAX_SAMPLES
MAX_TOKENS_PER_SAMPLE = 2_000_000_000  # more than any agent has ever spent on one operator: a typo or an attack
MAX_WALL_TIME_S = 7 * 24 * 3600
MAX_TRANSCRIPT_BYTES = 2 * 1024 * 1024
MAX_NAME_CHARS = 120
TOKEN_FIELDS = ("prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens")
USAGE_FIELDS = (*TOKEN_FIELDS, "turns", "wall_time_s", "transcript")

# `aten__add.py` is sample 0 of aten::add; `aten__add.3.py` is its sample 3. Operator names may start or end
# with underscores (`aten___index_put_impl_.py` is aten::_index_put_impl_), so split at the first "__".
# Matched with fullmatch only: `$` would also match before a trailing newline ("aten__add.py\n").
FILE_NAME_RE = re.compile(r"^(?P<ns>aten|vllm13|cublas)__(?P<op>[A-Za-z0-9_]+?)(?:\.(?P<sample>[0-9]{1,2}))?\.py$")


# one problem of an upload; `where` is a file name inside the zip, "archive", "metadata" or "metadata: <field>"
UploadError = ErrorItem


class UploadInvalid(Invalid):
    """The upload is refused; `errors` lists every problem found (nothing was stored)."""

    code = "invalid_upload"

    def __init__(self, errors: list[UploadError]):
        super().__init__("; ".join(str(e) for e in errors[:5]), errors=errors)


@dataclass(frozen=True)
class SolutionFile:
    file_name: str
    operator_id: str
    sample_index: int
    source: str
    sha256: str


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    turns: int | None = None
    wall_time_s: float | None = None
    transcript: str = ""


@dataclass(frozen=True)
class Metadata:
    name: str
    model: dict[str, str]
    scaffold: dict[str, str]
    track: str
    target_chip: str
    public: bool
    usage: dict[tuple[str, int], Usage] = field(default_factory=dict)
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ValidatedUpload:
    metadata: Metadata
    files: list[SolutionFile]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(raw: dict, key: str, errors: list[UploadError], *, required: bool, limit: int = 100) -> str:
    value = raw.get(key, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        errors.append(UploadError(f"metadata: {key}", "must be a string"))
        return ""
    value = value.strip()
    if required and not value:
        errors.append(UploadError(f"metadata: {key}", "is required"))
    unsafe = unsafe_characters_message(value)
    if unsafe:
        errors.append(UploadError(f"metadata: {key}", unsafe))
    if len(value) > limit:
        errors.append(UploadError(f"metadata: {key}", f"is longer than {limit} characters"))
    return value


def _usage(where: str, raw: object, errors: list[UploadError]) -> Usage | None:
    if not isinstance(raw, dict):
        errors.append(UploadError(where, "must be an object with token counts"))
        return None
    unknown = sorted(set(raw) - set(USAGE_FIELDS))
    if unknown:
        errors.append(UploadError(where, f"unknown fields {unknown}; allowed: {list(USAGE_FIELDS)}"))
    values: dict = {}
    for key in TOKEN_FIELDS:
        value = raw.get(key, 0)
        if not _is_int(value):
            errors.append(UploadError(where, f"{key} must be an integer, got {type(value).__name__}"))
        elif value < 0:
            errors.append(UploadError(where, f"{key} must not be negative ({value})"))
        elif value > MAX_TOKENS_PER_SAMPLE:
            errors.append(UploadError(where, f"{key}={value} is absurd (limit {MAX_TOKENS_PER_SAMPLE:,} per sample)"))
        else:
            values[key] = value
    if "cached_tokens" in values and values["cached_tokens"] > values.get("prompt_tokens", 0):
        errors.append(UploadError(where, "cached_tokens counts part of prompt_tokens and cannot exceed it"))
    turns = raw.get("turns")
    if turns is not None:
        if not _is_int(turns) or turns < 0 or turns > 100_000:
            errors.append(UploadError(where, "turns must be an integer between 0 and 100000"))
        else:
            values["turns"] = turns
    wall = raw.get("wall_time_s")
    if wall is not None:
        # a float must be finite; an int may be too large for math.isfinite, and the range check catches it
        if (
            isinstance(wall, bool)
            or not isinstance(wall, int | float)
            or (isinstance(wall, float) and not math.isfinite(wall))
        ):
            errors.append(UploadError(where, "wall_time_s must be a number of seconds"))
        elif wall < 0 or wall > MAX_WALL_TIME_S:
            errors.append(UploadError(where, f"wall_time_s must be between 0 and {MAX_WALL_TIME_S}"))
        else:
            values["wall_time_s"] = float(wall)
    transcript = raw.get("transcript", "")
    if transcript:
        if not isinstance(transcript, str):
            errors.append(UploadError(where, "transcript must be a string"))
        elif len(transcript.encode()) > MAX_TRANSCRIPT_BYTES:
            errors.append(UploadError(where, f"transcript is larger than {MAX_TRANSCRIPT_BYTES // 1024} KiB"))
        else:
            values["transcript"] = transcript
    return Usage(**values)


def parse_metadata(
    raw_bytes: bytes, *, known_chips: Collection[str] | None = None, picked: Collection[str] = ()
) -> tuple[Metadata | None, list[UploadError]]:
    """`picked`: the sections ("model", "scaffold") the uploader picked from the registered ones beside the
    file; the file may leave those out (when it has them, they are checked, and the pick replaces them)."""
    errors: list[UploadError] = []
    if len(raw_bytes) > MAX_METADATA_BYTES:
        return None, [UploadError("metadata", f"is larger than {MAX_METADATA_BYTES // (1024 * 1024)} MiB")]
    try:
        raw = json.loads(raw_bytes.decode("utf-8"))
    except UnicodeDecodeError:
        return None, [UploadError("metadata", "is not UTF-8 text")]
    except (ValueError, RecursionError) as exc:  # ValueError: also integers past Python's 4300-digit limit
        return None, [UploadError("metadata", f"is not valid JSON ({exc})")]
    if not isinstance(raw, dict):
        return None, [UploadError("metadata", "must be a JSON object")]
    allowed = {"schema", "name", "model", "scaffold", "track", "target_chip", "public", "operators", "notes", "links"}
    unknown = sorted(set(raw) - allowed)
    if unknown:
        errors.append(UploadError("metadata", f"unknown fields {unknown}"))
    if raw.get("schema", METADATA_SCHEMA) != METADATA_SCHEMA:
        errors.append(UploadError("metadata: schema", f"must be {METADATA_SCHEMA!r}"))
    name = _text(raw, "name", errors, required=True, limit=MAX_NAME_CHARS)
    model: dict[str, str] = {}
    scaffold: dict[str, str] = {}
    # the limits of the columns they are stored in (leaderboard.models.LLMModel, Scaffold)
    limits = {
        ("model", "provider"): 60,
        ("model", "version"): 60,
        ("scaffold", "version"): 60,
        ("scaffold", "url"): 200,
    }
    for key, target, fields in (
        ("model", model, ("provider", "name", "version")),
        ("scaffold", scaffold, ("name", "version", "kind", "url")),
    ):
        section = raw.get(key)
        if section is None and key in picked:
            continue
        if not isinstance(section, dict):
            errors.append(UploadError(f"metadata: {key}", f"must be an object with {list(fields)}"))
            continue
        extra_keys = sorted(set(section) - set(fields))
        if extra_keys:
            errors.append(UploadError(f"metadata: {key}", f"unknown fields {extra_keys}"))
        for sub in fields:
            required = sub == "name" or (key == "model" and sub == "provider") or (key == "scaffold" and sub == "kind")
            target[sub] = _text(section, sub, errors, required=required, limit=limits.get((key, sub), 100))
    if scaffold.get("kind") and scaffold["kind"] not in ScaffoldKind.values:
        errors.append(UploadError("metadata: scaffold.kind", f"must be one of {list(ScaffoldKind.values)}"))
    if scaffold.get("url") and not re.match(r"^https?://", scaffold["url"]):
        errors.append(UploadError("metadata: scaffold.url", "must be an http(s) URL"))
    track = raw.get("track")
    if track not in Track.values:
        errors.append(UploadError("metadata: track", f"must be one of {list(Track.values)}"))
    chip = raw.get("target_chip")
    if not isinstance(chip, str) or not chip:
        errors.append(UploadError("metadata: target_chip", "is required (a chip slug, e.g. 'cpu' or 'h200')"))
    elif known_chips is not None and chip not in known_chips:
        errors.append(UploadError("metadata: target_chip", f"unknown chip {chip[:40]!r}; known: {sorted(known_chips)}"))
    public = raw.get("public", True)
    if not isinstance(public, bool):
        errors.append(UploadError("metadata: public", "must be true or false"))
    usage: dict[tuple[str, int], Usage] = {}
    operators = raw.get("operators", {})
    if not isinstance(operators, dict):
        errors.append(UploadError("metadata: operators", "must be an object keyed by operator id"))
        operators = {}
    for op_id, entry in operators.items():
        samples = entry if isinstance(entry, list) else [entry]
        if len(samples) > MAX_SAMPLES:
            errors.append(UploadError(f"metadata: operators[{op_id[:60]}]", f"more than {MAX_SAMPLES} samples"))
            continue
        for index, sample in enumerate(samples):
            parsed = _usage(f"metadata: operators[{op_id[:60]}][{index}]", sample, errors)
            if parsed is not None:
                usage[(op_id, index)] = parsed
    extra = {k: raw[k] for k in ("notes", "links") if k in raw}
    if errors:
        return None, errors
    return Metadata(
        name=name,
        model=model,
        scaffold=scaffold,
        track=cast(str, track),  # checked above: any other value is an error
        target_chip=cast(str, chip),
        public=public,
        usage=usage,
        extra=extra,
    ), []


def _member_errors(info: zipfile.ZipInfo) -> str | None:
    name = info.filename
    if info.flag_bits & 0x1:
        return "is encrypted"
    if info.is_dir() or "/" in name or "\\" in name:
        return "nested directories are not allowed: put every file at the top level of the zip"
    if name.startswith(".") or ".." in name or ":" in name or unsafe_characters_message(name):
        return "unsafe file name"
    file_type = stat.S_IFMT(info.external_attr >> 16)  # 0 when the zip tool recorded no Unix type
    if file_type and file_type != stat.S_IFREG:
        return "is not a regular file (links are not allowed)"
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        return "uses an unsupported compression method (use deflate)"
    if info.file_size > MAX_FILE_BYTES:
        return f"is larger than {MAX_FILE_BYTES // 1024} KiB"
    # every member, whatever its size: 2,500 members of 26 KiB at 300x each store 64 MiB from a 205 KB zip.
    # Honest Python source deflates 2-4x (the reference solutions: at most 3.5x), so 100x flags no kernel.
    if info.file_size and not info.compress_size:
        return "declares content but no compressed data (a corrupt or forged header)"
    if info.compress_size and info.file_size / info.compress_size > MAX_COMPRESSION_RATIO:
        return f"compression ratio {info.file_size / info.compress_size:.0f}x looks like a zip bomb"
    return None


def _read_capped(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes | None:
    """Read one member, never inflating more than the cap whatever its header claims."""
    with archive.open(info) as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    return None if len(data) > MAX_FILE_BYTES else data


def validate_upload(
    archive_bytes: bytes,
    metadata_bytes: bytes,
    *,
    known_operators: Callable[[Collection[str]], Collection[str]] | Collection[str],
    known_chips: Collection[str] | None = None,
    picked: Collection[str] = (),
) -> ValidatedUpload:
    """Check everything; return the parsed upload or raise UploadInvalid with every problem found.

    `known_operators` is either the set of valid operator ids or a function that, given the ids named in the
    zip, returns those that exist (so the caller can query only those).
    """
    errors: list[UploadError] = []
    metadata, metadata_errors = parse_metadata(metadata_bytes, known_chips=known_chips, picked=picked)
    errors.extend(metadata_errors)
    if len(archive_bytes) > MAX_ARCHIVE_BYTES:
        raise UploadInvalid(
            [*errors, UploadError("archive", f"is larger than {MAX_ARCHIVE_BYTES // (1024 * 1024)} MiB")]
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(archive_bytes))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError, NotImplementedError):
        raise UploadInvalid([*errors, UploadError("archive", "is not a valid zip file")]) from None
    if not infos:
        raise UploadInvalid([*errors, UploadError("archive", "contains no files")])
    if len(infos) > MAX_FILES:
        raise UploadInvalid([*errors, UploadError("archive", f"has {len(infos)} entries (limit {MAX_FILES})")])
    declared_total = sum(i.file_size for i in infos)
    if declared_total > MAX_TOTAL_BYTES:
        raise UploadInvalid(
            [*errors, UploadError("archive", f"inflates to {declared_total:,} bytes (limit {MAX_TOTAL_BYTES:,})")]
        )

    files: list[SolutionFile] = []
    seen_names: set[str] = set()
    seen_samples: dict[tuple[str, int], str] = {}
    for info in infos:
        name = info.filename
        shown = name if len(name) <= 120 else name[:117] + "..."
        problem = _member_errors(info)
        if problem:
            errors.append(UploadError(shown, problem))
            continue
        if name in seen_names:
            errors.append(UploadError(shown, "appears twice in the zip"))
            continue
        seen_names.add(name)
        match = FILE_NAME_RE.fullmatch(name)
        if not match:
            errors.append(
                UploadError(
                    shown,
                    "file name must be <namespace>__<operator>.py (e.g. aten__add.py, "
                    "cublas__cublasSgemm_v2.py), optionally <...>.<sample>.py",
                )
            )
            continue
        operator_id = f"{match['ns']}::{match['op']}"
        sample = int(match["sample"] or 0)
        if sample >= MAX_SAMPLES:
            errors.append(UploadError(shown, f"sample index must be below {MAX_SAMPLES}"))
            continue
        if (operator_id, sample) in seen_samples:
            errors.append(
                UploadError(shown, f"duplicates {seen_samples[(operator_id, sample)]} (same operator and sample)")
            )
            continue
        seen_samples[(operator_id, sample)] = shown
        try:
            data = _read_capped(archive, info)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as exc:
            errors.append(UploadError(shown, f"cannot be read ({type(exc).__name__})"))
            continue
        if data is None:
            errors.append(UploadError(shown, f"inflates beyond {MAX_FILE_BYTES // 1024} KiB"))
            continue
        if b"\x00" in data:
            errors.append(UploadError(shown, "is binary, not Python source"))
            continue
        try:
            source = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            errors.append(UploadError(shown, f"is not UTF-8 text (byte {exc.start})"))
            continue
        if not source.strip():
            errors.append(UploadError(shown, "is empty"))
            continue
        files.append(SolutionFile(name, operator_id, sample, source, hashlib.sha256(data).hexdigest()))

    named = {f.operator_id for f in files}
    existing = set(known_operators(named) if callable(known_operators) else known_operators)
    for solution in files:
        if solution.operator_id not in existing:
            errors.append(UploadError(solution.file_name, f"unknown operator {solution.operator_id!r}"))
    if metadata is not None:
        for op_id, sample in metadata.usage:
            if (op_id, sample) not in seen_samples:
                errors.append(
                    UploadError(f"metadata: operators[{op_id[:60]}][{sample}]", "has no matching file in the zip")
                )
    for (op_id, sample), shown in seen_samples.items():
        if sample > 0 and (op_id, sample - 1) not in seen_samples:
            errors.append(UploadError(shown, f"sample {sample} given without sample {sample - 1}"))
    if errors or metadata is None:
        raise UploadInvalid(errors or [UploadError("metadata", "is invalid")])
    files.sort(key=lambda f: (f.operator_id, f.sample_index))
    return ValidatedUpload(metadata=metadata, files=files)
