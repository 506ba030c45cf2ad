"""Issue 9, held-out evaluation: a ranked (held-out) run draws its inputs from a secret seed that
only the site and the runner's trusted harness process know. It must never reach the candidate's
process, the public API, the pages, the logs or the stored results; and the leaderboard says which
rows are held-out verified."""

from __future__ import annotations

import json
import logging
import struct
from pathlib import Path

import pytest
from django.forms.models import model_to_dict
from rest_framework.test import APIClient

from evaluator import services
from evaluator.models import Evaluation, JobEvent
from leaderboard.services import enqueue_submission, refresh_leaderboard_entries
from tests.evaluator.result_docs import honest_result
from tests.factories import AttemptFactory, SubmissionFactory

SOLUTIONS = Path(__file__).resolve().parents[1] / "harness" / "solutions"


def seed_forms(seed: int) -> list[bytes]:
    """The ways a seed can show up in text or in a pickled/packed message."""
    forms = [str(seed).encode(), format(seed, "x").encode(), format(seed, "X").encode()]
    for fmt in ("<q", ">q", "<Q", ">Q"):
        forms.append(struct.pack(fmt, seed))
    return forms


def leaks(seed: int, blob: bytes | str) -> list[bytes]:
    data = blob.encode() if isinstance(blob, str) else blob
    return [form for form in seed_forms(seed) if form in data]


@pytest.fixture
def held_out_run(world, client, caplog):
    """A held-out submission on the GPU chip, claimed and recorded through the runner API, next to
    an ordinary (public-seed) submission. Everything logged meanwhile is in caplog."""
    caplog.set_level(logging.DEBUG)
    _, token = services.register_runner(chip=world.gpu, name="gpu-1", user=world.staff)
    runner = APIClient()
    runner.credentials(HTTP_AUTHORIZATION=f"Runner {token}")
    rows = {}
    for label, held_out in (("ranked", True), ("public", False)):
        submission = SubmissionFactory(
            name=f"{label} run", target_chip=world.gpu, uploader=world.user, held_out=held_out, status="received"
        )
        attempt = AttemptFactory(submission=submission, operator=world.operators["add"])
        (job,) = enqueue_submission(submission=submission, user=world.user)
        claimed = runner.post(f"/api/runner/jobs/{job.id}/claim")
        assert claimed.status_code == 200
        # a result the site's checks accept: every case of the tier, a complete sandbox
        result = honest_result(attempt.operator_id, job.tier, timed=False, seed_kind="secret" if held_out else "public")
        posted = runner.post(f"/api/runner/jobs/{job.id}/result", {"result": result}, format="json")
        assert posted.status_code == 201
        refresh_leaderboard_entries(submission_id=submission.pk)
        job.refresh_from_db()
        rows[label] = {"submission": submission, "attempt": attempt, "job": job, "payload": claimed.json()}
    return rows


@pytest.mark.django_db
def test_a_held_out_job_has_an_unpredictable_secret_seed_given_only_to_the_runner(held_out_run):
    ranked, public = held_out_run["ranked"], held_out_run["public"]
    seed = ranked["job"].secret_seed
    assert seed is not None and seed.bit_length() > 32  # from `secrets`, far from a guessable public seed
    assert ranked["payload"]["seed"] == seed and ranked["payload"]["secret_seed"] is True
    assert public["job"].secret_seed is None and public["payload"]["secret_seed"] is False
    assert public["payload"]["seed"] == services.public_seed("aten::add", public["job"].tier)


