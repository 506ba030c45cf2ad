from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.http import HttpRequest
from django.shortcuts import redirect, render
from django.urls import path

from kgsite.errors import ApplicationError
from kgsite.read_only_admin import ReadOnlyAdmin
from leaderboard.login_throttle import ThrottledAdminAuthenticationForm
from leaderboard.models import Attempt, LeaderboardEntry, LLMModel, ReportedResult, Scaffold, Submission
from leaderboard.services import (
    delete_submission,
    import_reported,
    merge_models,
    merge_scaffolds,
    review_scaffold,
    withdraw_submission,
)

admin.site.login_form = ThrottledAdminAuthenticationForm  # /admin/login/ counts failures like the site's login


def _merge(model_admin: admin.ModelAdmin, request: HttpRequest, queryset, merge) -> None:
    """The selection holds one reviewed record, kept, and the near-duplicates merged into it."""
    reviewed = [item for item in queryset if item.reviewed]
    if len(reviewed) != 1:
        model_admin.message_user(
            request, "Select exactly one reviewed record to keep, and the duplicates to merge into it.", messages.ERROR
        )
        return
    keep = reviewed[0]
    duplicates = [item for item in queryset if item.pk != keep.pk]
    try:
        moved = merge(keep=keep, duplicates=duplicates, user=request.user)
    except ApplicationError as exc:
        model_admin.message_user(request, exc.message, messages.ERROR)
        return
    names = ", ".join(str(item) for item in duplicates)
    model_admin.message_user(request, f"Merged {names} into {keep}: {moved} submission(s) moved.", messages.SUCCESS)


@admin.register(LLMModel)
class LLMModelAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "version",
        "provider",
        "release_date",
        "price_input_per_mtok",
        "price_output_per_mtok",
        "created_by",
        "reviewed",
    )
    list_filter = ("reviewed", "provider")  # the review queue: models uploads named that staff have not checked
    search_fields = ("name", "provider", "version")
    raw_id_fields = ("created_by",)
    actions = ["mark_reviewed", "merge_into_reviewed"]

    @admin.action(description="Mark reviewed (identity and prices checked)", permissions=["change"])
    def mark_reviewed(self, request: HttpRequest, queryset) -> None:
        count = queryset.update(reviewed=True)
        self.message_user(request, f"Marked {count} model(s) reviewed.", messages.SUCCESS)

    @admin.action(description="Merge into the reviewed one (its submissions move, the others are deleted)")
    def merge_into_reviewed(self, request: HttpRequest, queryset) -> None:
        _merge(self, request, queryset, merge_models)

    def has_merge_into_reviewed_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perms(["leaderboard.change_llmmodel", "leaderboard.delete_llmmodel"])


@admin.register(Scaffold)
class ScaffoldAdmin(admin.ModelAdmin):
    list_display = ("name", "version", "kind", "url", "owner", "reviewed")
    list_filter = ("reviewed", "kind")  # the review queue: scaffolds declared by uploads
    search_fields = ("name", "owner__username")
    raw_id_fields = ("owner",)
    # the form checks the constraints too (one reviewed scaffold per name and version)
    actions = ["mark_reviewed", "merge_into_reviewed"]

    @admin.action(description="Merge into the reviewed one (its submissions move, the others are deleted)")
    def merge_into_reviewed(self, request: HttpRequest, queryset) -> None:
        _merge(self, request, queryset, merge_scaffolds)

    def has_merge_into_reviewed_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perms(["leaderboard.change_scaffold", "leaderboard.delete_scaffold"])

    @admin.action(description="Review: every upload naming it uses it, with its kind and URL", permissions=["change"])
    def mark_reviewed(self, request: HttpRequest, queryset) -> None:
        for scaffold in queryset:
            try:
                review_scaffold(scaffold=scaffold, user=request.user)
            except ApplicationError as exc:
                self.message_user(request, f"{scaffold}: {exc.message}", messages.ERROR)
            else:
                self.message_user(request, f"{scaffold} is reviewed.", messages.SUCCESS)


