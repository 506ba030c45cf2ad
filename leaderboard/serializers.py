"""DRF serializers of the public API (input and output shapes; the OpenAPI schema is generated from them)."""

from __future__ import annotations

from rest_framework import serializers

from evaluator.models import Chip
from evaluator.vocabulary import Tier
from kgsite.pagination import MAX_PAGE_SIZE
from leaderboard import metrics
from leaderboard.models import Attempt, LLMModel, ReportedResult, Scaffold, Submission
from leaderboard.selectors import SORT_KEYS, SOURCE_CHOICES
from leaderboard.upload import MAX_ARCHIVE_BYTES, MAX_METADATA_BYTES
from leaderboard.vocabulary import MIXED, Track
from operators.models import Operator


class LeaderboardQuerySerializer(serializers.Serializer):
    source = serializers.ChoiceField(choices=[c for c, _ in SOURCE_CHOICES], required=False, default="all")
    chip = serializers.SlugField(required=False, default="", allow_blank=True)
    tier = serializers.ChoiceField(
        choices=["", *Tier.values, MIXED],
        required=False,
        default="",
        help_text='the tier of the rows\' verdicts ("" = every tier)',
    )
    # ids are 64-bit: a larger number is refused here instead of overflowing the database driver
    model = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1, max_value=2**63 - 1)
    scaffold = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1, max_value=2**63 - 1)
    track = serializers.ChoiceField(choices=["", *Track.values], required=False, default="")
    demo = serializers.ChoiceField(choices=["include", "exclude", "only"], required=False, default="include")
    preliminary = serializers.BooleanField(required=False, default=True)
    held_out = serializers.BooleanField(required=False, default=False)
    q = serializers.CharField(required=False, default="", allow_blank=True, max_length=80)
    sort = serializers.CharField(
        required=False, default="-accuracy_pct", max_length=40, help_text="a column key, '-' first for descending"
    )
    limit = serializers.IntegerField(required=False, min_value=1, help_text=f"rows per page (at most {MAX_PAGE_SIZE})")
    offset = serializers.IntegerField(required=False, min_value=0)

    # a value naming nothing is refused: silently ignored, chip=nonexistent answered every chip
    def validate_chip(self, value: str) -> str:
        if value and not Chip.objects.filter(slug=value).exists():
            known = ", ".join(Chip.objects.order_by("slug").values_list("slug", flat=True))
            raise serializers.ValidationError(f"unknown chip {value!r}; chips: {known}")
        return value

    def validate_model(self, value: int | None) -> int | None:
        if value is not None and not LLMModel.objects.filter(pk=value).exists():
            raise serializers.ValidationError(f"no model has id {value} (GET /api/v1/models/)")
        return value

    def validate_scaffold(self, value: int | None) -> int | None:
        if value is not None and not Scaffold.objects.filter(pk=value).exists():
            raise serializers.ValidationError(f"no scaffold has id {value} (GET /api/v1/scaffolds/)")
        return value

    def validate_sort(self, value: str) -> str:
        if value.removeprefix("-") not in SORT_KEYS:
            raise serializers.ValidationError(f"unknown sort {value!r}; sorts: {', '.join(sorted(SORT_KEYS))}")
        return value


class LeaderboardRowSerializer(serializers.Serializer):
    submission_id = serializers.UUIDField()
    name = serializers.CharField()
    model = serializers.CharField()
    provider = serializers.CharField()
    scaffold = serializers.CharField()
    scaffold_kind = serializers.CharField()
    track = serializers.CharField()
    chip = serializers.CharField()
    chip_name = serializers.CharField()
    status = serializers.CharField()
    is_demo = serializers.BooleanField()
    is_public = serializers.BooleanField()
    operators_attempted = serializers.IntegerField()
    operators_evaluated = serializers.IntegerField()
    compiled_pct = serializers.FloatField(allow_null=True)
    accuracy_pct = serializers.FloatField(allow_null=True)
    fast1_pct = serializers.FloatField(
        allow_null=True, help_text="null on chips whose timings are not meaningful (the cpu interpreter)"
    )
    speedup = serializers.FloatField(allow_null=True)
    mean_sol_pct = serializers.FloatField(allow_null=True)
    pass1_pct = serializers.FloatField(allow_null=True)
    pass5_pct = serializers.FloatField(allow_null=True)
    pass10_pct = serializers.FloatField(allow_null=True)
    samples = serializers.IntegerField()
    samples_per_operator = serializers.IntegerField()
    total_tokens = serializers.IntegerField()
    tokens_per_success = serializers.FloatField(allow_null=True)
    cost_usd = serializers.FloatField(allow_null=True)
    cost_per_success_usd = serializers.FloatField(allow_null=True)
    wall_time_h = serializers.FloatField(allow_null=True)
    held_out = serializers.BooleanField()
    hidden_cases_passed = serializers.IntegerField(
        help_text="held-out rows: hidden cases (the site's private shapes) passed, summed over operators"
    )
    held_out_label = serializers.CharField(
        help_text='"held-out verified (secret seed + N hidden shapes)" on held-out rows, else empty'
    )
    preliminary = serializers.BooleanField()
    tier = serializers.CharField(help_text='the tier of the row\'s counted verdicts ("mixed" when several)')
    timing_protocol = serializers.CharField(
        help_text='FLUSH:CLOCK of its speedups; "untimed" on chips whose timings mean nothing, "mixed" when several'
    )
    prompt_set = serializers.CharField(help_text="the prompt set its kernels were generated from")
    rank = serializers.IntegerField(
        allow_null=True,
        help_text="rank among the rows of the same chip, tier, timing protocol and prompt set (complete, not "
        "preliminary) in the requested order; null when not ranked",
    )
    unranked_reason = serializers.CharField(help_text='why the row has no rank ("" when it has one)')
    pareto = serializers.BooleanField()


class LeaderboardResponseSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = LeaderboardRowSerializer(many=True)


class OperatorSerializer(serializers.ModelSerializer):
    class Meta:
        model = Operator
        fields = ["id", "source", "name", "category", "mc", "provisional", "case_counts", "url"]
        read_only_fields = fields

    url = serializers.SerializerMethodField()

    def get_url(self, obj: Operator) -> str:
        return f"/operators/{obj.pk}/"


class ChipSerializer(serializers.ModelSerializer):
    class Meta:
        model = Chip
        fields = ["slug", "name", "vendor", "family", "device_type", "timing_meaningful", "peak_bandwidth_gbs"]
        read_only_fields = fields


class SubmissionSerializer(serializers.ModelSerializer):
    model = serializers.StringRelatedField()
    scaffold = serializers.StringRelatedField()
    target_chip = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    uploader = serializers.StringRelatedField()
    attempts = serializers.IntegerField(source="attempt_count", read_only=True)
    url = serializers.SerializerMethodField()

    class Meta:
        model = Submission
        fields = [
            "id",
            "name",
            "model",
            "scaffold",
            "track",
            "target_chip",
            "uploader",
            "status",
            "is_public",
            "is_demo",
            "held_out",
            "created_at",
            "attempts",
            "url",
        ]
        read_only_fields = fields

    def get_url(self, obj: Submission) -> str:
        request = self.context.get("request")
        path = f"/submissions/{obj.pk}/"
        return request.build_absolute_uri(path) if request else path


class SubmissionUploadSerializer(serializers.Serializer):
    archive = serializers.FileField(help_text=f"zip of <ns>__<op>.py files, at most {MAX_ARCHIVE_BYTES // 2**20} MiB")
    metadata = serializers.FileField(
        help_text=f"metadata JSON (docs/submission_format.md), at most {MAX_METADATA_BYTES // 2**20} MiB"
    )
    model = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=2**63 - 1,
        help_text="id of a registered model (GET /api/v1/models/); replaces the metadata's model",
    )
    scaffold = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=2**63 - 1,
        help_text="id of a reviewed scaffold or one of yours (GET /api/v1/scaffolds/); replaces the metadata's",
    )
    new_model = serializers.BooleanField(
        default=False, help_text="the metadata's model is new, though close to a registered one"
    )
    new_scaffold = serializers.BooleanField(
        default=False, help_text="the metadata's scaffold is new, though close to a known one"
    )


class LLMModelSerializer(serializers.ModelSerializer):
    class Meta:
        model = LLMModel
        fields = [
            "id",
            "provider",
            "name",
            "version",
            "release_date",
            "price_input_per_mtok",
            "price_output_per_mtok",
            "price_cached_input_per_mtok",
            "url",
            "reviewed",
        ]
        read_only_fields = fields


class ScaffoldSerializer(serializers.ModelSerializer):
    class Meta:
        model = Scaffold
        fields = ["id", "name", "version", "kind", "url", "reviewed"]
        read_only_fields = fields


class ProgressSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    finished = serializers.IntegerField()
    queued = serializers.IntegerField()
    running = serializers.IntegerField()
    failed = serializers.IntegerField()
    percent = serializers.IntegerField()
    active = serializers.BooleanField()
    status = serializers.CharField()
    verdicts = serializers.DictField(child=serializers.IntegerField())


class EvaluationSummarySerializer(serializers.Serializer):
    chip = serializers.CharField(source="chip.slug")
    tier = serializers.CharField()
    verdict = serializers.CharField()
    reason = serializers.CharField()
    cases_total = serializers.IntegerField()
    cases_passed = serializers.IntegerField()
    speedup = serializers.FloatField(allow_null=True)
    sol_pct = serializers.FloatField(allow_null=True)
    held_out = serializers.BooleanField()
    hidden_cases_passed = serializers.IntegerField()
    held_out_label = serializers.SerializerMethodField()
    findings = serializers.JSONField()
    created_at = serializers.DateTimeField()

    def get_held_out_label(self, evaluation) -> str:
        return metrics.held_out_label(evaluation.held_out, evaluation.hidden_cases_passed)


class AttemptSerializer(serializers.ModelSerializer):
    operator = serializers.CharField(source="operator_id")
    submission = serializers.UUIDField(source="submission_id")
    evaluations = EvaluationSummarySerializer(many=True)

    class Meta:
        model = Attempt
        fields = [
            "id",
            "submission",
            "operator",
            "sample_index",
            "file_name",
            "source",
            "source_sha256",
            "prompt_tokens",
            "completion_tokens",
            "cached_tokens",
            "reasoning_tokens",
            "turns",
            "wall_time_s",
            "evaluations",
        ]
        read_only_fields = fields


class ReportedResultSerializer(serializers.ModelSerializer):
    class Meta:
        model = ReportedResult
        fields = [
            "id",
            "source_name",
            "source_url",
            "table",
            "method",
            "model_name",
            "chip_label",
            "operator_set",
            "accuracy_pct",
            "speedup",
            "total_tokens_m",
            "tokens_per_success_m",
            "total_time_h",
            "note",
        ]
        read_only_fields = fields
