"""Issue 9, fuzzing: the upload validator, the result validator and the result endpoint are fed
random input (hypothesis) and the whole OpenAPI surface is fuzzed from its own schema
(schemathesis, in-process over WSGI). Properties: never an unhandled exception or a 500; either a
validated value or a clear refusal; nothing stored by a refused request."""

from __future__ import annotations

import io
import json
import warnings
import zipfile

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from evaluator import services as evaluator_services
from evaluator.models import Evaluation, JobState
from evaluator.serializers import validate_result
from kgsite.errors import ApplicationError
from leaderboard import upload
from leaderboard.upload import FILE_NAME_RE, UploadInvalid, ValidatedUpload, validate_upload
from tests.factories import AttemptFactory, SubmissionFactory
from tests.leaderboard.helpers import KERNEL

KNOWN_OPERATORS = {"aten::add", "aten::mul", "vllm13::rms_norm", "cublas::cublasSaxpy_v2"}
KNOWN_CHIPS = {"cpu", "h200"}

# --- JSON-ish values, including the awkward ones (huge ints, deep nesting, odd text) ---------------

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**18, max_value=10**4000)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5),
    max_leaves=25,
)

# --- the upload validator -----------------------------------------------------------------------------

name_parts = st.sampled_from(
    [
        "aten__add",
        "aten__mul",
        "vllm13__rms_norm",
        "cublas__cublasSaxpy_v2",
        "aten__nosuch",
        "torch__add",
        "../",
        "/",
        "\\",
        "..",
        ".",
        "C:",
        "\x00",
        "sub/",
        ".1",
        ".11",
        ".py",
        ".pyc",
        "é",
        " ",
        "__",
    ]
)
member_names = st.lists(name_parts, min_size=1, max_size=4).map("".join)
member_bodies = st.one_of(
    st.just(KERNEL.encode()),
    st.binary(max_size=200),
    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.sampled_from([b"", b"   \n", b"\x00\x01", "é".encode("latin-1"), b"#" * (upload.MAX_FILE_BYTES + 1)]),
)
members = st.lists(st.tuples(member_names, member_bodies, st.sampled_from([0, 8])), max_size=6)
usage_entries = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {},
        optional={
            key: st.one_of(st.integers(min_value=-5, max_value=3 * upload.MAX_TOKENS_PER_SAMPLE), json_values)
            for key in (*upload.TOKEN_FIELDS, "turns", "wall_time_s", "transcript")
        },
    ),
)
metadata_documents = st.fixed_dictionaries(
    {},
    optional={
        "schema": st.sampled_from(["kgb-submission/1", "other"]) | json_values,
        "name": st.text(max_size=130) | json_values,
        "model": st.fixed_dictionaries({"provider": st.text(max_size=5), "name": st.text(max_size=5)}) | json_values,
        "scaffold": st.fixed_dictionaries(
            {"name": st.text(max_size=5), "kind": st.sampled_from(["agent", "one_shot", "x"])}
        )
        | json_values,
        "track": st.sampled_from(["agent", "llm", "reference", "x"]) | json_values,
        "target_chip": st.sampled_from(sorted(KNOWN_CHIPS) + ["tpu"]) | json_values,
        "public": st.booleans() | json_values,
        "operators": st.dictionaries(st.sampled_from(sorted(KNOWN_OPERATORS) + ["aten::x"]), usage_entries)
        | st.dictionaries(st.text(max_size=8), st.lists(usage_entries, max_size=12), max_size=3)
        | json_values,
        "notes": json_values,
        "extra": json_values,
    },
)


def build_zip(entries: list[tuple[str, bytes, int]]) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w") as archive:
        warnings.simplefilter("ignore", UserWarning)  # duplicated names are part of the fuzz
        for name, body, compression in entries:
            info = zipfile.ZipInfo(name.replace("\x00", "") or "x")
            info.compress_type = compression
            archive.writestr(info, body)
    return buffer.getvalue()


def encode_metadata(document: dict) -> bytes:
    return json.dumps(document, ensure_ascii=False).encode("utf-8", "surrogatepass")


