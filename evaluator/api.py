"""The runner REST API: thin views over evaluator.services. Runners authenticate with
`Authorization: Runner <token>`; nothing else (no session, no CSRF) is accepted here. Refusals
are answered by the site's one API error handler (kgsite.error_handlers) as
`{"error": code, "detail": message}`, the shape evaluator.runner.client reads."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, status
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from evaluator import selectors, services
from evaluator.models import Runner
from evaluator.serializers import (
    ClaimOutput,
    ConfigOutput,
    FailInput,
    FailOutput,
    HeartbeatInput,
    HeartbeatOutput,
    LeaseInput,
    LeaseOutput,
    ResultInput,
    ResultOutput,
    validate_lease,
    validate_result,
)
from evaluator.services import verify
from evaluator.vocabulary import RunnerState
from kgsite.client_address import client_address
from kgsite.error_handlers import ErrorResponseSerializer
from kgsite.parsers import DepthSafeJSONParser


def heartbeat_interval_s() -> int:
    return settings.KGB_RUNNER_HEARTBEAT_S


class FailedRunnerAuthThrottle(SimpleRateThrottle):
    """Refused runner tokens per address, at the "anon" rate. Past it, every runner request from that
    address is answered 429 before any token is looked up, until the window has passed (guessing a
    256-bit token is hopeless anyway; this bounds the work a stranger can make the site do)."""

    scope = "anon"

    def get_cache_key(self, request: Request, view) -> str:
        return self.cache_format % {"scope": "runner_auth_failures", "ident": client_address(request)}

    def over_limit(self, request: Request) -> bool:
        self.key = self.get_cache_key(request, None)
        self.history = self.cache.get(self.key, [])
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        return len(self.history) >= self.num_requests

    def refuse(self, message: str) -> exceptions.AuthenticationFailed:
        self.throttle_success()  # records this failure
        return exceptions.AuthenticationFailed(message)


class RunnerTokenAuthentication(BaseAuthentication):
    """Looks the token up by its public id and compares sha256 hashes in constant time. Unknown,
    rotated (the old hash no longer matches) and disabled tokens are refused with 401; an address
    with too many refused tokens gets 429 (FailedRunnerAuthThrottle)."""

    keyword = "Runner"

    def authenticate(self, request: Request):
        parts = get_authorization_header(request).split()
        if not parts or parts[0].decode(errors="replace") != self.keyword:
            return None
        failures = FailedRunnerAuthThrottle()
        if failures.over_limit(request):
            raise exceptions.Throttled(failures.wait())
        if len(parts) != 2:
            raise failures.refuse("expected 'Authorization: Runner <token>'")
        runner = services.runner_for_token(parts[1].decode(errors="replace"))
        if runner is None:
            raise failures.refuse("unknown or rotated runner token")
        if runner.state == RunnerState.DISABLED:
            raise exceptions.AuthenticationFailed("this runner is disabled")
        return (None, runner)

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class RunnerTokenScheme(OpenApiAuthenticationExtension):
    target_class = RunnerTokenAuthentication
    name = "runnerToken"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "header", "name": "Authorization", "description": "Runner <token>"}


ERRORS = {status_code: ErrorResponseSerializer for status_code in (400, 403, 404, 409)}


class IsRunner(BasePermission):
    message = "a runner token is required ('Authorization: Runner <token>')"

    def has_permission(self, request: Request, view) -> bool:
        return isinstance(request.auth, Runner)


class RunnerRateThrottle(SimpleRateThrottle):
    scope = "runner"

    def get_cache_key(self, request: Request, view) -> str | None:
        return f"throttle_runner_{request.auth.pk}" if isinstance(request.auth, Runner) else None


class RunnerAPIView(APIView):
    authentication_classes = [RunnerTokenAuthentication]
    permission_classes = [IsRunner]
    throttle_classes = [RunnerRateThrottle]
    parser_classes = [DepthSafeJSONParser, FormParser, MultiPartParser]


def runner_config(runner: Runner) -> dict:
    broker_url = settings.KGB_RUNNER_BROKER_URL or settings.CELERY_BROKER_URL
    config = {
        "runner": runner.name,
        "chip": runner.chip.slug,
        "device_type": runner.chip.device_type,
        "timing_meaningful": runner.chip.timing_meaningful,
        "queue": runner.chip.queue_name,
        # the ranked queue first: test-mode checks (evaluator.services.verify) wait while it holds work
        "queues": [runner.chip.queue_name, runner.chip.test_queue_name],
        "task_name": services.TASK_NAME,
        "broker_url": broker_url,
        "broker_transport_options": {},
        "heartbeat_interval_s": heartbeat_interval_s(),
        "state": runner.state,
        # FLUSH:CLOCK the runner times with: the protocol whose speedups the site ranks
        "timing_protocol": settings.KGB_RANKED_TIMING_PROTOCOL,
        # the chip's ceilings the site ranks with (measured where known); also in every job payload
        "ceilings": selectors.chip_ceilings(chip=runner.chip),
    }
    if broker_url.startswith("filesystem://"):
        # the embedded broker: folders shared with the site (same machine, `make run`)
        config["broker_transport_options"] = dict(settings.CELERY_BROKER_TRANSPORT_OPTIONS)
    elif broker_url.startswith(("redis://", "rediss://")):
        # poll the queues in the order given (kombu's default rotates them): ranked jobs always go first
        config["broker_transport_options"] = {"queue_order_strategy": "priority"}
    return config


class ConfigApi(RunnerAPIView):
    @extend_schema(responses={200: ConfigOutput}, tags=["runner"])
    def get(self, request: Request) -> Response:
        return Response(runner_config(request.auth))


class HeartbeatApi(RunnerAPIView):
    @extend_schema(
        request=HeartbeatInput, responses={200: HeartbeatOutput, 400: ErrorResponseSerializer}, tags=["runner"]
    )
    def post(self, request: Request) -> Response:
        data = HeartbeatInput(data=request.data)
        data.is_valid(raise_exception=True)
        runner = services.record_heartbeat(runner=request.auth, environment=data.validated_data["environment"])
        return Response({"state": runner.state, "heartbeat_interval_s": heartbeat_interval_s()})


class ClaimApi(RunnerAPIView):
    @extend_schema(request=None, responses={200: ClaimOutput, **ERRORS}, tags=["runner"])
    def post(self, request: Request, job_id) -> Response:
        if verify.check_access(runner=request.auth, job_id=job_id):  # a test-mode check: its own records
            return Response(verify.claim_check(runner=request.auth, job_id=job_id).payload)
        claimed = services.claim_job(runner=request.auth, job_id=job_id)
        return Response(claimed.payload)


class LeaseApi(RunnerAPIView):
    @extend_schema(request=LeaseInput, responses={200: LeaseOutput, **ERRORS}, tags=["runner"])
    def post(self, request: Request, job_id) -> Response:
        is_check = verify.check_access(runner=request.auth, job_id=job_id)
        if not is_check:
            services.check_job_access(runner=request.auth, job_id=job_id)
        renew = verify.renew_check_lease if is_check else services.renew_lease
        data = LeaseInput(data=request.data)
        data.is_valid(raise_exception=True)
        job = renew(runner=request.auth, job_id=job_id, lease=data.validated_data["lease"])
        return Response(
            {"job_id": str(job.id), "lease": str(job.lease_id), "lease_expires_at": job.lease_expires_at.isoformat()}
        )


class ResultApi(RunnerAPIView):
    @extend_schema(request=ResultInput, responses={200: ResultOutput, 201: ResultOutput, **ERRORS}, tags=["runner"])
    def post(self, request: Request, job_id) -> Response:
        is_check = verify.check_access(runner=request.auth, job_id=job_id)
        if not is_check:
            services.check_job_access(runner=request.auth, job_id=job_id)
        body = request.data
        result = body.get("result", body) if isinstance(body, dict) else body
        lease = validate_lease(body.get("lease")) if isinstance(body, dict) and "result" in body else None
        result = validate_result(result)
        if is_check:
            check, created = verify.record_check_result(runner=request.auth, job_id=job_id, result=result, lease=lease)
            body = {"job_id": str(job_id), "evaluation_id": None, "verdict": check.result["verdict"]}
            return Response(
                {**body, "duplicate": not created}, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
            )
        evaluation, created = services.record_result(runner=request.auth, job_id=job_id, result=result, lease=lease)
        return Response(
            {
                "job_id": str(job_id),
                "evaluation_id": evaluation.pk,
                "verdict": evaluation.verdict,
                "duplicate": not created,
            },
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class FailApi(RunnerAPIView):
    @extend_schema(request=FailInput, responses={200: FailOutput, **ERRORS}, tags=["runner"])
    def post(self, request: Request, job_id) -> Response:
        is_check = verify.check_access(runner=request.auth, job_id=job_id)
        if not is_check:
            services.check_job_access(runner=request.auth, job_id=job_id)
        fail = verify.fail_check if is_check else services.fail_job
        data = FailInput(data=request.data)
        data.is_valid(raise_exception=True)
        job = fail(
            runner=request.auth, job_id=job_id, error=data.validated_data["error"], lease=data.validated_data["lease"]
        )
        return Response({"job_id": str(job.id), "state": job.state, "deliveries": job.deliveries})
