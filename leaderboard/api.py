"""The public REST API (DRF). Thin: validate the request, call a selector or service, serialize.
Refusals are answered by kgsite.error_handlers.api_exception_handler."""

from __future__ import annotations

import django_filters
from django.db.models import Q
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, permissions, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluator import selectors as evaluator_selectors
from kgsite.error_handlers import ErrorResponseSerializer
from kgsite.pagination import BoundedLimitOffsetPagination
from leaderboard import selectors, services
from leaderboard.models import ReportedResult
from leaderboard.serializers import (
    AttemptSerializer,
    ChipSerializer,
    LeaderboardQuerySerializer,
    LeaderboardResponseSerializer,
    LLMModelSerializer,
    OperatorSerializer,
    ProgressSerializer,
    ReportedResultSerializer,
    ScaffoldSerializer,
    SubmissionSerializer,
    SubmissionUploadSerializer,
)
from leaderboard.throttles import SUBMISSION_THROTTLES
from operators.models import Operator, OperatorSource


class LeaderboardApi(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        parameters=[LeaderboardQuerySerializer],
        responses=LeaderboardResponseSerializer,
        summary="Leaderboard rows (one per submission and chip), filtered and sorted like the web page; each row is "
        "ranked only among rows of its chip, tier, timing protocol and prompt set (rows grouped by those)",
    )
    def get(self, request: Request) -> Response:
        query = LeaderboardQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        sort = data["sort"]  # a known column: checked by the serializer
        filters = selectors.LeaderboardFilters(
            source=data["source"],
            chip=data["chip"],
            tier=data["tier"],
            model=data["model"],
            scaffold=data["scaffold"],
            track=data["track"],
            demo=data["demo"],
            preliminary=data["preliminary"],
            held_out=data["held_out"],
            q=data["q"].strip(),
            sort=sort.removeprefix("-"),
            desc=sort.startswith("-"),
        )
        rows = selectors.leaderboard_rows(filters=filters, viewer=request.user)
        paginator = BoundedLimitOffsetPagination()
        page = paginator.paginate_queryset(rows, request, view=self)
        return paginator.get_paginated_response([row.as_export() for row in page])


class SubmissionListCreateApi(generics.ListAPIView):
    serializer_class = SubmissionSerializer
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]
    parser_classes = [MultiPartParser, FormParser]
    filterset_fields = ["track", "status", "is_demo"]

    def get_queryset(self):
        mine = self.request.query_params.get("mine") in ("1", "true")
        return selectors.submission_list(viewer=self.request.user, mine=mine)

    def get_throttles(self):
        if self.request.method == "POST":
            return [throttle() for throttle in SUBMISSION_THROTTLES]
        return super().get_throttles()

    @extend_schema(
        request={"multipart/form-data": SubmissionUploadSerializer},
        responses={
            201: SubmissionSerializer,
            400: ErrorResponseSerializer,
            401: OpenApiResponse(description="not logged in"),
        },
        summary="Upload a submission (zip + metadata); it is validated, stored and queued for evaluation",
    )
    def post(self, request: Request) -> Response:
        upload = SubmissionUploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        data = upload.validated_data
        submission = services.create_submission(
            uploader=request.user,
            archive_bytes=data["archive"].read(),
            metadata_bytes=data["metadata"].read(),
            choices=services.UploadChoices(
                model_id=data["model"],
                scaffold_id=data["scaffold"],
                new_model=data["new_model"],
                new_scaffold=data["new_scaffold"],
            ),
        )
        submission.attempt_count = submission.attempts.count()
        return Response(
            SubmissionSerializer(submission, context={"request": request}).data, status=status.HTTP_201_CREATED
        )


class SubmissionDetailApi(APIView):
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]

    @extend_schema(responses=SubmissionSerializer, summary="One submission")
    def get(self, request: Request, pk) -> Response:
        submission = selectors.submission_for_viewer(pk=pk, viewer=request.user)
        return Response(SubmissionSerializer(submission, context={"request": request}).data)

    @extend_schema(
        responses={204: None, 403: OpenApiResponse(description="not yours")}, summary="Delete your submission"
    )
    def delete(self, request: Request, pk) -> Response:
        submission = selectors.submission_for_viewer(pk=pk, viewer=request.user)
        services.delete_submission(submission=submission, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SubmissionProgressApi(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=ProgressSerializer, summary="Evaluation progress of a submission")
    def get(self, request: Request, pk) -> Response:
        submission = selectors.submission_for_viewer(pk=pk, viewer=request.user)
        return Response(selectors.submission_progress(submission=submission))


class AttemptDetailApi(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=AttemptSerializer, summary="One attempt (solution file) with its evaluations")
    def get(self, request: Request, pk: int) -> Response:
        attempt = selectors.attempt_for_viewer(pk=pk, viewer=request.user)
        return Response(AttemptSerializer(attempt).data)


class RegisteredModelListApi(generics.ListAPIView):
    """The models an upload may pick by id (its `model` field)."""

    serializer_class = LLMModelSerializer
    permission_classes = [permissions.AllowAny]
    filterset_fields = ["provider", "name", "version"]

    def get_queryset(self):
        return selectors.registered_models()


class RegisteredScaffoldListApi(generics.ListAPIView):
    """The scaffolds an upload may pick by id (its `scaffold` field): the reviewed ones and the caller's own."""

    serializer_class = ScaffoldSerializer
    permission_classes = [permissions.AllowAny]
    filterset_fields = ["name", "version", "kind"]

    def get_queryset(self):
        return selectors.registered_scaffolds(viewer=self.request.user)


class OperatorFilter(django_filters.FilterSet):
    """Unknown values of the choice filters are refused (400), not ignored."""

    source = django_filters.ChoiceFilter(choices=OperatorSource.choices)
    q = django_filters.CharFilter(method="search", label="id, name or category contains")

    class Meta:
        model = Operator
        fields = ["source", "category", "mc"]

    def search(self, queryset, name: str, value: str):
        return queryset.filter(Q(id__icontains=value) | Q(name__icontains=value) | Q(category__icontains=value))


class OperatorListApi(generics.ListAPIView):
    """The catalog's operators."""

    serializer_class = OperatorSerializer
    permission_classes = [permissions.AllowAny]
    filterset_class = OperatorFilter

    def get_queryset(self):
        return selectors.operator_list()


class ChipListApi(generics.ListAPIView):
    """The chips submissions may target."""

    serializer_class = ChipSerializer
    permission_classes = [permissions.AllowAny]
    filterset_fields = ["vendor", "family", "device_type"]

    def get_queryset(self):
        return evaluator_selectors.active_chips().order_by("vendor", "name")


class ReportedResultListApi(generics.ListAPIView):
    serializer_class = ReportedResultSerializer
    permission_classes = [permissions.AllowAny]
    queryset = ReportedResult.objects.all()
    filterset_fields = ["table", "method", "model_name", "chip_label", "operator_set"]
