"""Issue 9, limits: rate limits per user and per IP on submissions and API calls, maximum request
sizes, and the cap on evaluation jobs one user can have queued. Rates are overridden low for
each test (the production rates come from settings.REST_FRAMEWORK)."""

from __future__ import annotations

import io
import json

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from evaluator import services as evaluator_services
from evaluator.models import EvaluationJob, JobState
from leaderboard.models import Attempt, Submission
from tests.leaderboard.helpers import KERNEL, make_metadata, make_zip
from tests.security.conftest import throttle_rates

pytestmark = pytest.mark.django_db

ONE_FILE = make_zip({"aten__add.py": KERNEL})
TWO_FILES = make_zip({"aten__add.py": KERNEL, "aten__mul.py": KERNEL})


def token_client(user, ip: str = "10.0.0.1") -> APIClient:
    client = APIClient(REMOTE_ADDR=ip)
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def files(archive: bytes, metadata: bytes | None = None) -> dict:
    a, m = io.BytesIO(archive), io.BytesIO(metadata or make_metadata())
    a.name, m.name = "s.zip", "m.json"
    return {"archive": a, "metadata": m}


def upload_api(client: APIClient, archive: bytes = ONE_FILE):
    return client.post("/api/v1/submissions/", files(archive), format="multipart")


def upload_form(client, user, archive: bytes = ONE_FILE, ip: str = "10.0.0.1"):
    client.force_login(user)
    return client.post("/submissions/new/", files(archive), REMOTE_ADDR=ip)


# --- rate limits -----------------------------------------------------------------------------------


def test_submissions_are_limited_per_user_across_the_api_and_the_form(client, world, settings, monkeypatch):
    throttle_rates(settings, monkeypatch, submissions="2/hour")
    alice = token_client(world.user)
    assert upload_api(alice).status_code == 201
    assert upload_form(client, world.user).status_code == 302  # the form counts against the same budget
    refused_api = upload_api(alice)
    refused_form = upload_form(client, world.user)
    assert refused_api.status_code == 429 and "throttled" in refused_api.json()["detail"].lower()
    assert refused_form.status_code == 429 and "Too many submissions" in refused_form.content.decode()
    assert Submission.objects.filter(uploader=world.user).count() == 2
    # another user (even from the same address) has a budget of their own
    assert upload_api(token_client(world.other, ip="10.0.0.2")).status_code == 201


def test_refused_uploads_count_against_the_submission_budget(world, settings, monkeypatch):
    """Otherwise the validator (zip parsing, the most expensive thing a stranger can make us do)
    would be an unlimited service."""
    throttle_rates(settings, monkeypatch, submissions="2/hour")
    alice = token_client(world.user)
    assert [upload_api(alice, b"not a zip").status_code for _ in range(3)] == [400, 400, 429]


def test_submissions_are_limited_per_ip_across_accounts(world, settings, monkeypatch):
    """Fresh accounts cost nothing: one address opening accounts to upload must hit a limit too."""
    throttle_rates(settings, monkeypatch, submissions="2/hour", submissions_ip="3/hour")
    users = [world.user, world.other, world.staff]
    statuses = [upload_api(token_client(user, ip="192.0.2.7"), b"not a zip").status_code for user in users * 2]
    assert 429 in statuses, statuses


