"""Issue 9, schema fuzzing: schemathesis generates requests for every operation of /api/schema/
and sends them in-process to the WSGI app, authenticated as a user (public API) or as a runner
(runner API). Checks: no 5xx, and every response's body and content type conform to the schema.
(Status-code conformance is not checked: 401, 404 and 429 are answered everywhere but documented
on few operations.) schemathesis is pinned in requirements-dev.txt; without it this module skips."""

from __future__ import annotations

import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token

from evaluator import services as evaluator_services
from kgsite.wsgi import application
from tests.factories import AttemptFactory, EvaluationFactory, SubmissionFactory
from tests.security.conftest import throttle_rates

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is not installed (schemathesis==4.32.5)")

EXAMPLES_PER_OPERATION = 25


def response_checks() -> list:
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

    return [not_a_server_error, response_schema_conformance, content_type_conformance]


@pytest.fixture
def test_connection_kept_open():
    """schemathesis calls the WSGI app itself, not through django.test.Client, so Django's
    request_started/request_finished handlers run close_old_connections, which closes a connection
    whose autocommit is off, as it is inside the test's transaction. SQLite's in-memory test
    database ignores close(); PostgreSQL's connection really closes ("the connection is closed").
    Disconnect the handlers for the test, as django.test.Client does around each request."""
    signals = (request_started, request_finished)
    for signal in signals:
        signal.disconnect(close_old_connections)
    yield
    for signal in signals:
        signal.connect(close_old_connections)


@pytest.fixture
def api_world(world, settings, monkeypatch, test_connection_kept_open):
    throttle_rates(
        settings, monkeypatch, anon="100000/min", user="100000/min", runner="100000/min", submissions="100000/hour"
    )
    submission = SubmissionFactory(uploader=world.user, target_chip=world.gpu)
    attempt = AttemptFactory(submission=submission, operator=world.operators["add"])
    EvaluationFactory(job__attempt=attempt, job__chip=world.gpu)
    runner, runner_token = evaluator_services.register_runner(chip=world.gpu, name="schema-fuzz", user=world.staff)
    queued = AttemptFactory(submission=submission, operator=world.operators["mul"])
    (job,) = evaluator_services.create_jobs(attempts=[queued], chip=world.gpu, tier="full", user=world.staff)
    evaluator_services.claim_job(runner=runner, job_id=job.pk)
    user_token = Token.objects.create(user=world.user).key
    return {
        "Runner": runner_token,
        "Token": user_token,
        # ids of existing objects, so that fuzzing gets past 404 on the paths that take one
        "ids": {"job_id": str(job.pk), "attempts": attempt.pk, "submissions": str(submission.pk)},
    }


def fuzz_operation(operation, *, headers: dict, ids: dict, statuses: dict[str, list[int]]) -> None:
    def existing_id(name: str):
        if name == "job_id":
            return ids["job_id"]
        return ids["attempts" if "/attempts/" in operation.path else "submissions"]

    @settings(
        max_examples=EXAMPLES_PER_OPERATION, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )
    @given(case=operation.as_strategy(), use_existing=st.booleans())
    def check(case, use_existing: bool) -> None:
        if use_existing and case.path_parameters:
            case.path_parameters = {name: existing_id(name) for name in case.path_parameters}
        response = case.call_and_validate(headers=headers, checks=response_checks())
        statuses.setdefault(operation.label, []).append(response.status_code)

    check()


@pytest.mark.django_db
def test_api_never_500s_and_conforms_to_its_schema(api_world):
    schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
    # deletions last, so that the other operations still find the existing objects
    operations = sorted((result.ok() for result in schema.get_all_operations()), key=lambda op: op.method == "delete")
    assert len(operations) >= 10, [op.label for op in operations]
    failures: list[str] = []
    statuses: dict[str, list[int]] = {}
    for operation in operations:
        scheme = "Runner" if operation.path.startswith("/api/runner/") else "Token"
        headers = {"Authorization": f"{scheme} {api_world[scheme]}"}
        try:
            fuzz_operation(operation, headers=headers, ids=api_world["ids"], statuses=statuses)
        except Exception as failure:  # collect every operation's failure, then report them together
            failures.append(f"{operation.label}: {str(failure)[:1500]}")
    assert not failures, "\n\n".join(failures)
    print({label: sorted(set(codes)) for label, codes in statuses.items()})
    # the fuzzing reached every operation, and got past authentication and validation somewhere
    assert set(statuses) == {op.label for op in operations}
    assert sum(code < 300 for codes in statuses.values() for code in codes) >= len(operations)
