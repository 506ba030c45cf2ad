"""Site-side records of the evaluator: chips, runners, evaluation jobs and their results.

Only the site imports this module (runner machines run evaluator.harness / evaluator.runner). The
evaluator knows jobs and evaluations, not submissions: a job points at the attempt it evaluates
through a string foreign key ("leaderboard.Attempt") and never imports the leaderboard. The words
(states, tiers, verdicts) come from evaluator.vocabulary.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from evaluator.vocabulary import DeviceType, JobState, RunnerState, Tier, Verdict


class Chip(models.Model):
    """A hardware platform with its published peaks (and, where we have them, our measurements)."""

    slug = models.SlugField(unique=True, max_length=40)
    name = models.CharField(max_length=100)
    vendor = models.CharField(max_length=60)
    family = models.CharField(
        max_length=30,
        help_text="Chip family for prompts: nvidia, amd, ascend, moore_threads, hygon, iluvatar, metax, cpu.",
    )
    device_type = models.CharField(max_length=10, choices=DeviceType.choices)
    triton_backend = models.CharField(
        max_length=60, help_text="Triton backend or fork, e.g. 'nvidia', 'amd', 'triton-ascend'."
    )
    l2_bytes = models.BigIntegerField(null=True, blank=True)
    # two sets of ceilings: the datasheet's, shown for reference, and ours, measured on the chip. The
    # ranking (%SOL, the physical-limit check) uses the measured figure where there is one
    # (evaluator.selectors.chip_ceilings); runners receive those with every job.
    peak_bandwidth_gbs = models.FloatField(null=True, blank=True, help_text="Datasheet peak memory bandwidth, GB/s.")
    peak_tflops = models.JSONField(default=dict, blank=True, help_text="Datasheet dense peak per dtype, TFLOP/s.")
    measured_bandwidth_gbs = models.FloatField(
        null=True, blank=True, help_text="Memory bandwidth we measured on the chip (large device copy), GB/s."
    )
    measured_tflops = models.JSONField(
        default=dict, blank=True, help_text="Dense rates per dtype we measured on the chip, TFLOP/s."
    )
    measured = models.JSONField(
        default=dict, blank=True, help_text="How and when the measured figures were taken (date, machine, notes)."
    )
    sources = models.TextField(blank=True, help_text="Where the published figures come from.")
    timing_meaningful = models.BooleanField(default=True, help_text="False for the CPU interpreter: no speedups.")
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["vendor", "name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(peak_bandwidth_gbs__isnull=True) | models.Q(peak_bandwidth_gbs__gt=0),
                name="chip_bandwidth_positive",
            ),
            models.CheckConstraint(
                condition=models.Q(measured_bandwidth_gbs__isnull=True) | models.Q(measured_bandwidth_gbs__gt=0),
                name="chip_measured_bandwidth_positive",
            ),
            models.CheckConstraint(
                condition=models.Q(device_type__in=DeviceType.values), name="chip_device_type_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def queue_name(self) -> str:
        return f"chip.{self.slug}"

    @property
    def test_queue_name(self) -> str:
        """Test-mode checks (VerifyJob): consumed by the same runners, after the ranked queue."""
        return f"chip.{self.slug}.test"


class Runner(models.Model):
    """A registered machine for one chip. Its token is shown once and stored hashed (sha256). Its
    results files are signed with an Ed25519 key pair: the runner keeps the private key, the site
    stores only the public key (evaluator/harness/signing.py); nothing stored here can sign."""

    name = models.CharField(max_length=100)
    chip = models.ForeignKey(Chip, on_delete=models.PROTECT, related_name="runners")
    token_id = models.CharField(max_length=16, unique=True, help_text="Public part of the token, for lookup.")
    token_hash = models.CharField(max_length=64, help_text="sha256 hex of the whole token.")
    signing_public_key = models.CharField(
        max_length=64, blank=True, default="", help_text="Ed25519 public key of results files (ed25519:<base64>)."
    )
    signing_key_id = models.CharField(
        max_length=16, blank=True, default="", help_text="First 16 hex of the public key's sha256: names the signer."
    )
    state = models.CharField(max_length=10, choices=RunnerState.choices, default=RunnerState.ACTIVE)
    last_heartbeat_at = models.DateTimeField(null=True, blank=True)
    last_environment = models.JSONField(default=dict, blank=True)
    current_job = models.ForeignKey("EvaluationJob", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    token_rotated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["chip__slug", "name"]
        constraints = [
            models.UniqueConstraint(fields=["chip", "name"], name="runner_unique_name_per_chip"),
            models.CheckConstraint(condition=models.Q(state__in=RunnerState.values), name="runner_state_valid"),
            # import_results finds the signer of a results file by its key id (and the index this makes)
            models.UniqueConstraint(
                fields=["signing_key_id"], condition=~models.Q(signing_key_id=""), name="runner_unique_signing_key"
            ),
            models.CheckConstraint(
                condition=models.Q(signing_key_id="", signing_public_key="")
                | (~models.Q(signing_key_id="") & ~models.Q(signing_public_key="")),
                name="runner_signing_key_complete",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.chip.slug})"

    def is_online(self, now=None) -> bool:
        if self.last_heartbeat_at is None:
            return False
        now = now or timezone.now()
        return (now - self.last_heartbeat_at).total_seconds() <= settings.KGB_RUNNER_OFFLINE_AFTER_S


class EvaluationJob(models.Model):
    """One attempt to be evaluated on one chip. Created before its Celery task is sent."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    attempt = models.ForeignKey("leaderboard.Attempt", on_delete=models.CASCADE, related_name="jobs")
    # whose queue the job counts against (the uploader of the attempt's submission); the queue cap
    # and the fairness between users are rules of jobs, so the job carries its owner
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="evaluation_jobs"
    )
    chip = models.ForeignKey(Chip, on_delete=models.PROTECT, related_name="jobs")
    tier = models.CharField(max_length=10, choices=Tier.choices)
    state = models.CharField(max_length=10, choices=JobState.choices, default=JobState.QUEUED)
    runner = models.ForeignKey(Runner, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs")
    # held-out runs: the seed stays on the site and in the runner's trusted harness, never in the
    # candidate's process, in logs or in the public API
    secret_seed = models.BigIntegerField(null=True, blank=True)
    timeout_s = models.PositiveIntegerField(default=600)
    deliveries = models.PositiveIntegerField(default=0, help_text="How many times a runner picked this job up.")
    # the claim lease of the current delivery (evaluator.services.dispatch): set by a claim, renewed
    # by the running worker. A message for a job under a live lease is a duplicate; a running job
    # whose lease ran out lost its runner and is queued again (the expiry is cleared, the id kept
    # until another claim: its holder may still take the job back). Both are cleared when it settles.
    lease_id = models.UUIDField(null=True, blank=True, help_text="Claim lease of the last delivery.")
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(
        null=True, blank=True, help_text="When a message for the job was last sent to its chip's queue."
    )
    queued_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True, help_text="Why the job failed without a verdict.")

    class Meta:
        ordering = ["-queued_at"]
        constraints = [
            models.CheckConstraint(condition=models.Q(state__in=JobState.values), name="job_state_valid"),
            models.CheckConstraint(condition=models.Q(tier__in=Tier.values), name="job_tier_valid"),
            # only a running job holds a live lease, and a live lease has an id
            models.CheckConstraint(
                condition=models.Q(lease_expires_at__isnull=True)
                | models.Q(lease_id__isnull=False, state=JobState.RUNNING),
                name="job_lease_expiry_only_running",
            ),
        ]
        indexes = [
            # queue depth per chip and the runners page's in-flight list
            models.Index(fields=["chip", "state"], name="job_chip_state_idx"),
            # submission progress, and the leaderboard's "are all jobs of this submission settled"
            models.Index(fields=["attempt", "state"], name="job_attempt_state_idx"),
            # the queue cap: a user's queued and running jobs (evaluator.services.dispatch)
            models.Index(fields=["owner", "state"], name="job_owner_state_idx"),
            # the lease reaper: running jobs of a chip whose lease ran out (requeue_expired_leases)
            models.Index(
                fields=["chip", "lease_expires_at"],
                condition=models.Q(state=JobState.RUNNING),
                name="job_running_lease_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"job {self.id} ({self.state})"

    @property
    def held_out(self) -> bool:
        return self.secret_seed is not None


class EvaluationQuerySet(models.QuerySet):
    def ranked(self) -> EvaluationQuerySet:
        """Evaluations the site's check of the result against its job accepted: the only ones that
        count in any rank, accuracy or speedup (evaluator.services.result_checks)."""
        return self.filter(rejected_reason="")


class Evaluation(models.Model):
    """The verdict of one job: exactly one per job, whatever the number of deliveries. A result
    that contradicts its job is recorded with its verdict but `rejected_reason` set: never ranked."""

    job = models.OneToOneField(EvaluationJob, on_delete=models.CASCADE, related_name="evaluation")
    # denormalised from the job so leaderboard aggregation needs no join through jobs
    attempt = models.ForeignKey("leaderboard.Attempt", on_delete=models.CASCADE, related_name="evaluations")
    chip = models.ForeignKey(Chip, on_delete=models.PROTECT, related_name="evaluations")
    runner = models.ForeignKey(Runner, null=True, blank=True, on_delete=models.SET_NULL, related_name="evaluations")
    tier = models.CharField(max_length=10, choices=Tier.choices)
    held_out = models.BooleanField(default=False)
    verdict = models.CharField(max_length=20, choices=Verdict.choices)
    reason = models.TextField(blank=True)
    cases = models.JSONField(default=list, blank=True)
    cases_total = models.PositiveIntegerField(default=0)
    cases_passed = models.PositiveIntegerField(default=0)
    # held-out runs: how many of the site operator's hidden cases (evaluator/hidden_cases.py) passed
    hidden_cases_passed = models.PositiveIntegerField(default=0)
    timing = models.JSONField(null=True, blank=True)
    speedup = models.FloatField(null=True, blank=True)
    sol_pct = models.FloatField(null=True, blank=True)
    findings = models.JSONField(default=list, blank=True)
    environment = models.JSONField(default=dict, blank=True)
    harness_version = models.CharField(max_length=40, blank=True)
    result_schema = models.CharField(max_length=30, blank=True)
    duration_s = models.FloatField(null=True, blank=True)
    stderr_tail = models.TextField(blank=True)
    rejected_reason = models.TextField(
        blank=True,
        default="",
        help_text="Why the site rejected the result (it contradicts its job); empty when it may be ranked.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = EvaluationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=models.Q(verdict__in=Verdict.values), name="evaluation_verdict_valid"),
            models.CheckConstraint(
                condition=models.Q(rejected_reason="") | models.Q(speedup__isnull=True, sol_pct__isnull=True),
                name="evaluation_rejected_unranked",
            ),
            models.CheckConstraint(
                condition=models.Q(speedup__isnull=True) | models.Q(speedup__gt=0), name="evaluation_speedup_positive"
            ),
            models.CheckConstraint(
                condition=models.Q(cases_passed__lte=models.F("cases_total")), name="evaluation_cases_consistent"
            ),
            models.CheckConstraint(
                condition=models.Q(hidden_cases_passed__lte=models.F("cases_passed"))
                & (models.Q(held_out=True) | models.Q(hidden_cases_passed=0)),
                name="evaluation_hidden_cases_consistent",
            ),
        ]
        indexes = [
            # leaderboard aggregation: evaluations per chip joined to attempts
            models.Index(fields=["chip", "attempt"], name="evaluation_chip_attempt_idx"),
            # an operator's best solutions per chip (correct evaluations only)
            models.Index(fields=["chip", "verdict"], name="evaluation_chip_verdict_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.verdict} on {self.chip.slug}"


class JobEvent(models.Model):
    """Audit log: every state change of a job, with who caused it."""

    job = models.ForeignKey(EvaluationJob, on_delete=models.CASCADE, related_name="events")
    from_state = models.CharField(max_length=10, blank=True)
    to_state = models.CharField(max_length=10)
    runner = models.ForeignKey(Runner, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    detail = models.TextField(blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["at", "id"]
        indexes = [models.Index(fields=["job", "at"], name="jobevent_job_at_idx")]

    def __str__(self) -> str:
        return f"{self.job_id}: {self.from_state or '-'} -> {self.to_state}"


class RunnerAuditEvent(models.Model):
    """Audit log: admin actions on runners (register, disable, drain, rotate, ...)."""

    runner = models.ForeignKey(Runner, on_delete=models.CASCADE, related_name="audit_events")
    action = models.CharField(max_length=30)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    detail = models.TextField(blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["runner", "at"], name="runneraudit_runner_at_idx")]

    def __str__(self) -> str:
        return f"{self.runner_id}: {self.action}"


class VerifyJob(models.Model):
    """A test-mode check (POST /api/v1/verify/): one kernel source for one operator on one chip's runners,
    the public cases of the smoke or full tier under a fresh public seed, never the hidden cases nor a secret
    seed. It is not an Attempt and has no Evaluation, so nothing here reaches a leaderboard: a submission's
    ranked runs evaluate every file again. Runners take it through the same claim, lease and result API as
    ranked jobs, from the chip's lower-priority test queue (evaluator.services.verify)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="verify_jobs")
    chip = models.ForeignKey(Chip, on_delete=models.PROTECT, related_name="verify_jobs")
    operator = models.ForeignKey("operators.Operator", on_delete=models.PROTECT, related_name="+")
    tier = models.CharField(max_length=10, choices=Tier.choices)
    run_label = models.CharField(
        max_length=64, blank=True, help_text="The client's run id (kgb generate), so a run's checks can be counted."
    )
    source = models.TextField()
    source_sha256 = models.CharField(max_length=64)
    # public: shown to the owner; drawn per check so repeated checks do not see one fixed set of inputs
    seed = models.BigIntegerField()
    timeout_s = models.PositiveIntegerField()
    state = models.CharField(max_length=10, choices=JobState.choices, default=JobState.QUEUED)
    runner = models.ForeignKey(Runner, null=True, blank=True, on_delete=models.SET_NULL, related_name="verify_jobs")
    deliveries = models.PositiveIntegerField(default=0)
    lease_id = models.UUIDField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True, help_text="The harness's result document (kgb.result/1).")
    error = models.TextField(blank=True, help_text="Why the check failed without a verdict.")

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(state__in=[JobState.QUEUED, JobState.RUNNING, JobState.DONE, JobState.FAILED]),
                name="verifyjob_state_valid",
            ),
            # the public tiers only: edge and perf are not what test mode offers
            models.CheckConstraint(condition=models.Q(tier__in=[Tier.SMOKE, Tier.FULL]), name="verifyjob_tier_public"),
            models.CheckConstraint(
                condition=models.Q(state=JobState.DONE, result__isnull=False)
                | (~models.Q(state=JobState.DONE) & models.Q(result__isnull=True)),
                name="verifyjob_result_iff_done",
            ),
            models.CheckConstraint(
                condition=models.Q(lease_expires_at__isnull=True)
                | models.Q(lease_id__isnull=False, state=JobState.RUNNING),
                name="verifyjob_lease_only_running",
            ),
        ]
        indexes = [
            # the hourly quota: one owner's checks on one chip since an hour ago
            models.Index(fields=["owner", "chip", "created_at"], name="verifyjob_quota_idx"),
            # the checks of one client run (shown with the run's submission)
            models.Index(
                fields=["owner", "run_label"], condition=~models.Q(run_label=""), name="verifyjob_owner_run_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"test-mode check {self.id} ({self.state})"


class VerifyQuota(models.Model):
    """An admin's quota for one user's test-mode checks per hour, on one chip or (chip empty) on every chip
    without a row of its own; without any row, KGB_VERIFY_PER_HOUR applies."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="verify_quotas")
    chip = models.ForeignKey(Chip, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    per_hour = models.PositiveIntegerField(help_text="Test-mode checks per hour (0 turns test mode off).")
    note = models.CharField(max_length=200, blank=True, help_text="Why (for the other admins).")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["user", "chip"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "chip"], condition=models.Q(chip__isnull=False), name="verifyquota_unique_user_chip"
            ),
            models.UniqueConstraint(
                fields=["user"], condition=models.Q(chip__isnull=True), name="verifyquota_unique_user_any_chip"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.per_hour}/h on {self.chip.slug if self.chip else 'every chip'}"
