"""Issue 9's access matrix: every URL and API endpoint x every kind of caller.

The table below must name every non-admin URL pattern of the site (a new endpoint without a row
fails `test_every_endpoint_is_in_the_matrix`), so no endpoint ships unclassified.

Callers: anonymous; the owner of a private submission; another user; staff; a runner of the
job's chip; that runner once disabled; a runner of another chip. Runner tokens travel as
`Authorization: Runner <token>` and mean nothing outside the runner API.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable

import pytest
from django.urls import get_resolver, reverse
from rest_framework.authtoken.models import Token

from evaluator import services as evaluator_services
from evaluator.models import RunnerState
from tests.factories import (
    AttemptFactory,
    ChipFactory,
    EvaluationJobFactory,
    OperatorFactory,
    SubmissionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

ACTORS = ("anon", "owner", "other", "staff", "runner", "runner_disabled", "runner_other_chip")
OK = {200}
REDIRECT_TO_LOGIN = {302}
DENIED = {401, 403}
HIDDEN = {404}  # private objects are not revealed to those who may not see them


@dataclasses.dataclass
class World:
    chip: object
    other_chip: object
    owner: object
    other: object
    staff: object
    private_submission: object
    public_submission: object
    attempt: object
    job: object
    operator: object
    runner_token: str
    disabled_token: str
    other_chip_token: str


@pytest.fixture
def world() -> World:
    chip = ChipFactory(slug="h200x", device_type="cuda")
    other_chip = ChipFactory(slug="cpux", device_type="cpu", family="cpu")
    owner = UserFactory(username="owner")
    other = UserFactory(username="other")
    staff = UserFactory(username="staff", is_staff=True)
    operator = OperatorFactory(source="aten", name="matrixop")
    private = SubmissionFactory(uploader=owner, target_chip=chip, is_public=False, name="private one")
    public = SubmissionFactory(uploader=owner, target_chip=chip, is_public=True, name="public one")
    attempt = AttemptFactory(submission=private, operator=operator)
    job = EvaluationJobFactory(attempt=attempt, chip=chip)
    _, runner_token = evaluator_services.register_runner(chip=chip, name="r-ok", user=staff)
    disabled, disabled_token = evaluator_services.register_runner(chip=chip, name="r-off", user=staff)
    evaluator_services.disable_runner(runner=disabled, user=staff)
    assert disabled.__class__.objects.get(pk=disabled.pk).state == RunnerState.DISABLED
    _, other_chip_token = evaluator_services.register_runner(chip=other_chip, name="r-cpu", user=staff)
    return World(
        chip,
        other_chip,
        owner,
        other,
        staff,
        private,
        public,
        attempt,
        job,
        operator,
        runner_token,
        disabled_token,
        other_chip_token,
    )


def _call(client, world: World, actor: str, method: str, url: str, data: dict | None, as_json: bool):
    headers = {}
    if actor in {"owner", "other", "staff"}:
        client.force_login(getattr(world, actor))
    elif actor.startswith("runner"):
        token = {
            "runner": world.runner_token,
            "runner_disabled": world.disabled_token,
            "runner_other_chip": world.other_chip_token,
        }[actor]
        headers["HTTP_AUTHORIZATION"] = f"Runner {token}"
    kwargs = dict(headers)
    if data is not None:
        if as_json:
            kwargs.update(data=json.dumps(data), content_type="application/json")
        else:
            kwargs["data"] = data
    return getattr(client, method.lower())(url, **kwargs)


def everyone(codes: set[int]) -> dict[str, set[int]]:
    return {actor: codes for actor in ACTORS}


def users_only(user_codes: set[int], others: set[int] = REDIRECT_TO_LOGIN) -> dict[str, set[int]]:
    return {a: (user_codes if a in {"owner", "other", "staff"} else others) for a in ACTORS}


def private_view(owner_codes: set[int] = OK) -> dict[str, set[int]]:
    return {a: (owner_codes if a in {"owner", "staff"} else HIDDEN) for a in ACTORS}


def staff_page() -> dict[str, set[int]]:
    not_staff = REDIRECT_TO_LOGIN | {403}
    return {
        "anon": not_staff,
        "owner": {403},
        "other": {403},
        "staff": OK,
        "runner": not_staff,
        "runner_disabled": not_staff,
        "runner_other_chip": not_staff,
    }


def runner_api(runner_codes: set[int], other_chip_codes: set[int]) -> dict[str, set[int]]:
    return {
        "anon": DENIED,
        "owner": DENIED,
        "other": DENIED,
        "staff": DENIED,
        "runner": runner_codes,
        "runner_disabled": DENIED,
        "runner_other_chip": other_chip_codes,
    }


def public_api_private_object(owner_codes: set[int] = OK) -> dict[str, set[int]]:
    return {a: (owner_codes if a in {"owner", "staff"} else HIDDEN) for a in ACTORS}


Url = Callable[[World], str]


def _owners_check(w: World) -> str:
    from evaluator.models import VerifyJob

    check = VerifyJob.objects.create(
        owner=w.owner,
        chip=w.chip,
        operator=w.operator,
        tier="smoke",
        source="x",
        source_sha256="0",
        seed=1,
        timeout_s=1,
    )
    return str(check.pk)


VALID_RESULT = {
    "schema": "kgb.result/1",
    "verdict": "correct",
    "reason": "all cases passed",
    "operator": "aten::matrixop",
    "tier": "full",
    "seed_kind": "public",
    "cases": [],
    "timing": None,
    "sol_pct": None,
    "findings": [],
    "environment": {"chip": "h200x", "harness_version": "0.1.0"},
    "stderr_tail": "",
    "duration_s": 1.0,
}
# (url name, method, url builder, body, json body?, expected codes per actor)
MATRIX: list[tuple[str, str, Url, dict | None, bool, dict[str, set[int]]]] = [
    ("home", "GET", lambda w: reverse("home"), None, False, everyone(OK)),
    ("leaderboard", "GET", lambda w: reverse("leaderboard"), None, False, everyone(OK)),
    ("multi_source", "GET", lambda w: reverse("multi_source"), None, False, everyone(OK)),
    ("multi_chip", "GET", lambda w: reverse("multi_chip"), None, False, everyone(OK)),
    ("reported", "GET", lambda w: reverse("reported"), None, False, everyone(OK)),
    ("operator_list", "GET", lambda w: reverse("operator_list"), None, False, everyone(OK)),
    ("operator_detail", "GET", lambda w: reverse("operator_detail", args=[w.operator.pk]), None, False, everyone(OK)),
    ("submission_upload", "GET", lambda w: reverse("submission_upload"), None, False, users_only(OK)),
    (
        "submission_detail",
        "GET",
        lambda w: reverse("submission_detail", args=[w.private_submission.pk]),
        None,
        False,
        private_view(),
    ),
    (
        "submission_detail",
        "GET",
        lambda w: reverse("submission_detail", args=[w.public_submission.pk]),
        None,
        False,
        everyone(OK),
    ),
    (
        "submission_progress",
        "GET",
        lambda w: reverse("submission_progress", args=[w.private_submission.pk]),
        None,
        False,
        private_view(),
    ),
    (
        "submission_cancel",
        "POST",
        lambda w: reverse("submission_cancel", args=[w.private_submission.pk]),
        {},
        False,
        {
            "anon": REDIRECT_TO_LOGIN,
            "owner": {302},
            "other": HIDDEN,
            "staff": {302},
            "runner": REDIRECT_TO_LOGIN,
            "runner_disabled": REDIRECT_TO_LOGIN,
            "runner_other_chip": REDIRECT_TO_LOGIN,
        },
    ),
    (
        "submission_retarget",
        "POST",
        lambda w: reverse("submission_retarget", args=[w.private_submission.pk]),
        {},  # names no chip: refused (400), or 409 for a submission no longer evaluating, after the access check
        False,
        {
            "anon": REDIRECT_TO_LOGIN,
            "owner": {400, 409},
            "other": HIDDEN,
            "staff": {400, 409},
            "runner": REDIRECT_TO_LOGIN,
            "runner_disabled": REDIRECT_TO_LOGIN,
            "runner_other_chip": REDIRECT_TO_LOGIN,
        },
    ),
    (
        "submission_delete",
        "POST",
        lambda w: reverse("submission_delete", args=[w.private_submission.pk]),
        {},
        False,
        {
            "anon": REDIRECT_TO_LOGIN,
            "owner": {302},
            "other": HIDDEN,
            "staff": {302},
            "runner": REDIRECT_TO_LOGIN,
            "runner_disabled": REDIRECT_TO_LOGIN,
            "runner_other_chip": REDIRECT_TO_LOGIN,
        },
    ),
    ("attempt_detail", "GET", lambda w: reverse("attempt_detail", args=[w.attempt.pk]), None, False, private_view()),
    # a signed-in user is sent on to their account page
    ("signup", "GET", lambda w: reverse("signup"), None, False, users_only({302}, OK)),
    ("login", "GET", lambda w: reverse("login"), None, False, everyone(OK)),
    ("logout", "POST", lambda w: reverse("logout"), {}, False, everyone({302})),
    ("account", "GET", lambda w: reverse("account"), None, False, users_only(OK)),
    ("token_rotate", "POST", lambda w: reverse("token_rotate"), {}, False, users_only({302})),
    ("api-docs", "GET", lambda w: reverse("api-docs"), None, False, everyone(OK)),
    ("api-schema", "GET", lambda w: reverse("api-schema"), None, False, everyone(OK)),
    ("api-leaderboard", "GET", lambda w: reverse("api-leaderboard"), None, False, everyone(OK)),
    ("api-submissions", "GET", lambda w: reverse("api-submissions"), None, False, everyone(OK)),
    (
        "api-submissions",
        "POST",
        lambda w: reverse("api-submissions"),
        {},
        False,
        {**{a: DENIED for a in ACTORS}, "owner": {400}, "other": {400}, "staff": {400}},
    ),
    (
        "api-submission",
        "GET",
        lambda w: reverse("api-submission", args=[w.private_submission.pk]),
        None,
        False,
        public_api_private_object(),
    ),
    (
        "api-submission",
        "DELETE",
        lambda w: reverse("api-submission", args=[w.private_submission.pk]),
        None,
        False,
        {
            "anon": DENIED | HIDDEN,
            "owner": {204},
            "other": HIDDEN,
            "staff": {204},
            "runner": DENIED | HIDDEN,
            "runner_disabled": DENIED | HIDDEN,
            "runner_other_chip": DENIED | HIDDEN,
        },
    ),
    (
        "api-submission-progress",
        "GET",
        lambda w: reverse("api-submission-progress", args=[w.private_submission.pk]),
        None,
        False,
        public_api_private_object(),
    ),
    (
        "api-attempt",
        "GET",
        lambda w: reverse("api-attempt", args=[w.attempt.pk]),
        None,
        False,
        public_api_private_object(),
    ),
    ("api-reported", "GET", lambda w: reverse("api-reported"), None, False, everyone(OK)),
    ("api-models", "GET", lambda w: reverse("api-models"), None, False, everyone(OK)),
    ("api-operators", "GET", lambda w: reverse("api-operators"), None, False, everyone(OK)),
    ("api-chips", "GET", lambda w: reverse("api-chips"), None, False, everyone(OK)),
    ("doc_index", "GET", lambda w: reverse("doc_index"), None, False, everyone(OK)),
    ("doc_page", "GET", lambda w: reverse("doc_page", args=["submission_format"]), None, False, everyone(OK)),
    ("api-scaffolds", "GET", lambda w: reverse("api-scaffolds"), None, False, everyone(OK)),
    ("evaluator:runners", "GET", lambda w: reverse("evaluator:runners"), None, False, staff_page()),
    # test mode: users only (a runner token means nothing here); a check is its owner's alone, staff included
    (
        "evaluator:api-verify",
        "POST",
        lambda w: reverse("evaluator:api-verify"),
        {},
        True,
        {**{a: DENIED for a in ACTORS}, "owner": {400}, "other": {400}, "staff": {400}},
    ),
    (
        "evaluator:api-verify-status",
        "GET",
        lambda w: reverse("evaluator:api-verify-status", args=[_owners_check(w)]),
        None,
        False,
        {**{a: DENIED for a in ACTORS}, "owner": OK, "other": HIDDEN, "staff": HIDDEN},
    ),
    (
        "evaluator:import_results",
        "POST",
        lambda w: reverse("evaluator:import_results"),
        {},
        False,
        {**staff_page(), "staff": {200, 302, 400}},
    ),
    ("runner_api:config", "GET", lambda w: reverse("runner_api:config"), None, False, runner_api(OK, OK)),
    (
        "runner_api:heartbeat",
        "POST",
        lambda w: reverse("runner_api:heartbeat"),
        {"environment": {"torch": "2.11"}},
        True,
        runner_api(OK, OK),
    ),
    (
        "runner_api:claim",
        "POST",
        lambda w: reverse("runner_api:claim", args=[w.job.pk]),
        {},
        True,
        runner_api(OK, {403, 404}),
    ),
    # renewing a lease the runner does not hold: refused, never a renewal
    (
        "runner_api:lease",
        "POST",
        lambda w: reverse("runner_api:lease", args=[w.job.pk]),
        {"lease": "00000000-0000-4000-8000-000000000000"},
        True,
        runner_api({400, 409}, {403, 404}),
    ),
    (
        "runner_api:result",
        "POST",
        lambda w: reverse("runner_api:result", args=[w.job.pk]),
        {"verdict": 3},
        True,
        runner_api({400, 409}, {400, 403, 404}),
    ),
    # a well-formed result: only the runner that claimed the job may record it
    (
        "runner_api:result",
        "POST",
        lambda w: reverse("runner_api:result", args=[w.job.pk]),
        VALID_RESULT,
        True,
        runner_api({409}, {403, 404}),
    ),
    (
        "runner_api:fail",
        "POST",
        lambda w: reverse("runner_api:fail", args=[w.job.pk]),
        {"error": "x"},
        True,
        runner_api({200, 409}, {403, 404}),
    ),
]


def _url_names() -> set[str]:
    names: set[str] = set()

    def walk(resolver, namespace: str | None) -> None:
        for pattern in resolver.url_patterns:
            if hasattr(pattern, "url_patterns"):
                if pattern.namespace == "admin":
                    continue
                walk(pattern, pattern.namespace or namespace)
            elif pattern.name:
                names.add(f"{namespace}:{pattern.name}" if namespace else pattern.name)

    walk(get_resolver(), None)
    return names


def test_every_endpoint_is_in_the_matrix() -> None:
    missing = _url_names() - {row[0] for row in MATRIX}
    assert not missing, f"endpoints without an access-matrix row: {sorted(missing)}"


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize(
    ("name", "method", "url", "body", "as_json", "expected"), MATRIX, ids=[f"{row[1]} {row[0]}" for row in MATRIX]
)
def test_access(client, world: World, actor, name, method, url, body, as_json, expected) -> None:
    response = _call(client, world, actor, method, url(world), body, as_json)
    assert response.status_code in expected[actor], (
        f"{actor} {method} {name}: {response.status_code}, expected one of {sorted(expected[actor])}"
    )


def test_api_token_of_a_user_acts_as_that_user(client, world: World) -> None:
    token = Token.objects.create(user=world.other)
    url = reverse("api-submission", args=[world.private_submission.pk])
    assert client.get(url, HTTP_AUTHORIZATION=f"Token {token.key}").status_code == 404
    owner_token = Token.objects.create(user=world.owner)
    assert client.get(url, HTTP_AUTHORIZATION=f"Token {owner_token.key}").status_code == 200


def test_forms_need_csrf(world: World) -> None:
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(world.owner)
    response = strict.post(reverse("submission_delete", args=[world.private_submission.pk]))
    assert response.status_code == 403
    assert world.private_submission.__class__.objects.filter(pk=world.private_submission.pk).exists()
