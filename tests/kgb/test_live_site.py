"""From a model to a leaderboard row: `kgb generate` with reflection against the fake model, verified on the
local CPU harness, `kgb submit` to a live test site, the site's jobs run by a CPU runner through the runner
API with the real harness, and the row's figures checked to the token."""

from __future__ import annotations

import pytest
import requests
from rest_framework.authtoken.models import Token

from evaluator.harness import Harness
from evaluator.runner.client import SiteClient
from evaluator.services.fleet import register_runner
from kgsite.celery import app as celery_app
from leaderboard.models import Attempt, Submission
from tests.factories import ChipFactory, OperatorFactory, UserFactory
from tests.kgb.conftest import FAST
from tests.kgb.fakes import CORRECT_ADD, WRONG_ADD, Reply, fenced

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def site(live_server, monkeypatch, settings):
    settings.KGB_PRELIMINARY_MIN_OPERATORS = 1
    chip = ChipFactory(
        slug="cpu",
        name="CPU",
        vendor="any",
        family="cpu",
        device_type="cpu",
        triton_backend="interpreter",
        timing_meaningful=False,
    )
    OperatorFactory(source="aten", name="add", case_counts={"smoke": 4, "full": 650, "edge": 3, "perf": 2})
    user_token = Token.objects.create(user=UserFactory()).key
    _, runner_token = register_runner(chip=chip, name="local-cpu", user=None)
    jobs: list[str] = []
    monkeypatch.setattr(celery_app, "send_task", lambda name, args=None, kwargs=None, **opts: jobs.append(args[0]))
    return live_server.url, user_token, runner_token, jobs


def run_cpu_runner(url: str, runner_token: str, jobs: list[str]) -> None:
    """What the local CPU runner does for each job: claim, evaluate with the harness, post the result."""
    client = SiteClient(url, runner_token)
    with Harness(device="cpu") as harness:
        for job_id in jobs:
            payload = client.claim(job_id)
            result = harness.evaluate(
                payload["operator"],
                payload["solution"]["source"],
                tier=payload["tier"],
                seed=payload.get("seed"),
                secret_seed=bool(payload.get("secret_seed")),
                file_name=payload["solution"].get("file_name"),
            )
            client.post_result(job_id, result)


def test_generate_submit_and_the_row(kgb, openai_server, tmp_path, site, capsys):
    url, user_token, runner_token, jobs = site
    openai_server.script = [Reply(text=fenced(WRONG_ADD)), Reply(text=fenced(CORRECT_ADD))]
    out = tmp_path / "run"
    assert (
        kgb(
            "generate",
            "--model",
            "fake-coder",
            "--base-url",
            openai_server.base_url,
            "--operators",
            "aten::add",
            "--rounds",
            "5",
            "--reflection",
            "--chip",
            "cpu",
            "--provider",
            "Tests Inc",
            "--out",
            out,
            *FAST,
        )
        == 0
    )
    assert kgb("submit", out, "--site", url, "--token", user_token) == 0
    submission = Submission.objects.get()
    assert f"submitted {submission.pk} (2 files)" in capsys.readouterr().out
    attempts = list(Attempt.objects.filter(submission=submission).order_by("sample_index"))
    assert [a.file_name for a in attempts] == ["aten__add.py", "aten__add.1.py"]
    for attempt in attempts:
        assert (attempt.prompt_tokens, attempt.completion_tokens, attempt.cached_tokens, attempt.reasoning_tokens) == (
            1500,
            900,
            512,
            300,
        )
        assert attempt.turns == 1 and attempt.transcript
    provenance = submission.metadata["notes"]["kgb"]
    assert provenance["tokens"] == "metered" and provenance["models_reported"] == ["fake-coder-7b-2026-01-01"]
    assert submission.model.provider == "Tests Inc" and submission.scaffold.name == "kgb"

    assert len(jobs) == 2
    run_cpu_runner(url, runner_token, jobs)
    rows = requests.get(f"{url}/api/v1/leaderboard/", params={"chip": "cpu", "preliminary": "1"}, timeout=30).json()
    row = next(r for r in rows["results"] if r["submission_id"] == str(submission.pk))
    assert row["accuracy_pct"] == 100.0  # one operator, passed in round 1
    assert row["samples"] == 2
    assert row["total_tokens"] == 2 * (1500 + 900)
    assert row["tokens_per_success"] == 4800
    # the site's pass@1 is the unbiased estimator over the uploaded samples (1 of 2 correct); the client's
    # rounds pass@1 is 0 (round 0 failed): docs/client.md says which the leaderboard shows
    assert row["pass1_pct"] == 50.0


def test_the_old_command_is_an_alias(site, tmp_path, capsys):
    from leaderboard import cli

    url, user_token, _, _ = site
    (tmp_path / "aten__add.py").write_text(CORRECT_ADD)
    (tmp_path / "metadata.json").write_text(
        '{"name": "by hand", "model": {"provider": "p", "name": "m"}, "scaffold": {"name": "s", "kind": "one_shot"},'
        ' "track": "llm", "target_chip": "cpu", "operators": {"aten::add": {"prompt_tokens": 10, "completion_tokens": 5}}}'
    )
    assert cli.main(["submit", str(tmp_path), "--site", url, "--token", user_token]) == 0
    assert Attempt.objects.get().prompt_tokens == 10
