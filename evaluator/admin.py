from django.contrib import admin

from evaluator.models import Chip, Evaluation, EvaluationJob, JobEvent, Runner, RunnerAuditEvent


@admin.register(Chip)
class ChipAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "vendor", "device_type", "triton_backend", "peak_bandwidth_gbs", "active")
    list_filter = ("vendor", "device_type", "active")
    search_fields = ("name", "slug", "vendor")
    prepopulated_fields = {"slug": ("name",)}


@admin.register(Runner)
class RunnerAdmin(admin.ModelAdmin):
    list_display = ("name", "chip", "state", "last_heartbeat_at", "token_id")
    list_filter = ("chip", "state")
    search_fields = ("name", "token_id")
    readonly_fields = ("token_id", "token_hash", "last_heartbeat_at", "last_environment", "token_rotated_at", "created_at")


class JobEventInline(admin.TabularInline):
    model = JobEvent
    extra = 0
    readonly_fields = ("from_state", "to_state", "runner", "user", "detail", "at")
    can_delete = False


@admin.register(EvaluationJob)
class EvaluationJobAdmin(admin.ModelAdmin):
    list_display = ("id", "attempt", "chip", "tier", "state", "runner", "deliveries", "queued_at", "finished_at")
    list_filter = ("chip", "state", "tier")
    raw_id_fields = ("attempt", "runner")
    readonly_fields = ("secret_seed",)
    inlines = [JobEventInline]


@admin.register(Evaluation)
class EvaluationAdmin(admin.ModelAdmin):
    list_display = ("job", "chip", "verdict", "speedup", "sol_pct", "runner", "created_at")
    list_filter = ("chip", "verdict", "tier", "held_out")
    raw_id_fields = ("job", "attempt", "runner")


@admin.register(JobEvent)
class JobEventAdmin(admin.ModelAdmin):
    list_display = ("job", "from_state", "to_state", "runner", "user", "at")
    list_filter = ("to_state",)
    raw_id_fields = ("job", "runner", "user")


@admin.register(RunnerAuditEvent)
class RunnerAuditEventAdmin(admin.ModelAdmin):
    list_display = ("runner", "action", "user", "at")
    list_filter = ("action",)
    raw_id_fields = ("runner", "user")