def assert_clean_outcome(archive: bytes, metadata: bytes) -> ValidatedUpload | None:
    try:
        validated = validate_upload(archive, metadata, known_operators=KNOWN_OPERATORS, known_chips=KNOWN_CHIPS)
    except UploadInvalid as refused:
        assert refused.errors
        for error in refused.errors:
            assert isinstance(error.where, str) and error.where
            assert isinstance(error.message, str) and error.message
        return None
    assert validated.files, "a validated upload holds at least one solution"
    for solution in validated.files:
        assert FILE_NAME_RE.match(solution.file_name) and solution.operator_id in KNOWN_OPERATORS
        assert "/" not in solution.file_name and ".." not in solution.file_name
        assert solution.source.strip() and "\x00" not in solution.source
    assert validated.metadata.target_chip in KNOWN_CHIPS
    for usage in validated.metadata.usage.values():
        for field in upload.TOKEN_FIELDS:
            assert 0 <= getattr(usage, field) <= upload.MAX_TOKENS_PER_SAMPLE
    return validated


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(entries=members, document=metadata_documents)
def test_fuzz_upload_validator_either_validates_or_refuses_cleanly(entries, document):
    assert_clean_outcome(build_zip(entries), encode_metadata(document))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(archive=st.binary(max_size=400), metadata=st.binary(max_size=200))
@example(archive=b"PK\x05\x06" + b"\x00" * 18, metadata=b'{"name": ' + b"1" * 5000 + b"}")
@example(archive=b"PK\x03\x04", metadata=b"[" * 5000)
def test_fuzz_raw_bytes_never_crash_the_upload_validator(archive, metadata):
    assert_clean_outcome(archive, metadata)


# --- the result validator and the result endpoint ----------------------------------------------------

result_documents = st.fixed_dictionaries(
    {"verdict": st.sampled_from(["correct", "incorrect", "timeout", "bogus"]) | json_values},
    optional={
        "schema": st.sampled_from(["kgb.result/1", "x"]) | json_values,
        "operator": st.sampled_from(["aten::add", "aten::mul"]) | json_values,
        "tier": st.sampled_from(["full", "smoke"]) | json_values,
        "reason": json_values,
        "cases": st.lists(st.dictionaries(st.sampled_from(["passed", "ok", "name"]), json_values), max_size=4)
        | json_values,
        "timing": st.fixed_dictionaries({}, optional={"speedup": json_values}) | json_values,
        "sol_pct": json_values,
        "duration_s": json_values,
        "findings": json_values,
        "environment": json_values,
        "stderr_tail": json_values,
    },
)


@settings(max_examples=200, deadline=None)
@given(document=result_documents | json_values)
@example(document={"verdict": "correct", "timing": {"speedup": 10**400}})
@example(document={"verdict": "correct", "sol_pct": 10**400})
def test_fuzz_result_validator_returns_a_clean_result_or_a_service_error(document):
    try:
        cleaned = validate_result(document).to_dict()
    except ApplicationError as refused:
        assert refused.message
        return
    assert cleaned["verdict"] in {"correct", "incorrect", "timeout"}
    json.dumps(cleaned, allow_nan=False)  # storable as plain JSON


@pytest.fixture
def claimed_job(world):
    runner, token = evaluator_services.register_runner(chip=world.gpu, name="fuzz", user=world.staff)
    attempt = AttemptFactory(submission=SubmissionFactory(target_chip=world.gpu), operator=world.operators["add"])
    (job,) = evaluator_services.create_jobs(attempts=[attempt], chip=world.gpu, tier="full", user=world.staff)
    evaluator_services.claim_job(runner=runner, job_id=job.pk)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Runner {token}")
    return client, job


@pytest.mark.django_db
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(document=result_documents, wrap=st.booleans())
@example(document={"verdict": "correct", "timing": {"speedup": 10**400}}, wrap=True)
def test_fuzz_result_endpoint_never_500s_and_records_at_most_once(claimed_job, document, wrap):
    client, job = claimed_job
    body = {"result": document} if wrap else document
    response = client.post(f"/api/runner/jobs/{job.id}/result", body, format="json")
    assert response.status_code < 500, response.content[:300]
    evaluations = Evaluation.objects.filter(job=job).count()
    job.refresh_from_db()
    if response.status_code in (200, 201):
        assert evaluations == 1 and job.state == JobState.DONE
    else:
        assert "detail" in response.json()
        assert evaluations == (1 if job.state == JobState.DONE else 0)
