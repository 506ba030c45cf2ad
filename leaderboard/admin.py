from django.contrib import admin

from leaderboard.models import Attempt, LLMModel, ReportedResult, Scaffold, Submission


@admin.register(LLMModel)
class LLMModelAdmin(admin.ModelAdmin):
    list_display = ("name", "version", "provider", "release_date", "price_input_per_mtok", "price_output_per_mtok")
    list_filter = ("provider",)
    search_fields = ("name", "provider", "version")


@admin.register(Scaffold)
class ScaffoldAdmin(admin.ModelAdmin):
    list_display = ("name", "version", "kind", "url")
    list_filter = ("kind",)
    search_fields = ("name",)


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


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ("submission", "operator", "sample_index", "prompt_tokens", "completion_tokens", "wall_time_s")
    list_filter = ("operator__source",)
    search_fields = ("submission__name", "operator__id")
    raw_id_fields = ("submission", "operator")


@admin.register(ReportedResult)
class ReportedResultAdmin(admin.ModelAdmin):
    list_display = ("method", "model_name", "chip_label", "operator_set", "accuracy_pct", "speedup", "table", "source_name")
    list_filter = ("table", "chip_label", "operator_set", "source_name")
    search_fields = ("method", "model_name")