class AttemptInline(admin.TabularInline):
    model = Attempt
    extra = 0
    fields = ("operator", "sample_index", "file_name", "prompt_tokens", "completion_tokens", "wall_time_s")
    readonly_fields = fields
    show_change_link = True
    can_delete = False


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("name", "model", "scaffold", "track", "target_chip", "status", "is_public", "is_demo", "created_at")
    list_filter = ("track", "status", "target_chip", "is_public", "is_demo", "held_out")
    search_fields = ("name", "model__name", "scaffold__name", "uploader__username")
    autocomplete_fields = ("model", "scaffold", "uploader")
    date_hierarchy = "created_at"
    inlines = [AttemptInline]
    # the status follows the jobs (leaderboard.services.sync_submission_status); staff withdraw
    # through the action, never by editing it
    readonly_fields = ("status",)
    actions = ["withdraw"]

    @admin.action(description="Withdraw: take off every board and list, keep the records", permissions=["change"])
    def withdraw(self, request: HttpRequest, queryset) -> None:
        for submission in queryset:
            withdraw_submission(submission=submission, user=request.user)
        self.message_user(request, f"Withdrew {queryset.count()} submission(s).", messages.SUCCESS)

    # deletes go through the service: one transaction that locks the jobs first (a result recorded
    # meanwhile cannot leave an evaluation behind) and takes the leaderboard rows with the submission

    def get_deleted_objects(self, objs, request: HttpRequest):
        # the service deletes the submission's rows as one whole, including those (evaluations) the
        # admin refuses to delete one by one
        deleted_objects, model_count, _perms_needed, protected = super().get_deleted_objects(objs, request)
        return deleted_objects, model_count, set(), protected

    def delete_model(self, request: HttpRequest, obj: Submission) -> None:
        delete_submission(submission=obj, user=request.user)

    def delete_queryset(self, request: HttpRequest, queryset) -> None:
        with transaction.atomic():  # the bulk action deletes all the selected submissions or none
            for submission in queryset.order_by("pk"):
                delete_submission(submission=submission, user=request.user)


@admin.register(Attempt)
class AttemptAdmin(ReadOnlyAdmin):
    """An attempt is the uploaded source its evaluations judged: editing it would pin their verdicts
    on code they never ran."""

    list_display = ("submission", "operator", "sample_index", "prompt_tokens", "completion_tokens", "wall_time_s")
    list_filter = ("operator__source",)
    search_fields = ("submission__name", "operator__id")
    raw_id_fields = ("submission", "operator")


class ReportedImportForm(forms.Form):
    results_csv = forms.FileField(required=False, label="Results table (kgb_paper_results.csv)")
    cost_csv = forms.FileField(required=False, label="Cost table (kgb_paper_cost.csv)")

    def clean(self):
        data = super().clean()
        if not data.get("results_csv") and not data.get("cost_csv"):
            raise forms.ValidationError("Choose at least one CSV file.")
        return data


@admin.register(ReportedResult)
class ReportedResultAdmin(admin.ModelAdmin):
    list_display = (
        "method",
        "model_name",
        "chip_label",
        "operator_set",
        "accuracy_pct",
        "speedup",
        "table",
        "source_name",
    )
    list_filter = ("table", "chip_label", "operator_set", "source_name")
    search_fields = ("method", "model_name")
    change_list_template = "admin/leaderboard/reportedresult/change_list.html"

    def get_urls(self):
        return [
            path("import/", self.admin_site.admin_view(self.import_view), name="leaderboard_reportedresult_import"),
            *super().get_urls(),
        ]

    def import_view(self, request):
        """Staff upload of the paper's CSV tables (the format of leaderboard/data); idempotent."""
        if not self.has_add_permission(request):
            return redirect("admin:index")
        form = ReportedImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            try:
                report = import_reported(
                    results_csv=form.cleaned_data["results_csv"].read().decode("utf-8")
                    if form.cleaned_data["results_csv"]
                    else None,
                    cost_csv=form.cleaned_data["cost_csv"].read().decode("utf-8")
                    if form.cleaned_data["cost_csv"]
                    else None,
                    user=request.user,
                )
            except (KeyError, ValueError, UnicodeDecodeError) as exc:
                messages.error(
                    request,
                    f"Import failed, nothing stored: {exc!r} (expected the columns of the CSVs in leaderboard/data)",
                )
            else:
                messages.success(request, f"Reported results: {report.created} created, {report.updated} updated.")
                return redirect("admin:leaderboard_reportedresult_changelist")
        context = {
            **self.admin_site.each_context(request),
            "form": form,
            "title": "Import published results",
            "opts": self.model._meta,
        }
        return render(request, "admin/leaderboard/reportedresult/import.html", context)


@admin.register(LeaderboardEntry)
class LeaderboardEntryAdmin(ReadOnlyAdmin):
    """Rebuilt from evaluations by leaderboard.services.refresh_leaderboard_entries."""

    list_display = ("submission", "chip", "operator_set", "operators_evaluated", "operators_correct", "updated_at")
    list_filter = ("operator_set", "chip")
    raw_id_fields = ("submission",)