@pytest.mark.django_db
def test_the_secret_seed_is_nowhere_public_nor_in_logs_events_or_stored_results(held_out_run, world, client, caplog):
    ranked = held_out_run["ranked"]
    seed = ranked["job"].secret_seed
    submission, attempt = ranked["submission"], ranked["attempt"]
    urls = [
        "/",
        "/leaderboard/",
        "/leaderboard/?format=json",
        "/leaderboard/?format=csv",
        "/leaderboard/multi-chip/",
        "/leaderboard/multi-source/?chip=h200",
        f"/submissions/{submission.pk}/",
        f"/submissions/{submission.pk}/?format=json",
        f"/submissions/{submission.pk}/progress/",
        f"/attempts/{attempt.pk}/",
        "/operators/aten::add/",
        "/api/v1/leaderboard/",
        "/api/v1/submissions/",
        f"/api/v1/submissions/{submission.pk}/",
        f"/api/v1/submissions/{submission.pk}/progress/",
        f"/api/v1/attempts/{attempt.pk}/",
        "/api/schema/",
    ]
    client.force_login(world.user)  # the uploader sees the most (a private view is a superset of the public one)
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        assert not leaks(seed, response.content), url
    client.force_login(world.staff)  # the staff runners page lists jobs in flight; the admin alone shows seeds
    for url in ("/runners/", "/leaderboard/"):
        response = client.get(url)
        assert response.status_code == 200 and not leaks(seed, response.content), url
    evaluation = Evaluation.objects.get(job=ranked["job"])
    assert evaluation.held_out
    assert not leaks(seed, json.dumps(model_to_dict(evaluation), default=str))
    for event in JobEvent.objects.filter(job=ranked["job"]):
        assert not leaks(seed, event.detail), event.detail
    assert not leaks(seed, caplog.text)


@pytest.mark.django_db
def test_the_leaderboard_says_which_rows_are_held_out_verified(held_out_run, client):
    ranked, public = held_out_run["ranked"]["submission"], held_out_run["public"]["submission"]
    rows = {row["submission_id"]: row for row in client.get("/api/v1/leaderboard/").json()["results"]}
    assert rows[str(ranked.pk)]["held_out"] is True
    assert rows[str(public.pk)]["held_out"] is False
    only = client.get("/api/v1/leaderboard/?held_out=true").json()["results"]
    assert {row["submission_id"] for row in only} == {str(ranked.pk)}
    page = client.get("/leaderboard/").content.decode()

    def row_html(submission) -> str:
        start = page.index(f'data-submission="{submission.pk}"')
        return page[start : page.index("</tr>", start)]

    assert "badge-heldout" in row_html(ranked) and "held-out verified" in row_html(ranked)
    assert "badge-heldout" not in row_html(public)


LEAKY_CANDIDATE = """
import os, sys
print("ENV", sorted(os.environ.items()))
print("ARGV", sys.argv)
print("CMDLINE", open("/proc/self/cmdline", "rb").read())
print("PARENT", open(f"/proc/{os.getppid()}/cmdline", "rb").read() if os.path.exists(f"/proc/{os.getppid()}/cmdline") else b"")
"""


def test_the_harness_never_sends_the_secret_seed_to_the_candidate_process(monkeypatch):
    """Every byte the trusted harness sends to the candidate's process is recorded, and what the
    candidate can see of its own environment, argv and parent is printed before any scrubbing."""
    from evaluator.harness import Harness, pool, wire
    from tests.harness import specs

    sent: list[bytes] = []
    raw_output: list[str] = []
    original_dumps, original_tail = wire.dumps_to_child, pool.Child.output_tail

    def recording_dumps(obj, *args, **kwargs):
        data = original_dumps(obj, *args, **kwargs)
        sent.append(data)
        return data

    original_put = wire.Exchange.put

    def recording_put(exchange, data, nbytes):  # tensors' bytes go through the exchange file
        sent.append(bytes(memoryview(data).cast("B")[:nbytes]))
        return original_put(exchange, data, nbytes)

    def recording_tail(child, *args, **kwargs):
        text = original_tail(child, *args, **kwargs)
        raw_output.append(text)
        return text

    monkeypatch.setattr(wire, "dumps_to_child", recording_dumps)
    monkeypatch.setattr(wire.Exchange, "put", recording_put)
    monkeypatch.setattr(pool.Child, "output_tail", recording_tail)
    seed = 0x5EC12E7_0DDBA11  # distinctive in every encoding
    source = LEAKY_CANDIDATE + (SOLUTIONS / "aten__add.py").read_text(encoding="utf-8")
    with Harness(device="cpu", pool_size=1, static_policy=False) as harness:
        result = harness.evaluate(specs.ADD, source, tier="smoke", seed=seed, secret_seed=True)
    assert result["verdict"] == "correct", result["reason"]
    assert sent, "nothing was recorded: the channel to the candidate changed"
    for message in sent:
        assert not leaks(seed, message)
    (output,) = raw_output
    assert "ENV [" in output and "ARGV" in output  # the candidate did print what it could see
    assert not leaks(seed, output)
    assert not leaks(seed, json.dumps(result))
    assert result["seed_kind"] == "secret" and "seed" not in result
