"""Validation of what runners send: result JSON, heartbeats, failures. Everything is checked for
type and size before anything is stored, so a malformed post stores nothing and gets a 4xx."""

from __future__ import annotations

import dataclasses
import json
import math
import uuid

from rest_framework import serializers

from evaluator.errors import MalformedResult
from evaluator.harness.contract import ContractError, Result
from kgsite.errors import Invalid

MAX_RESULT_BYTES = 4 * 1024 * 1024
MAX_CASES = 5000
MAX_FINDINGS = 500
MAX_TEXT = 20_000
MAX_ENVIRONMENT_BYTES = 64 * 1024


def _number_or_none(value, name: str, where: str) -> None:
    # the contract checked the type; the site stores only numbers a float column holds
    if value is None:
        return
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an int beyond the float range
        finite = False
    if not finite:
        raise MalformedResult(f"{where}.{name} must be a finite number or null")


def _json_size(value) -> int:
    return len(json.dumps(value, separators=(",", ":"), allow_nan=False))


def validate_result(result, *, where: str = "result") -> Result:
    """The harness result JSON, read as the contract's Result (evaluator.harness.contract: every
    key's type) within the site's limits (size, plain finite JSON), text fields trimmed. Raises
    ApplicationError, storing nothing."""
    if not isinstance(result, dict):
        raise Invalid(f"{where} must be a JSON object")
    try:
        size = _json_size(result)
    except (TypeError, ValueError):
        raise Invalid(f"{where} contains values that are not plain JSON (NaN or infinity?)") from None
    if size > MAX_RESULT_BYTES:
        raise Invalid(f"{where} is {size} bytes; the limit is {MAX_RESULT_BYTES}")
    cases, findings = result.get("cases"), result.get("findings")
    if isinstance(cases, list) and len(cases) > MAX_CASES:
        raise Invalid(f"{where}.cases must be a list of at most {MAX_CASES} objects")
    if isinstance(findings, list) and len(findings) > MAX_FINDINGS:
        raise Invalid(f"{where}.findings must be a list of at most {MAX_FINDINGS} items")
    environment = result.get("environment")
    if isinstance(environment, dict) and _json_size(environment) > MAX_ENVIRONMENT_BYTES:
        raise Invalid(f"{where}.environment must be an object of at most {MAX_ENVIRONMENT_BYTES} bytes")
    try:
        document = Result.from_dict(result, where)
    except ContractError as exc:
        raise MalformedResult(str(exc)) from None
    timing = document.timing
    for name, value in (
        ("timing.speedup", timing.speedup if timing else None),
        ("sol_pct", document.sol_pct),
        ("duration_s", document.duration_s),
    ):
        _number_or_none(value, name, where)
    # the tail is what matters in a log: keep the end
    return dataclasses.replace(
        document, reason=document.reason[:MAX_TEXT], stderr_tail=document.stderr_tail[-MAX_TEXT:]
    )


def validate_lease(value) -> str | None:
    """The claim lease a runner sends with a result (None when it sends none: older agents)."""
    if value is None:
        return None
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise Invalid("lease must be the lease id the claim answered") from None


class HeartbeatInput(serializers.Serializer):
    environment = serializers.DictField(required=False, default=dict)

    def validate_environment(self, value: dict) -> dict:
        if _json_size(value) > MAX_ENVIRONMENT_BYTES:
            raise serializers.ValidationError(f"at most {MAX_ENVIRONMENT_BYTES} bytes")
        return value


class FailInput(serializers.Serializer):
    error = serializers.CharField(max_length=MAX_TEXT, allow_blank=False, trim_whitespace=True)
    lease = serializers.UUIDField(required=False, allow_null=True, default=None, help_text="the claim's lease id")


class LeaseInput(serializers.Serializer):
    lease = serializers.UUIDField(help_text="the lease id the claim answered")


# --- shapes for the OpenAPI schema (the views build these dicts in evaluator.api / services) ----


class ResultInput(serializers.Serializer):
    result = serializers.DictField(help_text="The harness result JSON (kgb.result/1).")
    lease = serializers.UUIDField(
        required=False,
        allow_null=True,
        help_text="The claim's lease id: a result under a lease that is no longer the job's is refused (409 "
        "lease_lost). Without it, the job must be running on this runner.",
    )


