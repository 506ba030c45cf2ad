"""Issue 21 item 3: uploads pick models and scaffolds from the registered ones, a new name close to a known one is
questioned before anything is stored, and staff merge duplicates."""

from __future__ import annotations

import datetime
import io

import pytest
from rest_framework.test import APIClient

from kgsite.errors import Conflict, Forbidden
from leaderboard import services
from leaderboard.models import LLMModel, Scaffold, Submission
from leaderboard.upload import UploadInvalid
from tests.factories import (
    ChipFactory,
    LLMModelFactory,
    OperatorFactory,
    ScaffoldFactory,
    SubmissionFactory,
    UserFactory,
)
from tests.leaderboard.helpers import KERNEL, make_metadata, make_zip
from tests.leaderboard.test_api import conforms, openapi  # noqa: F401 (the schema fixture)

pytestmark = pytest.mark.django_db

OPUS = {"provider": "Anthropic", "name": "Claude Opus 4.6", "version": "4.6"}  # the metadata


@pytest.fixture
def registered(db):
    ChipFactory(slug="cpu", device_type="cpu", family="cpu", timing_meaningful=False)
    OperatorFactory(source="aten", name="add")
    model = LLMModelFactory(
        provider="Anthropic",
        name="Claude Opus",
        version="4.6",
        reviewed=True,
        price_input_per_mtok=15,
        price_output_per_mtok=75,
        release_date=datetime.date(2026, 2, 5),
    )
    scaffold = ScaffoldFactory(name="Claude Code", version="2.1", reviewed=True)
    return model, scaffold


def upload(user, metadata: bytes, **choices) -> Submission:
    return services.create_submission(
        uploader=user,
        archive_bytes=make_zip({"aten__add.py": KERNEL}),
        metadata_bytes=metadata,
        choices=services.UploadChoices(**choices),
    )


def test_a_near_duplicate_model_is_questioned_and_nothing_is_stored(registered):
    model, _ = registered
    with pytest.raises(UploadInvalid) as refused:
        upload(UserFactory(), make_metadata(model=OPUS))
    (error,) = refused.value.errors
    assert error.where == "metadata: model"
    assert f"Anthropic Claude Opus 4.6 (id {model.pk}, reviewed, $15/$75 per M in/out tokens, released 2026-02-05)" in (
        error.message
    )
    assert LLMModel.objects.count() == 1 and not Submission.objects.exists()


@pytest.mark.parametrize(
    "named",
    [
        {"provider": "anthropic", "name": "claude-opus", "version": "4.6"},
        {"provider": "Anthropic", "name": "Claude Opsu", "version": "4.6"},
    ],
)
def test_spellings_and_typos_of_a_registered_model_are_near(registered, named):
    with pytest.raises(UploadInvalid, match="is not registered, but close to Anthropic Claude Opus 4.6"):
        upload(UserFactory(), make_metadata(model=named))


def test_another_version_or_a_confirmed_new_model_is_created(registered):
    user = UserFactory()
    other = upload(user, make_metadata(model={"provider": "Anthropic", "name": "Claude Opus", "version": "4.7"}))
    assert str(other.model) == "Claude Opus 4.7"
    confirmed = upload(user, make_metadata(model=OPUS), new_model=True)
    assert str(confirmed.model) == "Claude Opus 4.6 4.6" and confirmed.model.created_by == user
    again = upload(user, make_metadata(model=OPUS))  # named exactly: the model it names, no question
    assert again.model == confirmed.model


def test_a_picked_model_and_scaffold_replace_the_metadata(registered):
    model, scaffold = registered
    submission = upload(
        UserFactory(), make_metadata(model=None, scaffold=None), model_id=model.pk, scaffold_id=scaffold.pk
    )
    assert (submission.model, submission.scaffold) == (model, scaffold)
    assert LLMModel.objects.count() == 1 and Scaffold.objects.count() == 1


def test_only_registered_models_and_reviewed_or_own_scaffolds_can_be_picked(registered):
    user = UserFactory()
    unreviewed = LLMModelFactory(reviewed=False)
    strangers = ScaffoldFactory(owner=UserFactory(), reviewed=False)
    mine = ScaffoldFactory(owner=user, reviewed=False)
    with pytest.raises(UploadInvalid, match=f"no registered model has id {unreviewed.pk}"):
        upload(user, make_metadata(model=None), model_id=unreviewed.pk)
    with pytest.raises(UploadInvalid, match=f"nor one of yours has id {strangers.pk}"):
        upload(user, make_metadata(), scaffold_id=strangers.pk)
    assert upload(user, make_metadata(), scaffold_id=mine.pk).scaffold == mine
    with pytest.raises(UploadInvalid, match=r"metadata: model: must be an object"):  # no pick: the metadata names it
        upload(user, make_metadata(model=None))


