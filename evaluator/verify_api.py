"""Test mode's REST API for users (token or session): POST /api/v1/verify/ asks for an unranked check of one
kernel on a chip's runners, GET /api/v1/verify/<id>/ answers its status and, once done, the harness's feedback.
Thin: evaluator.services.verify holds the rules; refusals go through kgsite.error_handlers."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluator.models import VerifyJob
from evaluator.serializers import VerifyInput, VerifyJobOutput
from evaluator.services import verify
from evaluator.vocabulary import JobState
from kgsite.error_handlers import ErrorResponseSerializer

ERRORS = {code: ErrorResponseSerializer for code in (400, 401, 403, 404, 409, 429)}


def check_answer(job: VerifyJob) -> dict:
    body = {
        "id": str(job.id),
        "status": job.state,
        "status_url": reverse("evaluator:api-verify-status", args=[job.id]),
        "operator": job.operator_id,
        "chip": job.chip.slug,
        "tier": job.tier,
        "seed": job.seed,
        "run": job.run_label,
        "ranked": False,
        "created_at": job.created_at,
        "started_at": job.started_at,
        "finished_at": job.finished_at,
        "error": job.error,
        "quota": verify.quota_state(user_id=job.owner_id, chip=job.chip),
    }
    if job.state == JobState.DONE:
        body["result"] = job.result
    return body


class VerifyApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=VerifyInput,
        responses={202: VerifyJobOutput, **ERRORS},
        summary="Test mode: an unranked check of one kernel on a chip's runners (public cases and seed, never the "
        "hidden cases); 429 with Retry-After once the hourly quota on the chip is spent",
        tags=["test mode"],
    )
    def post(self, request: Request) -> Response:
        data = VerifyInput(data=request.data)
        data.is_valid(raise_exception=True)
        job = verify.request_check(
            user=request.user,
            operator_id=data.validated_data["operator"],
            chip_slug=data.validated_data["chip"],
            tier=data.validated_data["tier"],
            source=data.validated_data["source"],
            run_label=data.validated_data["run"],
        )
        body = check_answer(job)
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["status_url"]})


class VerifyStatusApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        responses={200: VerifyJobOutput, **ERRORS},
        summary="A test-mode check: its status and, once done, the harness's feedback",
        tags=["test mode"],
    )
    def get(self, request: Request, job_id) -> Response:
        return Response(check_answer(verify.check_for_owner(user=request.user, job_id=job_id)))