class ConfigOutput(serializers.Serializer):
    runner = serializers.CharField()
    chip = serializers.CharField()
    device_type = serializers.CharField()
    timing_meaningful = serializers.BooleanField()
    queue = serializers.CharField()
    queues = serializers.ListField(
        child=serializers.CharField(), help_text="the queues to consume, the first first (ranked, then test mode)"
    )
    task_name = serializers.CharField()
    broker_url = serializers.CharField()
    broker_transport_options = serializers.DictField()
    heartbeat_interval_s = serializers.IntegerField()
    state = serializers.CharField()
    timing_protocol = serializers.CharField(help_text="FLUSH:CLOCK of the harness timing the site ranks")
    ceilings = serializers.DictField(
        allow_null=True, help_text="the chip's ceilings the site ranks with (see ClaimOutput.ceilings)"
    )


class HeartbeatOutput(serializers.Serializer):
    state = serializers.CharField()
    heartbeat_interval_s = serializers.IntegerField()


class SolutionOutput(serializers.Serializer):
    file_name = serializers.CharField()
    source = serializers.CharField()
    sha256 = serializers.CharField()


class ClaimLeaseOutput(serializers.Serializer):
    id = serializers.UUIDField(help_text="sent back with renewals, the result and failures")
    expires_at = serializers.DateTimeField()
    seconds = serializers.FloatField(help_text="how long the lease lives without renewal")
    renew_every_s = serializers.FloatField(help_text="how often the worker renews it (POST jobs/<id>/lease)")


class LeaseOutput(serializers.Serializer):
    job_id = serializers.UUIDField()
    lease = serializers.UUIDField()
    lease_expires_at = serializers.DateTimeField()


class ClaimOutput(serializers.Serializer):
    job_id = serializers.UUIDField()
    operator = serializers.CharField()
    tier = serializers.CharField()
    seed = serializers.IntegerField()
    secret_seed = serializers.BooleanField()
    timeout_s = serializers.IntegerField()
    solution = SolutionOutput()
    ceilings = serializers.DictField(
        allow_null=True,
        help_text="The chip's ceilings the site ranks %SOL and the physical-limit check with: measured where the "
        "site has a measurement, else the datasheet's; in the harness's --peaks format (bandwidth_bytes_per_s, "
        "flops_per_s per dtype with a default, l2_bytes), plus `basis` and `datasheet`. Null when unknown.",
    )
    hidden_cases = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="Held-out full-tier jobs only, when the site has hidden cases for the operator: extra cases "
        "in the format of the operator's full-tier cases, for the trusted harness (never the candidate).",
    )
    lease = ClaimLeaseOutput(help_text="The claim lease of this delivery.")


class ResultOutput(serializers.Serializer):
    job_id = serializers.UUIDField()
    evaluation_id = serializers.IntegerField(allow_null=True, help_text="null for a test-mode check (no evaluation)")
    verdict = serializers.CharField()
    duplicate = serializers.BooleanField()


class FailOutput(serializers.Serializer):
    job_id = serializers.UUIDField()
    state = serializers.CharField()
    deliveries = serializers.IntegerField()


# --- test mode (POST /api/v1/verify/, evaluator.verify_api) ---------------------------------------------------


class VerifyInput(serializers.Serializer):
    operator = serializers.CharField(max_length=100, help_text="an operator id, e.g. aten::add")
    chip = serializers.CharField(max_length=40, help_text="a chip slug, e.g. cpu or h200")
    tier = serializers.ChoiceField(choices=["smoke", "full"], default="smoke")
    source = serializers.CharField(
        trim_whitespace=False, help_text="the kernel file's text (<ns>__<op>.py), at most KGB_VERIFY_MAX_SOURCE_BYTES"
    )
    run = serializers.CharField(
        required=False, default="", allow_blank=True, max_length=64, help_text="the client's run id (kgb generate)"
    )


class VerifyJobOutput(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=["queued", "running", "done", "failed"])
    status_url = serializers.CharField(help_text="GET it until the status is done or failed")
    operator = serializers.CharField()
    chip = serializers.CharField()
    tier = serializers.CharField()
    seed = serializers.IntegerField(help_text="the public seed of this check's inputs (never a ranked run's)")
    run = serializers.CharField()
    ranked = serializers.BooleanField(help_text="always false: a check is never ranked nor counted on a leaderboard")
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    error = serializers.CharField(help_text="why a failed check has no verdict")
    quota = serializers.DictField(help_text="per_hour and used: this hour's checks of the user on the chip")
    result = serializers.DictField(
        required=False, help_text="done only: the harness's result (kgb.result/1): per-case errors, findings, timing"
    )
