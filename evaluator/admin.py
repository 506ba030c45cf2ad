from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path

from evaluator import services
from evaluator.models import Chip, Evaluation, EvaluationJob, JobEvent, Runner, RunnerAuditEvent, VerifyJob, VerifyQuota
from kgsite.errors import ApplicationError
from kgsite.read_only_admin import ReadOnlyAdmin


@admin.register(Chip)
class ChipAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "slug",
        "vendor",
        "device_type",
        "triton_backend",
        "measured_bandwidth_gbs",
        "peak_bandwidth_gbs",
        "active",
    )
    list_filter = ("vendor", "device_type", "active")
    search_fields = ("name", "slug", "vendor")
    prepopulated_fields = {"slug": ("name",)}


class RunnerAuditEventInline(admin.TabularInline):
    model = RunnerAuditEvent
    extra = 0
    readonly_fields = ("action", "user", "detail", "at")
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class RunnerRegisterForm(forms.Form):
    chip = forms.ModelChoiceField(queryset=Chip.objects.filter(active=True))
    name = forms.CharField(max_length=100, help_text="e.g. the host name; unique per chip.")
    signing_public_key = forms.CharField(
        required=False,
        max_length=64,
        label="Signing public key",
        help_text="Optional: ed25519:... printed by `python -m evaluator bundle keygen` on the runner's side. "
        "Left empty, the site makes the key pair and shows the private key once.",
    )


@admin.register(Runner)
class RunnerAdmin(admin.ModelAdmin):
    list_display = ("name", "chip", "state", "online", "last_heartbeat_at", "current_job", "token_id")
    list_filter = ("chip", "state")
    search_fields = ("name", "token_id")
    # the token's hash is neither shown nor editable: credentials change only through the services
    exclude = ("token_hash",)
    readonly_fields = (
        "chip",
        "state",
        "token_id",
        "signing_key_id",
        "signing_public_key",
        "current_job",
        "last_heartbeat_at",
        "last_environment",
        "token_rotated_at",
        "created_by",
        "created_at",
    )
    actions = ["drain_runners", "disable_runners", "activate_runners", "rotate_tokens", "new_signing_keys"]
    inlines = [RunnerAuditEventInline]

    @admin.display(boolean=True)
    def online(self, runner: Runner) -> bool:
        return runner.is_online()

    def get_urls(self):
        custom = [path("register/", self.admin_site.admin_view(self.register_view), name="evaluator_runner_register")]
        return custom + super().get_urls()

    def save_model(self, request: HttpRequest, obj: Runner, form, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if change and form.changed_data:
            services.audit_runner_edit(runner=obj, user=request.user, changed=form.changed_data)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        # deleting a runner would delete its audit trail with it (RunnerAuditEvent cascades): disable it
        return False

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context=None) -> HttpResponse:
        # runners are created only through the service, which issues the token
        return redirect("admin:evaluator_runner_register")

    def register_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = RunnerRegisterForm(request.POST or None)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Register a runner",
            "form": form,
        }
        if request.method == "POST" and form.is_valid():
            try:
                issued = services.enroll_runner(
                    chip=form.cleaned_data["chip"],
                    name=form.cleaned_data["name"],
                    user=request.user,
                    signing_public_key=form.cleaned_data["signing_public_key"] or None,
                )
            except ApplicationError as error:  # shown on the form
                form.add_error("signing_public_key" if "key" in error.code else "name", error.message)
            else:
                # rendered directly, never stored in a message or session: this is the only time they are shown
                return self._token_page(
                    request, [(issued.runner, issued.token, issued.signing_key)], "Runner registered"
                )
        return TemplateResponse(request, "evaluator/admin/register_runner.html", context)

    def _token_page(self, request: HttpRequest, issued: list, title: str) -> HttpResponse:
        context = {**self.admin_site.each_context(request), "opts": self.model._meta, "title": title, "issued": issued}
        response = TemplateResponse(request, "evaluator/admin/runner_tokens.html", context)
        response["Cache-Control"] = "no-store"
        return response

    def _change_state(self, request: HttpRequest, queryset, change, verb: str) -> None:
        for runner in queryset:
            change(runner=runner, user=request.user)
        self.message_user(request, f"{verb} {queryset.count()} runner(s).", messages.SUCCESS)

    @admin.action(description="Drain: finish current jobs, take no new ones", permissions=["change"])
    def drain_runners(self, request: HttpRequest, queryset) -> None:
        self._change_state(request, queryset, services.drain_runner, "Draining")

    @admin.action(description="Disable: refuse the token at once", permissions=["change"])
    def disable_runners(self, request: HttpRequest, queryset) -> None:
        self._change_state(request, queryset, services.disable_runner, "Disabled")

    @admin.action(description="Activate", permissions=["change"])
    def activate_runners(self, request: HttpRequest, queryset) -> None:
        self._change_state(request, queryset, services.activate_runner, "Activated")

    @admin.action(description="Rotate token (shows the new tokens once)", permissions=["change"])
    def rotate_tokens(self, request: HttpRequest, queryset) -> HttpResponse:
        issued = [(runner, services.rotate_token(runner=runner, user=request.user), None) for runner in queryset]
        return self._token_page(request, issued, "New runner tokens")

    @admin.action(description="New signing key (shows the private keys once)", permissions=["change"])
    def new_signing_keys(self, request: HttpRequest, queryset) -> HttpResponse:
        issued = []
        for runner in queryset:
            private_key = services.issue_signing_key(runner=runner, user=request.user)
            runner.refresh_from_db()  # its new public key, shown beside the private one
            issued.append((runner, None, private_key))
        return self._token_page(request, issued, "New runner signing keys")


