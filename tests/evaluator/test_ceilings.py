"""One source of chip ceilings: the site ranks with its measured figures where it has them (the
datasheet's otherwise) and sends those ceilings with every job, in the runner config and in job
bundles, in the format of the harness CLI's --peaks file."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from evaluator import selectors, services
from evaluator.models import Chip
from tests.evaluator.conftest import make_attempts


@pytest.fixture
def h200(db):
    call_command("seed_chips", verbosity=0)
    return Chip.objects.get(slug="h200")


def test_measured_figures_win_and_the_datasheet_is_shown_beside(h200):
    ceilings = selectors.chip_ceilings(chip=h200)
    assert ceilings["bandwidth_bytes_per_s"] == pytest.approx(4.4e12)  # measured, not the datasheet's 4.8e12
    assert ceilings["flops_per_s"]["bfloat16"] == pytest.approx(716e12)  # measured
    assert ceilings["flops_per_s"]["float16"] == pytest.approx(989.5e12)  # not measured: the datasheet's
    assert ceilings["flops_per_s"]["float8_e4m3fn"] == pytest.approx(1979e12)  # named as torch names it
    assert ceilings["flops_per_s"]["default"] == ceilings["flops_per_s"]["float32"]
    assert "tfloat32" not in ceilings["flops_per_s"]
    assert ceilings["l2_bytes"] == 60 * 2**20
    assert ceilings["basis"]["bandwidth"] == "measured"
    assert ceilings["basis"]["flops_per_s"]["bfloat16"] == "measured"
    assert ceilings["basis"]["flops_per_s"]["float16"] == "datasheet"
    assert ceilings["datasheet"]["bandwidth_bytes_per_s"] == pytest.approx(4.8e12)


def test_a_chip_without_figures_has_no_ceilings_and_one_without_measurements_uses_the_datasheet(h200):
    assert selectors.chip_ceilings(chip=Chip.objects.get(slug="cpu")) is None
    h100 = selectors.chip_ceilings(chip=Chip.objects.get(slug="h100"))
    assert h100["bandwidth_bytes_per_s"] == pytest.approx(3.35e12) and h100["basis"]["bandwidth"] == "datasheet"


def test_the_ceilings_go_with_each_job_the_runner_config_and_the_bundle(h200, submission, staff, tmp_path):
    submission.target_chip = h200
    submission.save()
    expected = selectors.chip_ceilings(chip=h200)
    (job,) = services.create_jobs(attempts=make_attempts(submission, 1), chip=h200, tier="full")
    runner, token = services.register_runner(chip=h200, name="gpu-1", user=staff)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Runner {token}")
    bundle = services.export_jobs(chip=h200)  # while the job is queued
    assert bundle["ceilings"] == expected and bundle["jobs"][0]["ceilings"] == expected
    assert api.get("/api/runner/config").json()["ceilings"] == expected
    assert api.post(f"/api/runner/jobs/{job.id}/claim").json()["ceilings"] == expected
    # the bundle's ceilings are a valid --peaks file for the harness CLI
    from evaluator.harness.backends import Backend
    from evaluator.harness.peaks import load_peaks

    peaks_file = tmp_path / "peaks.json"
    peaks_file.write_text(json.dumps(bundle["ceilings"]))
    peaks = load_peaks("h200", Backend(), str(peaks_file))
    assert peaks.bandwidth_bytes_per_s == pytest.approx(4.4e12) and peaks.flops_for("bfloat16") == pytest.approx(716e12)
