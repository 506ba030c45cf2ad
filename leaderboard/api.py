"""The public REST API (DRF). Thin: validate the request, call a selector or service, serialize."""

from __future__ import annotations

from django.db.models import Count
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, permissions, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from leaderboard import selectors, services
from leaderboard.models import Attempt, ReportedResult, Submission
from leaderboard.serializers import (
    AttemptSerializer,
    LeaderboardQuerySerializer,
    LeaderboardResponseSerializer,
    ProgressSerializer,
    ReportedResultSerializer,
    SubmissionSerializer,
    SubmissionUploadSerializer,
    UploadErrorResponseSerializer,
)
from leaderboard.throttles import SUBMISSION_THROTTLES
from leaderboard.upload import UploadInvalid


class LeaderboardApi(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        parameters=[LeaderboardQuerySerializer],
        responses=LeaderboardResponseSerializer,
        summary="Leaderboard rows (one per submission and chip), filtered and sorted like the web page",
    )
    def get(self, request: Request) -> Response:
        query = LeaderboardQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        sort = data["sort"]
        filters = selectors.LeaderboardFilters(
            source=data["source"],
            chip=data["chip"],
            model=data["model"],
            scaffold=data["scaffold"],
            track=data["track"],
            demo=data["demo"],
            preliminary=data["preliminary"],
            held_out=data["held_out"],
            q=data["q"].strip(),
            sort=sort.lstrip("-") if sort.lstrip("-") in selectors.SORT_KEYS else "accuracy_pct",
            desc=sort.startswith("-") or sort.lstrip("-") not in selectors.SORT_KEYS,
        )
        rows = [r.as_dict() for r in selectors.leaderboard_rows(filters=filters, viewer=request.user)]
        for row in rows:
            row.pop("model_id", None)
            row.pop("scaffold_id", None)
        return Response({"count": len(rows), "results": rows})


def _visible(request: Request, submission: Submission) -> Submission:
    user = request.user
    if not submission.is_public and not (
        user.is_authenticated and (user.is_staff or submission.uploader_id == user.pk)
    ):
        raise NotFound("No such submission.")
    return submission


class SubmissionListCreateApi(generics.ListAPIView):
    serializer_class = SubmissionSerializer
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]
    parser_classes = [MultiPartParser, FormParser]
    filterset_fields = ["track", "status", "is_demo"]

    def get_queryset(self):
        queryset = (
            selectors.submissions_visible_to(self.request.user)
            .select_related("model", "scaffold", "target_chip", "uploader")
            .annotate(attempt_count=Count("attempts"))
        )
        if self.request.query_params.get("mine") in ("1", "true") and self.request.user.is_authenticated:
            queryset = queryset.filter(uploader=self.request.user)
        return queryset.order_by("-created_at")

    def get_throttles(self):
        if self.request.method == "POST":
            return [throttle() for throttle in SUBMISSION_THROTTLES]
        return super().get_throttles()

    @extend_schema(
        request={"multipart/form-data": SubmissionUploadSerializer},
        responses={
            201: SubmissionSerializer,
            400: UploadErrorResponseSerializer,
            401: OpenApiResponse(description="not logged in"),
        },
        summary="Upload a submission (zip + metadata); it is validated, stored and queued for evaluation",
    )
    def post(self, request: Request) -> Response:
        upload = SubmissionUploadSerializer(data=request.data)
        if not upload.is_valid():
            errors = [{"where": field, "message": str(msgs[0])} for field, msgs in upload.errors.items()]
            return Response({"detail": "invalid upload", "errors": errors}, status=status.HTTP_400_BAD_REQUEST)
        try:
            submission = services.create_submission(
                uploader=request.user,
                archive_bytes=upload.validated_data["archive"].read(),
                metadata_bytes=upload.validated_data["metadata"].read(),
            )
        except UploadInvalid as exc:
            errors = [{"where": e.where, "message": e.message} for e in exc.errors]
            return Response({"detail": "invalid upload", "errors": errors}, status=status.HTTP_400_BAD_REQUEST)
        submission.attempt_count = submission.attempts.count()
        return Response(
            SubmissionSerializer(submission, context={"request": request}).data, status=status.HTTP_201_CREATED
        )


class SubmissionDetailApi(APIView):
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]

    def _get(self, request: Request, pk) -> Submission:
        submission = get_object_or_404(
            Submission.objects.select_related("model", "scaffold", "target_chip", "uploader").annotate(
                attempt_count=Count("attempts")
            ),
            pk=pk,
        )
        return _visible(request, submission)

    @extend_schema(responses=SubmissionSerializer, summary="One submission")
    def get(self, request: Request, pk) -> Response:
        return Response(SubmissionSerializer(self._get(request, pk), context={"request": request}).data)

    @extend_schema(
        responses={204: None, 403: OpenApiResponse(description="not yours")}, summary="Delete your submission"
    )
    def delete(self, request: Request, pk) -> Response:
        submission = self._get(request, pk)
        try:
            services.delete_submission(submission=submission, user=request.user)
        except PermissionError:
            raise PermissionDenied("Only the uploader can delete this submission.") from None
        return Response(status=status.HTTP_204_NO_CONTENT)


class SubmissionProgressApi(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=ProgressSerializer, summary="Evaluation progress of a submission")
    def get(self, request: Request, pk) -> Response:
        submission = _visible(request, get_object_or_404(Submission, pk=pk))
        return Response(selectors.submission_progress(submission=submission))


class AttemptDetailApi(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=AttemptSerializer, summary="One attempt (solution file) with its evaluations")
    def get(self, request: Request, pk: int) -> Response:
        attempt = get_object_or_404(Attempt.objects.prefetch_related("evaluations__chip"), pk=pk)
        _visible(request, attempt.submission)
        return Response(AttemptSerializer(attempt).data)


class ReportedResultListApi(generics.ListAPIView):
    serializer_class = ReportedResultSerializer
    permission_classes = [permissions.AllowAny]
    queryset = ReportedResult.objects.all()
    filterset_fields = ["table", "method", "model_name", "chip_label", "operator_set"]