class JobEventInline(admin.TabularInline):
    model = JobEvent
    extra = 0
    readonly_fields = ("from_state", "to_state", "runner", "user", "detail", "at")
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False  # events are written by evaluator.services as the job changes


@admin.register(EvaluationJob)
class EvaluationJobAdmin(admin.ModelAdmin):
    list_display = ("id", "attempt", "chip", "tier", "state", "runner", "deliveries", "queued_at", "finished_at")
    list_filter = ("chip", "state", "tier")
    # a job changes only through evaluator.services, which logs a JobEvent; the admin can cancel
    readonly_fields = (
        "attempt",
        "owner",
        "chip",
        "tier",
        "state",
        "runner",
        "secret_seed",
        "timeout_s",
        "deliveries",
        "queued_at",
        "started_at",
        "finished_at",
        "error",
        "lease_id",
        "lease_expires_at",
        "sent_at",
    )
    inlines = [JobEventInline]
    actions = ["cancel_jobs"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # jobs are created by services.create_jobs (queue cap, JobEvent, dispatch to the chip's queue);
        # one added here would skip all three
        return False

    @admin.action(description="Cancel (queued or running jobs; a late result is then refused)", permissions=["change"])
    def cancel_jobs(self, request: HttpRequest, queryset) -> None:
        for job in queryset:
            services.cancel_job(job=job, user=request.user, detail="cancelled in the admin")
        self.message_user(request, f"Cancelled {queryset.count()} job(s) (final ones are unchanged).", messages.SUCCESS)


@admin.register(Evaluation)
class EvaluationAdmin(ReadOnlyAdmin):
    """A verdict is recorded by evaluator.services from a runner's report, with a JobEvent."""

    list_display = ("job", "chip", "verdict", "speedup", "sol_pct", "runner", "created_at")
    list_filter = ("chip", "verdict", "tier", "held_out")
    raw_id_fields = ("job", "attempt", "runner")


class AuditLogAdmin(admin.ModelAdmin):
    """An audit log is read, never written, in the admin: its rows come from evaluator.services."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(JobEvent)
class JobEventAdmin(AuditLogAdmin):
    # deletable: deleting a submission (or a job) takes its events with it
    list_display = ("job", "from_state", "to_state", "runner", "user", "at")
    list_filter = ("to_state",)


@admin.register(RunnerAuditEvent)
class RunnerAuditEventAdmin(ReadOnlyAdmin):
    # not even deletable: runners are never deleted, so neither is their trail
    list_display = ("runner", "action", "user", "at")
    list_filter = ("action",)


@admin.register(VerifyJob)
class VerifyJobAdmin(ReadOnlyAdmin):
    """Test-mode checks, for the record: written only by evaluator.services.verify."""

    list_display = ("id", "owner", "chip", "operator", "tier", "state", "run_label", "created_at")
    list_filter = ("state", "chip", "tier")
    search_fields = ("id", "owner__username", "operator__id", "run_label")
    date_hierarchy = "created_at"


@admin.register(VerifyQuota)
class VerifyQuotaAdmin(admin.ModelAdmin):
    """Raise (or cut) one user's test-mode checks per hour, on one chip or on every chip."""

    list_display = ("user", "chip", "per_hour", "note", "updated_at")
    list_filter = ("chip",)
    search_fields = ("user__username", "note")
    autocomplete_fields = ("user",)
