"""Issue 9, bad input: every hostile or malformed upload, API payload and runner result gets a
clear 4xx that names the problem, and nothing of it is stored (rows are counted before and after).

Uploads go through both doors, the web form (session + CSRF-exempt test client) and the REST API
(token auth), because they share the validator but not the view code.
"""

from __future__ import annotations

import io
import json
import stat
import warnings
import zipfile

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from evaluator import services as evaluator_services
from evaluator.models import Evaluation, EvaluationJob, JobEvent, JobState, Runner
from kgsite.errors import ApplicationError
from leaderboard import upload
from leaderboard.models import Attempt, LLMModel, Scaffold, Submission
from tests.factories import AttemptFactory, SubmissionFactory
from tests.leaderboard.helpers import KERNEL, make_metadata, make_zip

pytestmark = pytest.mark.django_db

STORED_MODELS = (Submission, Attempt, EvaluationJob, Evaluation, JobEvent, LLMModel, Scaffold)


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in STORED_MODELS}


def _zip_info(name: str, *, mode: int | None = None) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    if mode is not None:
        info.external_attr = mode << 16
    return info


def zip_with(entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        warnings.simplefilter("ignore", UserWarning)  # a duplicated member name is the point of one case
        for info, content in entries:
            archive.writestr(info, content)
    return buffer.getvalue()


def bomb_member(size: int) -> bytes:
    """One deflated member of `size` zero bytes: ~1000x compression."""
    return zip_with([("aten__add.py", b"\0" * size)])


def many_members_bomb() -> bytes:
    # each member is exactly at the per-file cap and compresses ~1000x; together they inflate past the total cap
    count = upload.MAX_TOTAL_BYTES // upload.MAX_FILE_BYTES + 1
    names = [f"aten__add.{i}.py" if i else "aten__add.py" for i in range(10)]
    names += [f"aten__op{i}.py" for i in range(count - len(names))]
    return zip_with([(name, b"#" * upload.MAX_FILE_BYTES) for name in names])


GOOD_META = make_metadata()
NO_USAGE = make_metadata(operators={})

# (id, archive, metadata, the `where` that must be named, a word the message must contain)
BAD_UPLOADS = [
    ("not-a-zip", b"GIF89a this is an image", GOOD_META, "archive", "zip"),
    ("truncated-zip", make_zip({"aten__add.py": KERNEL})[:40], GOOD_META, "archive", "zip"),
    ("empty-zip", make_zip({}), GOOD_META, "archive", "no files"),
    ("bomb-ratio", bomb_member(upload.MAX_FILE_BYTES), GOOD_META, "aten__add.py", "bomb"),
    ("bomb-oversize-member", bomb_member(upload.MAX_FILE_BYTES * 8), GOOD_META, "aten__add.py", "larger"),
    ("bomb-total", many_members_bomb(), NO_USAGE, "archive", "inflates"),
    ("traversal", zip_with([("../aten__add.py", KERNEL.encode())]), NO_USAGE, "../aten__add.py", "nested"),
    ("traversal-dots", zip_with([("..aten__add.py", KERNEL.encode())]), NO_USAGE, "..aten__add.py", "unsafe"),
    ("absolute", zip_with([("/etc/aten__add.py", KERNEL.encode())]), NO_USAGE, "/etc/aten__add.py", "nested"),
    ("windows-drive", zip_with([("C:aten__add.py", KERNEL.encode())]), NO_USAGE, "C:aten__add.py", "unsafe"),
    ("backslash", zip_with([("a\\aten__add.py", KERNEL.encode())]), NO_USAGE, "a\\aten__add.py", "nested"),
    ("nested-dir", zip_with([("sub/aten__add.py", KERNEL.encode())]), NO_USAGE, "sub/aten__add.py", "nested"),
    ("dir-entry", zip_with([("sub/", b""), ("aten__add.py", KERNEL.encode())]), GOOD_META, "sub/", "nested"),
    (
        "symlink",
        zip_with([(_zip_info("aten__add.py", mode=stat.S_IFLNK | 0o777), b"/etc/passwd")]),
        NO_USAGE,
        "aten__add.py",
        "link",
    ),
    ("huge-file", zip_with([("aten__add.py", b"#" * (upload.MAX_FILE_BYTES + 1))]), GOOD_META, "aten__add.py", "KiB"),
    ("non-utf8", make_zip({"aten__add.py": "x = 'é'\n".encode("latin-1")}), GOOD_META, "aten__add.py", "UTF-8"),
    ("binary", make_zip({"aten__add.py": b"\x7fELF\x02\x01\x01\x00\x00"}), GOOD_META, "aten__add.py", "binary"),
    ("empty-source", make_zip({"aten__add.py": "  \n"}), GOOD_META, "aten__add.py", "empty"),
    ("unknown-operator", make_zip({"aten__nosuchop.py": KERNEL}), NO_USAGE, "aten__nosuchop.py", "unknown"),
    ("unknown-namespace", make_zip({"torch__add.py": KERNEL}), NO_USAGE, "torch__add.py", "file name"),
    (
        "duplicate-operator",
        make_zip({"aten__add.py": KERNEL, "aten__add.0.py": KERNEL}),
        GOOD_META,
        "aten__add.0.py",
        "duplicate",
    ),
    (
        "duplicate-member",
        zip_with([("aten__add.py", KERNEL.encode()), ("aten__add.py", KERNEL.encode())]),
        GOOD_META,
        "aten__add.py",
        "twice",
    ),
    ("metadata-not-json", make_zip({"aten__add.py": KERNEL}), b"{not json", "metadata", "JSON"),
    ("metadata-not-utf8", make_zip({"aten__add.py": KERNEL}), b"\xff\xfe{}", "metadata", "UTF-8"),
    ("metadata-array", make_zip({"aten__add.py": KERNEL}), b"[1, 2]", "metadata", "object"),
    ("metadata-unknown-field", make_zip({"aten__add.py": KERNEL}), make_metadata(evil=1), "metadata", "unknown"),
    ("metadata-no-name", make_zip({"aten__add.py": KERNEL}), make_metadata(name=None), "metadata: name", "required"),
    ("metadata-bad-track", make_zip({"aten__add.py": KERNEL}), make_metadata(track="x"), "metadata: track", "one of"),
    (
        "metadata-unknown-chip",
        make_zip({"aten__add.py": KERNEL}),
        make_metadata(target_chip="tpu-v9"),
        "metadata: target_chip",
        "unknown chip",
    ),
    (
        "metadata-wrong-type",
        make_zip({"aten__add.py": KERNEL}),
        make_metadata(model="gpt", public="yes"),
        "metadata: model",
        "object",
    ),
    (
        "negative-tokens",
        make_zip({"aten__add.py": KERNEL}),
        make_metadata(operators={"aten::add": {"prompt_tokens": -5}}),
        "metadata: operators[aten::add][0]",
        "negative",
    ),
    (
        "absurd-tokens",
        make_zip({"aten__add.py": KERNEL}),
        make_metadata(operators={"aten::add": {"completion_tokens": 10**15}}),
        "metadata: operators[aten::add][0]",
        "absurd",
    ),
    (
        "float-tokens",
        make_zip({"aten__add.py": KERNEL}),
        make_metadata(operators={"aten::add": {"prompt_tokens": 1.5}}),
        "metadata: operators[aten::add][0]",
        "integer",
    ),
    (
        "boolean-tokens",
        make_zip({"aten__add.py": KERNEL}),
        make_metadata(operators={"aten::add": {"prompt_tokens": True}}),
        "metadata: operators[aten::add][0]",
        "integer",
    ),
    (
        "cached-above-prompt",
        make_zip({"aten__add.py": KERNEL}),
        make_metadata(operators={"aten::add": {"prompt_tokens": 1, "cached_tokens": 2}}),
        "metadata: operators[aten::add][0]",
        "exceed",
    ),
    (
        "usage-for-missing-file",
        make_zip({"aten__add.py": KERNEL}),
        make_metadata(operators={"aten::mul": {"prompt_tokens": 1}}),
        "metadata: operators[aten::mul][0]",
        "no matching file",
    ),
    (
        "infinite-wall-time",
        make_zip({"aten__add.py": KERNEL}),
        b'{"name": "x", "model": {"provider": "p", "name": "m"}, "scaffold": {"name": "s", "kind": "agent"},'
        b' "track": "agent", "target_chip": "cpu", "operators": {"aten::add": {"wall_time_s": Infinity}}}',
        "metadata: operators[aten::add][0]",
        "wall_time_s",
    ),
    (
        "huge-integer-literal",
        make_zip({"aten__add.py": KERNEL}),
        b'{"name": "x", "operators": {"aten::add": {"prompt_tokens": ' + b"9" * 5000 + b"}}}",
        "metadata",
        "JSON",
    ),
    (
        "deeply-nested-metadata",
        make_zip({"aten__add.py": KERNEL}),
        b'{"notes": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "metadata",
        "JSON",
    ),
]


def _api_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def _files(archive: bytes, metadata: bytes) -> dict:
    a, m = io.BytesIO(archive), io.BytesIO(metadata)
    a.name, m.name = "solutions.zip", "metadata.json"
    return {"archive": a, "metadata": m}


def post_api(user, archive: bytes, metadata: bytes):
    return _api_client(user).post("/api/v1/submissions/", _files(archive, metadata), format="multipart")


def post_form(client, user, archive: bytes, metadata: bytes):
    client.force_login(user)
    return client.post("/submissions/new/", _files(archive, metadata))


@pytest.mark.parametrize(
    ("archive", "metadata", "where", "word"),
    [case[1:] for case in BAD_UPLOADS],
    ids=[case[0] for case in BAD_UPLOADS],
)
def test_bad_upload_through_the_api_is_a_400_naming_the_problem_and_stores_nothing(
    world, sent_tasks, archive, metadata, where, word
):
    before = row_counts()
    response = post_api(world.user, archive, metadata)
    assert response.status_code == 400, response.content[:500]
    errors = response.json()["errors"]
    named = [e for e in errors if e["where"] == where]
    assert named, errors
    assert any(word.lower() in e["message"].lower() for e in named), errors
    assert row_counts() == before
    assert sent_tasks == []


@pytest.mark.parametrize(
    ("archive", "metadata", "where", "word"),
    [case[1:] for case in BAD_UPLOADS],
    ids=[case[0] for case in BAD_UPLOADS],
)
def test_bad_upload_through_the_web_form_is_a_400_page_naming_the_problem_and_stores_nothing(
    client, world, sent_tasks, archive, metadata, where, word
):
    before = row_counts()
    response = post_form(client, world.user, archive, metadata)
    assert response.status_code == 400
    page = response.content.decode()
    assert "The upload was not accepted" in page
    errors = [str(e) for e in response.context["errors"]]
    assert any(e.startswith(f"{where}: ") and word.lower() in e.lower() for e in errors), errors
    assert row_counts() == before
    assert sent_tasks == []


def test_a_good_upload_through_both_doors_is_stored_once_with_one_job_per_file(
    client, world, sent_tasks, django_capture_on_commit_callbacks
):
    """The control: the same machinery accepts a well-formed upload (so the refusals above are real)."""
    archive = make_zip({"aten__add.py": KERNEL, "aten__mul.py": KERNEL})
    with django_capture_on_commit_callbacks(execute=True):
        assert post_api(world.user, archive, GOOD_META).status_code == 201
        assert post_form(client, world.user, archive, GOOD_META).status_code == 302
    assert Submission.objects.count() == 2 and Attempt.objects.count() == 4
    assert EvaluationJob.objects.filter(state=JobState.QUEUED).count() == 4 and len(sent_tasks) == 4


def test_a_database_error_halfway_through_storing_an_upload_leaves_nothing(world, monkeypatch, sent_tasks):
    """The submission row is written before its attempts: a failure in between must roll it back."""
    from django.db import DatabaseError

    def broken_bulk_create(*args, **kwargs):
        raise DatabaseError("disk full")

    monkeypatch.setattr(Attempt.objects, "bulk_create", broken_bulk_create)
    client = _api_client(world.user)
    client.raise_request_exception = False
    before = row_counts()
    response = client.post(
        "/api/v1/submissions/", _files(make_zip({"aten__add.py": KERNEL}), GOOD_META), format="multipart"
    )
    assert response.status_code == 500
    assert row_counts() == before and sent_tasks == []


def test_an_oversized_archive_is_refused_before_validation(client, world, monkeypatch):
    monkeypatch.setattr("leaderboard.forms.MAX_ARCHIVE_BYTES", 1024)
    monkeypatch.setattr(upload, "MAX_ARCHIVE_BYTES", 1024)
    archive = zip_with([(f"aten__op{i}.py", bytes(range(256)) * 8) for i in range(4)])
    assert len(archive) > 1024
    before = row_counts()
    api_response = post_api(world.user, archive, GOOD_META)
    assert api_response.status_code == 400
    assert any(e["where"] == "archive" and "MiB" in e["message"] for e in api_response.json()["errors"])
    assert post_form(client, world.user, archive, GOOD_META).status_code == 400
    assert row_counts() == before


def test_upload_api_fields_of_the_wrong_type_are_a_400(world):
    client = _api_client(world.user)
    before = row_counts()
    for payload, content_format in (
        ({"archive": "not a file", "metadata": "{}"}, "multipart"),
        ({"archive": ["a", "b"]}, "multipart"),
    ):
        response = client.post("/api/v1/submissions/", payload, format=content_format)
        assert response.status_code == 400, response.content
        assert {e["where"] for e in response.json()["errors"]} >= {"archive"}
    # JSON is not an accepted upload encoding: 415, not a crash
    assert client.post("/api/v1/submissions/", {"archive": 1}, format="json").status_code == 415
    assert row_counts() == before


@pytest.mark.parametrize(
    "query",
    [
        "chip=" + "x" * 5000,
        "model=abc",
        "scaffold=-1.5",
        "held_out=maybe",
        "sort=" + "-" * 300,
        "preliminary=[]",
        "q=%00%ff",
        "limit=-1&offset=abc",
    ],
)
def test_public_api_query_parameters_of_the_wrong_type_never_500(world, query):
    for url in ("/api/v1/leaderboard/", "/api/v1/submissions/", "/api/v1/reported/", "/api/v1/operators/"):
        response = APIClient().get(f"{url}?{query}")
        assert response.status_code in (200, 400), (url, query, response.status_code)
    for url in ("/leaderboard/", "/leaderboard/multi-chip/", "/leaderboard/multi-source/", "/operators/"):
        response = APIClient().get(f"{url}?{query}")
        assert response.status_code in (200, 400, 404), (url, query, response.status_code)


# --- runner result posts that do not match the job --------------------------------------------------


@pytest.fixture
def claimed(world, sent_tasks):
    """A job of the GPU chip, claimed by its runner; returns (client with the runner token, job, token)."""
    runner, token = evaluator_services.register_runner(chip=world.gpu, name="gpu-1", user=world.staff)
    attempt = AttemptFactory(submission=SubmissionFactory(target_chip=world.gpu), operator=world.operators["add"])
    (job,) = evaluator_services.create_jobs(attempts=[attempt], chip=world.gpu, tier="full")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Runner {token}")
    assert client.post(f"/api/runner/jobs/{job.id}/claim").status_code == 200
    return client, job, token


def result_for(job, **overrides) -> dict:
    result = {
        "schema": "kgb.result/1",
        "verdict": "correct",
        "reason": "all cases match",
        "operator": job.attempt.operator_id,
        "tier": job.tier,
        "cases": [{"name": "c0", "passed": True}],
        "timing": {"speedup": 1.5},
        "sol_pct": 30.0,
        "findings": [],
        "environment": {"harness_version": "1"},
        "stderr_tail": "",
        "duration_s": 1.0,
    }
    result.update(overrides)
    return result


def assert_documented_error(response) -> None:
    """The runner API documents its 4xx bodies as ErrorOutput: {"error": code, "detail": message}."""
    body = response.json()
    assert isinstance(body.get("error"), str) and isinstance(body.get("detail"), str), body


BAD_RESULTS = [
    ("wrong-operator", {"operator": "aten::mul"}, 409, "another operator"),
    ("wrong-tier", {"tier": "smoke"}, 409, "tier"),
    ("wrong-schema", {"schema": "evil/1"}, 400, "schema"),
    ("schema-not-string", {"schema": 1}, 400, "schema"),
    ("verdict-not-in-set", {"verdict": "amazing"}, 400, "verdict"),
    ("verdict-missing", {"verdict": None}, 400, "verdict"),
    ("verdict-wrong-type", {"verdict": ["correct"]}, 400, "verdict"),
    ("cases-not-list", {"cases": "all of them"}, 400, "cases"),
    ("cases-of-strings", {"cases": ["c0"]}, 400, "cases"),
    ("too-many-cases", {"cases": [{"passed": True}] * 5001}, 400, "cases"),
    ("findings-not-list", {"findings": {"a": 1}}, 400, "findings"),
    ("too-many-findings", {"findings": ["x"] * 501}, 400, "findings"),
    ("timing-not-object", {"timing": [1, 2]}, 400, "timing"),
    ("negative-speedup", {"timing": {"speedup": -3}}, 400, "speedup"),
    ("string-speedup", {"timing": {"speedup": "fast"}}, 400, "speedup"),
    ("huge-speedup-overflow", {"timing": {"speedup": 10**400}}, 400, "speedup"),
    ("negative-sol", {"sol_pct": -1}, 400, "sol_pct"),
    ("bool-duration", {"duration_s": True}, 400, "duration_s"),
    ("reason-not-string", {"reason": {"a": 1}}, 400, "reason"),
    ("environment-oversize", {"environment": {"x": "y" * 70_000}}, 400, "environment"),
    ("result-oversize", {"stderr_tail": "z" * (5 * 1024 * 1024)}, 400, "bytes"),
]


@pytest.mark.parametrize(
    ("overrides", "status", "word"), [case[1:] for case in BAD_RESULTS], ids=[case[0] for case in BAD_RESULTS]
)
def test_a_result_that_does_not_match_the_job_is_refused_and_stores_nothing(claimed, overrides, status, word):
    client, job, _ = claimed
    before = row_counts()
    response = client.post(f"/api/runner/jobs/{job.id}/result", {"result": result_for(job, **overrides)}, format="json")
    assert response.status_code == status, response.content[:300]
    assert_documented_error(response)
    assert word.lower() in response.json()["detail"].lower(), response.json()
    assert row_counts() == before
    job.refresh_from_db()
    assert job.state == JobState.RUNNING  # still waiting for a real result


@pytest.mark.parametrize(
    "body",
    [
        b'{"result": {"verdict": "correct", "sol_pct": NaN}}',
        b'{"result": {"verdict": "correct", "duration_s": Infinity}}',
        b'{"result": {"verdict": "correct", "timing": {"speedup": -Infinity}}}',
        b'{"result": ',
        b"\xff\xfe\x00",
        b'"just a string"',
        b"[1, 2, 3]",
        b"null",
        b'{"result": [1]}',
        b'{"result": ' + b"9" * 5000 + b"}",
        b'{"result": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
    ],
    ids=[
        "nan",
        "inf",
        "neg-inf-nested",
        "truncated",
        "not-utf8",
        "string",
        "array",
        "null",
        "result-array",
        "huge-int",
        "deep-nesting",
    ],
)
def test_malformed_result_json_is_a_400_and_stores_nothing(claimed, body):
    client, job, _ = claimed
    before = row_counts()
    response = client.generic("POST", f"/api/runner/jobs/{job.id}/result", body, content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    assert row_counts() == before


def test_a_result_posted_as_a_form_or_other_media_type_is_refused(claimed):
    client, job, _ = claimed
    before = row_counts()
    form = client.post(f"/api/runner/jobs/{job.id}/result", {"result": "verdict=correct"}, format="multipart")
    text = client.generic("POST", f"/api/runner/jobs/{job.id}/result", "verdict: correct", content_type="text/yaml")
    assert form.status_code in (400, 415) and text.status_code == 415
    assert row_counts() == before


@pytest.mark.parametrize(
    "body",
    [{"error": ""}, {"error": "   "}, {"error": None}, {}, {"error": "x" * 20_001}, ["error"], {"error": {"a": 1}}],
    ids=["blank", "whitespace", "null", "missing", "too-long", "array", "object"],
)
def test_a_malformed_failure_report_is_a_400_and_changes_nothing(claimed, body):
    client, job, _ = claimed
    before = row_counts()
    response = client.post(f"/api/runner/jobs/{job.id}/fail", body, format="json")
    assert response.status_code == 400, response.content[:300]
    assert_documented_error(response)
    assert row_counts() == before
    job.refresh_from_db()
    assert job.state == JobState.RUNNING and job.deliveries == 1


@pytest.mark.parametrize(
    "body",
    [{"environment": "linux"}, {"environment": [1]}, {"environment": {"blob": "x" * 70_000}}, [], "x"],
    ids=["string", "list", "oversize", "array-body", "string-body"],
)
def test_a_malformed_heartbeat_is_a_400_and_records_nothing(claimed, body):
    client, job, _ = claimed
    response = client.post("/api/runner/heartbeat", body, format="json")
    assert response.status_code == 400, response.content[:300]
    assert_documented_error(response)
    job.refresh_from_db()
    assert Runner.objects.get(pk=job.runner_id).last_heartbeat_at is None


def test_an_imported_results_bundle_with_one_bad_result_records_none(claimed, world):
    """Air-gapped imports are all or nothing: a bundle whose second result is invalid stores nothing."""
    from evaluator.harness import signing

    _, job, _ = claimed
    second = AttemptFactory(submission=job.attempt.submission, operator=world.operators["mul"])
    (other_job,) = evaluator_services.create_jobs(attempts=[second], chip=world.gpu, tier="full")
    results = [
        {"job_id": str(job.id), "result": result_for(job)},
        {"job_id": str(other_job.id), "result": result_for(other_job, verdict="splendid")},
    ]
    key = evaluator_services.issue_signing_key(runner=Runner.objects.get(name="gpu-1"), user=world.staff)
    bundle = {"schema": evaluator_services.RESULTS_SCHEMA, "chip": world.gpu.slug, "results": results}
    bundle["signature"] = signing.sign_document(bundle, signing.load_private_key(key.encode()))
    before = row_counts()
    with pytest.raises(ApplicationError, match="verdict"):
        evaluator_services.import_results(bundle=json.loads(json.dumps(bundle)), user=world.staff)
    assert row_counts() == before