def test_a_near_duplicate_scaffold_is_questioned(registered):
    _, scaffold = registered
    named = {"name": "claude-code", "version": "2.1", "kind": "agent"}
    with pytest.raises(UploadInvalid, match=rf"close to Claude Code 2.1 \(id {scaffold.pk}, agent, reviewed\)"):
        upload(UserFactory(), make_metadata(scaffold=named))
    assert upload(UserFactory(), make_metadata(scaffold=named), new_scaffold=True).scaffold.name == "claude-code"


def test_a_model_only_a_strangers_private_submission_names_is_not_revealed(registered):
    hidden = LLMModelFactory(provider="Secret Lab", name="Nebula", version="1", reviewed=False)
    SubmissionFactory(model=hidden, is_public=False, uploader=UserFactory())
    named = {"provider": "Secret Lab", "name": "nebula", "version": "1"}
    assert str(upload(UserFactory(), make_metadata(model=named)).model) == "nebula 1"


def test_staff_merge_duplicates_into_the_reviewed_model(registered):
    model, scaffold = registered
    duplicate = LLMModelFactory(**OPUS)
    moved = SubmissionFactory(model=duplicate)
    staff, user = UserFactory(is_staff=True), UserFactory()
    with pytest.raises(Forbidden):
        services.merge_models(keep=model, duplicates=[duplicate], user=user)
    with pytest.raises(Conflict):
        services.merge_models(keep=duplicate, duplicates=[model], user=staff)
    assert services.merge_models(keep=model, duplicates=[duplicate, model], user=staff) == 1
    moved.refresh_from_db()
    assert moved.model == model and not LLMModel.objects.filter(pk=duplicate.pk).exists()
    own = ScaffoldFactory(name="claude code", version="2.1", owner=user)
    SubmissionFactory(scaffold=own)
    assert services.merge_scaffolds(keep=scaffold, duplicates=[own], user=staff) == 1
    assert not Scaffold.objects.filter(pk=own.pk).exists()


def test_admin_merge_action(registered, client):
    model, _ = registered
    duplicate = LLMModelFactory(**OPUS)
    submission = SubmissionFactory(model=duplicate)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    url = "/admin/leaderboard/llmmodel/"
    response = client.post(url, {"action": "merge_into_reviewed", "_selected_action": [duplicate.pk]}, follow=True)
    assert "Select exactly one reviewed record" in response.content.decode()
    response = client.post(
        url, {"action": "merge_into_reviewed", "_selected_action": [model.pk, duplicate.pk]}, follow=True
    )
    assert "Merged Claude Opus 4.6 4.6 into Claude Opus 4.6: 1 submission(s) moved." in response.content.decode()
    submission.refresh_from_db()
    assert submission.model == model


def _files(**fields) -> dict:
    archive, metadata = io.BytesIO(make_zip({"aten__add.py": KERNEL})), io.BytesIO(make_metadata(model=OPUS))
    archive.name, metadata.name = "s.zip", "m.json"
    return {"archive": archive, "metadata": metadata, **fields}


def test_api_lists_registered_names_and_uploads_pick_them(registered, openapi):  # noqa: F811
    model, scaffold = registered
    LLMModelFactory(reviewed=False)
    api = APIClient()
    listed = api.get("/api/v1/models/")
    conforms(openapi, "/api/v1/models/", "get", listed)
    assert [m["id"] for m in listed.json()["results"]] == [model.pk]
    assert listed.json()["results"][0]["price_output_per_mtok"] == "75.0000"
    scaffolds = api.get("/api/v1/scaffolds/", {"kind": "agent"})
    conforms(openapi, "/api/v1/scaffolds/", "get", scaffolds)
    assert [s["id"] for s in scaffolds.json()["results"]] == [scaffold.pk]
    api.force_authenticate(UserFactory())
    refused = api.post("/api/v1/submissions/", _files(), format="multipart")
    assert refused.status_code == 400 and "is not registered, but close to" in refused.json()["errors"][0]["message"]
    created = api.post("/api/v1/submissions/", _files(model=model.pk), format="multipart")
    assert created.status_code == 201, created.content
    assert created.json()["model"] == "Claude Opus 4.6" and LLMModel.objects.filter(reviewed=False).count() == 1