def test_anonymous_api_calls_are_limited_per_ip(world, settings, monkeypatch):
    throttle_rates(settings, monkeypatch, anon="3/min")
    first_ip = APIClient(REMOTE_ADDR="198.51.100.1")
    statuses = [first_ip.get("/api/v1/leaderboard/").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert first_ip.get("/api/v1/submissions/").status_code == 429  # the budget is per caller, not per URL
    assert APIClient(REMOTE_ADDR="198.51.100.2").get("/api/v1/leaderboard/").status_code == 200


def test_authenticated_api_calls_are_limited_per_user(world, settings, monkeypatch):
    throttle_rates(settings, monkeypatch, user="3/min")
    alice = token_client(world.user, ip="203.0.113.1")
    assert [alice.get("/api/v1/reported/").status_code for _ in range(4)] == [200, 200, 200, 429]
    # the same user from another address is the same budget; another user is not
    assert token_client(world.user, ip="203.0.113.9").get("/api/v1/reported/").status_code == 429
    assert token_client(world.other, ip="203.0.113.1").get("/api/v1/reported/").status_code == 200


def test_runner_api_calls_are_limited_per_runner(world, settings, monkeypatch):
    throttle_rates(settings, monkeypatch, runner="3/min")
    _, token = evaluator_services.register_runner(chip=world.gpu, name="r1", user=world.staff)
    _, other_token = evaluator_services.register_runner(chip=world.gpu, name="r2", user=world.staff)
    runner = APIClient()
    runner.credentials(HTTP_AUTHORIZATION=f"Runner {token}")
    assert [runner.get("/api/runner/config").status_code for _ in range(4)] == [200, 200, 200, 429]
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Runner {other_token}")
    assert other.get("/api/runner/config").status_code == 200


def test_unauthenticated_runner_api_calls_are_limited_per_ip(world, settings, monkeypatch):
    """Token guessing (or just load) against the runner API from one address must hit a limit."""
    throttle_rates(settings, monkeypatch, anon="3/min", runner="3/min")
    guesser = APIClient(REMOTE_ADDR="192.0.2.99")
    guesser.credentials(HTTP_AUTHORIZATION="Runner kgbr_0badc0de_" + "x" * 43)
    statuses = [guesser.get("/api/runner/config").status_code for _ in range(6)]
    assert statuses[:3] == [401, 401, 401]
    assert 429 in statuses, statuses


# --- sizes ---------------------------------------------------------------------------------------------


def test_a_json_body_above_the_request_size_limit_is_refused(world, settings):
    """DATA_UPLOAD_MAX_MEMORY_SIZE bounds what one request may make the site hold in memory."""
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024
    _, token = evaluator_services.register_runner(chip=world.gpu, name="r1", user=world.staff)
    runner = APIClient()
    runner.credentials(HTTP_AUTHORIZATION=f"Runner {token}")
    body = json.dumps({"environment": {"pad": "x" * (256 * 1024)}})
    response = runner.generic("POST", "/api/runner/heartbeat", body, content_type="application/json")
    assert response.status_code in (400, 413), response.status_code


def test_upload_size_caps_are_what_the_documentation_promises():
    from leaderboard import upload

    assert upload.MAX_ARCHIVE_BYTES <= 16 * 1024 * 1024
    assert upload.MAX_FILE_BYTES <= 256 * 1024
    assert upload.MAX_TOTAL_BYTES <= 64 * 1024 * 1024
    assert upload.MAX_COMPRESSION_RATIO <= 100


# --- the queue cap -------------------------------------------------------------------------------------


def test_the_queued_job_cap_refuses_an_upload_that_would_exceed_it_and_stores_nothing(
    world, settings, django_capture_on_commit_callbacks
):
    settings.KGB_MAX_QUEUED_JOBS_PER_USER = 3
    alice = token_client(world.user)
    with django_capture_on_commit_callbacks(execute=True):
        assert upload_api(alice, TWO_FILES).status_code == 201
    counts = (Submission.objects.count(), Attempt.objects.count(), EvaluationJob.objects.count())
    refused = upload_api(alice, TWO_FILES)
    assert refused.status_code == 400
    assert any("limit" in e["message"] for e in refused.json()["errors"]), refused.json()
    assert (Submission.objects.count(), Attempt.objects.count(), EvaluationJob.objects.count()) == counts
    # one more fits exactly; others are not affected by alice's queue
    assert upload_api(alice, ONE_FILE).status_code == 201
    assert upload_api(token_client(world.other), TWO_FILES).status_code == 201


def test_the_cap_counts_running_jobs_and_frees_up_when_jobs_finish(world, settings):
    settings.KGB_MAX_QUEUED_JOBS_PER_USER = 2
    alice = token_client(world.user)
    assert upload_api(alice, TWO_FILES).status_code == 201
    jobs = list(EvaluationJob.objects.all())
    _, token = evaluator_services.register_runner(chip=world.cpu, name="cpu-1", user=world.staff)
    runner = evaluator_services.runner_for_token(token)
    evaluator_services.claim_job(runner=runner, job_id=jobs[0].pk)  # running still counts
    assert upload_api(alice, ONE_FILE).status_code == 400
    evaluator_services.cancel_job(job=jobs[1], user=world.user)
    assert upload_api(alice, ONE_FILE).status_code == 201
    assert EvaluationJob.objects.exclude(state__in=[JobState.CANCELLED]).count() == 2


def test_the_cap_is_enforced_by_the_dispatch_service_too(world, settings):
    """Staff re-runs and management commands go through create_jobs, not the upload view."""
    from tests.factories import AttemptFactory, SubmissionFactory

    settings.KGB_MAX_QUEUED_JOBS_PER_USER = 2
    submission = SubmissionFactory(uploader=world.user, target_chip=world.gpu)
    attempts = [AttemptFactory(submission=submission) for _ in range(3)]
    with pytest.raises(evaluator_services.QueueLimitExceeded):
        evaluator_services.create_jobs(attempts=attempts, chip=world.gpu, tier="full")
    assert not EvaluationJob.objects.exists()


# --- issue 15 item 7: a multipart body over the limit is refused while it streams in ------------------------

BOUNDARY = "kgb-test-boundary"
HUGE = 150 * 1024 * 1024


class StreamedBody:
    """A multipart body of `size` bytes (one file part of zeros), made on demand as the site reads it;
    `read_bytes` is how much the site read."""

    def __init__(self, size: int, field: str = "archive"):
        self.head = (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{field}"; filename="s.zip"\r\n'
            "Content-Type: application/zip\r\n\r\n"
        ).encode()
        self.tail = f"\r\n--{BOUNDARY}--\r\n".encode()
        self.size = size
        self.read_bytes = 0

    def _take(self, n: int) -> bytes:
        n = self.size - self.read_bytes if n is None or n < 0 else min(n, self.size - self.read_bytes)
        out = bytearray()
        position = self.read_bytes
        body_end = self.size - len(self.tail)
        while len(out) < n:
            if position < len(self.head):
                piece = self.head[position : position + n - len(out)]
            elif position < body_end:
                piece = bytes(min(n - len(out), body_end - position, 1 << 20))
            else:
                start = position - body_end
                piece = self.tail[start : start + n - len(out)]
            out += piece
            position += len(piece)
        self.read_bytes = position
        return bytes(out)

    def read(self, size: int = -1) -> bytes:
        return self._take(size)

    def readline(self, size: int = -1) -> bytes:
        return self._take(size if size is not None and size >= 0 else 64 * 1024)


def post_streamed(client, path: str, body: StreamedBody):
    content_type = f"multipart/form-data; boundary={BOUNDARY}"
    # Django's client sets no content type for an empty `data`, DRF's its own default: both given here
    environ = {"wsgi.input": body, "CONTENT_LENGTH": str(body.size), "CONTENT_TYPE": content_type}
    return client.generic("POST", path, b"", content_type=content_type, **environ)


def test_a_150_mib_upload_to_the_api_is_refused_before_it_is_read(world):
    body = StreamedBody(HUGE)
    response = post_streamed(token_client(world.user), "/api/v1/submissions/", body)
    assert response.status_code == 413, response.status_code
    assert response.json()["error"] == "too_large"
    assert body.read_bytes < 1024 * 1024, f"the site read {body.read_bytes:,} bytes of a refused body"
    assert not Submission.objects.exists()


def test_a_150_mib_upload_to_the_form_is_refused_before_it_is_read(client, world):
    client.force_login(world.user)
    body = StreamedBody(HUGE)
    response = post_streamed(client, "/submissions/new/", body)
    assert response.status_code in (400, 413), response.status_code
    assert body.read_bytes < 1024 * 1024, f"the site read {body.read_bytes:,} bytes of a refused body"
    assert not Submission.objects.exists()


def test_file_bytes_past_the_limit_are_refused_as_they_stream_even_under_a_false_length(settings):
    """A body longer than its declared length (a parser fed a raw stream): the handler counts what arrives."""
    from django.core.files.uploadhandler import MemoryFileUploadHandler, TemporaryFileUploadHandler
    from django.http.multipartparser import MultiPartParser

    from kgsite.uploads import RequestSizeLimitHandler, RequestTooLarge

    settings.KGB_MAX_UPLOAD_REQUEST_BYTES = 4 * 1024 * 1024
    body = StreamedBody(64 * 1024 * 1024)
    meta = {"CONTENT_TYPE": f"multipart/form-data; boundary={BOUNDARY}", "CONTENT_LENGTH": "2048"}
    handlers = [RequestSizeLimitHandler(), MemoryFileUploadHandler(), TemporaryFileUploadHandler()]
    with pytest.raises(RequestTooLarge):
        MultiPartParser(meta, body, handlers).parse()
    assert body.read_bytes < 8 * 1024 * 1024


def test_the_request_limit_holds_the_largest_valid_upload(settings, world, django_capture_on_commit_callbacks):
    from leaderboard import upload

    assert settings.KGB_MAX_UPLOAD_REQUEST_BYTES >= upload.MAX_ARCHIVE_BYTES + upload.MAX_METADATA_BYTES + 64 * 1024
    # and an ordinary upload still goes through the handler chain
    assert upload_api(token_client(world.user)).status_code == 201
