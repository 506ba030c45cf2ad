"""Upgrades: from the state after each migration of the evaluator and the leaderboard, with data in
every table that exists at that point, `migrate` reaches the latest state and keeps the data. A
migration that called today's code (instead of its historical models) would crash here on a
database that stopped before the columns today's code reads."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

APPS = ("evaluator", "leaderboard")


def _plan() -> list[tuple[str, str]]:
    """Every migration of the two apps, in the order a fresh database applies them."""
    graph = MigrationExecutor(connection).loader.graph
    plan: list[tuple[str, str]] = []
    for leaf in sorted(node for node in graph.leaf_nodes() if node[0] in APPS):
        plan += [node for node in graph.forwards_plan(leaf) if node[0] in APPS and node not in plan]
    return plan


def _targets(applied: list[tuple[str, str]]) -> list[tuple[str, str | None]]:
    """migrate() targets for the state in which exactly `applied` (a prefix of the plan) is applied."""
    return [(app, next((name for a, name in reversed(applied) if a == app), None)) for app in APPS]


def _migrate(targets) -> object:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    loader = MigrationExecutor(connection).loader
    nodes = [(app, name) for app, name in targets if name is not None]
    # the other apps (auth, operators) as they are today: none of them depends on the two apps
    others = [node for node in loader.graph.leaf_nodes() if node[0] not in APPS]
    return loader.project_state(nodes + others).apps if nodes else None


def _has(apps, app: str, model: str, field: str | None = None) -> bool:
    try:
        model_class = apps.get_model(app, model)
    except LookupError:
        return False
    return field is None or any(f.name == field for f in model_class._meta.get_fields())


def _seed(apps) -> dict:
    """One row in every table the state has; returns what to look for after the upgrade."""
    User = apps.get_model("auth", "User")
    Operator = apps.get_model("operators", "Operator")
    Chip = apps.get_model("evaluator", "Chip")
    user = User.objects.create(username=f"upgrade-{uuid.uuid4().hex[:8]}")
    operator, _ = Operator.objects.get_or_create(
        id="aten::upgrade_op", defaults={"source": "aten", "name": "upgrade_op", "category": "x", "case_counts": {}}
    )
    chip = Chip.objects.create(
        slug="upgrade-chip",
        name="Upgrade chip",
        vendor="NVIDIA",
        family="nvidia",
        device_type="cuda",
        triton_backend="nvidia",
        peak_bandwidth_gbs=4800.0,
        measured={"copy_bandwidth_gbs": 4400.0, "bf16_matmul_tflops": 716.0},
    )
    seeded = {"user": user.pk, "chip": chip.pk}
    if not _has(apps, "leaderboard", "Submission"):
        return seeded
    Submission = apps.get_model("leaderboard", "Submission")
    Attempt = apps.get_model("leaderboard", "Attempt")
    submission = Submission.objects.create(
        name="upgrade", track="agent", uploader=user, target_chip=chip, status="evaluating"
    )
    attempt = Attempt.objects.create(
        submission=submission, operator=operator, file_name="aten__upgrade_op.py", source="x", source_sha256="0" * 64
    )
    seeded.update(submission=submission.pk, attempt=attempt.pk)
    if not _has(apps, "evaluator", "EvaluationJob", "attempt"):
        return seeded
    EvaluationJob = apps.get_model("evaluator", "EvaluationJob")
    Evaluation = apps.get_model("evaluator", "Evaluation")
    job = EvaluationJob.objects.create(attempt=attempt, chip=chip, tier="full", state="done")
    Evaluation.objects.create(job=job, attempt=attempt, chip=chip, tier="full", verdict="correct", speedup=1.5)
    seeded["job"] = job.pk
    return seeded


def test_every_migration_upgrades_to_the_latest_state_with_its_data():
    plan = _plan()
    assert plan[0] == ("evaluator", "0001_initial")
    # the evaluator's first migration needs nothing of the leaderboard: the graph crosses once
    first = MigrationExecutor(connection).loader.graph.nodes[("evaluator", "0001_initial")]
    assert not [dep for dep in first.dependencies if dep[0] == "leaderboard"]
    latest = _targets(plan)
    try:
        for index in range(len(plan)):
            applied = plan[: index + 1]
            _migrate([(app, None) for app in reversed(APPS)])  # an empty database for both apps
            apps = _migrate(_targets(applied))
            backfilled = ("evaluator", "0003_job_owner_measured_ceilings") not in applied
            seeded = _seed(apps)
            _migrate(latest)

            from evaluator.models import Chip, Evaluation, EvaluationJob
            from leaderboard.models import Attempt, Submission

            chip = Chip.objects.get(pk=seeded["chip"])
            assert chip.peak_bandwidth_gbs == 4800.0, applied[-1]
            if backfilled:  # the measurements recorded as notes became the measured figures
                assert chip.measured_bandwidth_gbs == 4400.0 and chip.measured_tflops == {"bfloat16": 716.0}
            if "attempt" in seeded:
                assert Attempt.objects.get(pk=seeded["attempt"]).submission_id == seeded["submission"]
                assert Submission.objects.get(pk=seeded["submission"]).status == "evaluating"
            if "job" in seeded:
                job = EvaluationJob.objects.get(pk=seeded["job"])
                assert job.owner_id == (seeded["user"] if backfilled else None), applied[-1]  # from the uploader
                assert Evaluation.objects.get(job=job).speedup == 1.5
    finally:
        _migrate(latest)
