"""Issue 15 item 8, shared names: the first uploader of a scaffold name used to fix its kind and URL for
everyone (another user's `agent` submission became `one_shot` with a stranger's URL). A scaffold is now
its uploader's own until staff review it; a model is a shared identity that uploads never change."""

from __future__ import annotations

import io

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from leaderboard import services
from leaderboard.models import LLMModel, Scaffold, Submission
from tests.leaderboard.helpers import KERNEL, make_metadata, make_zip

pytestmark = pytest.mark.django_db

ARCHIVE = make_zip({"aten__add.py": KERNEL})


def upload(user, *, scaffold: dict, model: dict | None = None, name: str = "run"):
    client = APIClient(REMOTE_ADDR="10.0.0.1")
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    metadata = make_metadata(name=name, scaffold=scaffold, **({"model": model} if model else {}))
    a, m = io.BytesIO(ARCHIVE), io.BytesIO(metadata)
    a.name, m.name = "s.zip", "m.json"
    return client.post("/api/v1/submissions/", {"archive": a, "metadata": m}, format="multipart")


def scaffold_of(response) -> Scaffold:
    assert response.status_code == 201, response.content
    return Submission.objects.get(pk=response.json()["id"]).scaffold


ALICE_AGENT = {"name": "shared-agent", "version": "1", "kind": "agent", "url": "https://alice.example/agent"}
BOB_ONE_SHOT = {"name": "shared-agent", "version": "1", "kind": "one_shot", "url": "https://bob.example/x"}


def test_another_users_upload_neither_changes_nor_adopts_a_strangers_scaffold(world):
    alices = scaffold_of(upload(world.user, scaffold=ALICE_AGENT))
    bobs = scaffold_of(upload(world.other, scaffold=BOB_ONE_SHOT))
    assert bobs.pk != alices.pk
    assert (bobs.kind, bobs.url, bobs.owner, bobs.reviewed) == ("one_shot", BOB_ONE_SHOT["url"], world.other, False)
    alices.refresh_from_db()
    assert (alices.kind, alices.url, alices.owner) == ("agent", ALICE_AGENT["url"], world.user)
    # and each user's later uploads are filed under their own
    assert scaffold_of(upload(world.user, scaffold=ALICE_AGENT, name="run 2")).pk == alices.pk
    assert scaffold_of(upload(world.other, scaffold=BOB_ONE_SHOT, name="run 2")).pk == bobs.pk


def test_an_owner_cannot_silently_change_the_kind_their_earlier_submissions_show(world):
    mine = scaffold_of(upload(world.user, scaffold=ALICE_AGENT))
    refused = upload(world.user, scaffold={**ALICE_AGENT, "kind": "one_shot"}, name="run 2")
    assert refused.status_code == 400
    assert any("new version" in e["message"] for e in refused.json()["errors"]), refused.json()
    assert Submission.objects.count() == 1
    mine.refresh_from_db()
    assert mine.kind == "agent"
    assert scaffold_of(upload(world.user, scaffold={**ALICE_AGENT, "version": "2", "kind": "one_shot"})).kind == (
        "one_shot"
    )


def test_a_reviewed_scaffold_is_everyones_with_its_own_kind_and_url(world):
    alices = scaffold_of(upload(world.user, scaffold=ALICE_AGENT))
    services.review_scaffold(scaffold=alices, user=world.staff)
    # another user naming it is filed under it, declaring its kind (the URL may be left out)
    bobs = scaffold_of(upload(world.other, scaffold={**ALICE_AGENT, "url": ""}))
    assert bobs.pk == alices.pk
    # but cannot change it: another kind or URL is refused, and nothing is stored
    before = Submission.objects.count()
    refused = upload(world.other, scaffold=BOB_ONE_SHOT, name="run 2")
    assert refused.status_code == 400
    assert any("reviewed scaffold" in e["message"] for e in refused.json()["errors"]), refused.json()
    assert Submission.objects.count() == before
    alices.refresh_from_db()
    assert (alices.kind, alices.url) == ("agent", ALICE_AGENT["url"])


def test_only_staff_review_and_one_scaffold_per_name_is_reviewed(world):
    from kgsite.errors import Conflict, Forbidden

    alices = scaffold_of(upload(world.user, scaffold=ALICE_AGENT))
    bobs = scaffold_of(upload(world.other, scaffold=BOB_ONE_SHOT))
    with pytest.raises(Forbidden):
        services.review_scaffold(scaffold=alices, user=world.user)
    services.review_scaffold(scaffold=alices, user=world.staff)
    with pytest.raises(Conflict):
        services.review_scaffold(scaffold=bobs, user=world.staff)
    assert list(Scaffold.objects.filter(reviewed=True)) == [alices]


def test_the_admin_review_action_reports_a_clash(admin_client, world):
    alices = scaffold_of(upload(world.user, scaffold=ALICE_AGENT))
    bobs = scaffold_of(upload(world.other, scaffold=BOB_ONE_SHOT))
    url = "/admin/leaderboard/scaffold/"
    response = admin_client.post(
        url, {"action": "mark_reviewed", "_selected_action": [alices.pk, bobs.pk]}, follow=True
    )
    assert response.status_code == 200
    assert "already reviewed" in response.content.decode()
    assert Scaffold.objects.filter(reviewed=True).count() == 1


def test_models_are_shared_identities_an_upload_never_changes(world):
    model = {"provider": "Example AI", "name": "shared-model", "version": "1"}
    upload(world.user, scaffold=ALICE_AGENT, model=model)
    row = LLMModel.objects.get(name="shared-model")
    assert row.created_by == world.user and not row.reviewed
    LLMModel.objects.filter(pk=row.pk).update(price_input_per_mtok=3, url="https://example.org/m", reviewed=True)
    response = upload(world.other, scaffold=BOB_ONE_SHOT, model=model)
    assert Submission.objects.get(pk=response.json()["id"]).model_id == row.pk  # one row per model: comparable
    row.refresh_from_db()
    assert (row.created_by, float(row.price_input_per_mtok), row.url) == (world.user, 3.0, "https://example.org/m")


def test_names_with_invisible_characters_are_refused_in_the_admin_too(admin_client, world):
    response = admin_client.post(
        "/admin/leaderboard/scaffold/add/", {"name": "claude\u200bcode", "kind": "agent", "version": ""}
    )
    assert response.status_code == 200  # the form again, with the error
    assert "invisible characters" in response.content.decode()
    assert not Scaffold.objects.exists()


def test_an_upload_longer_than_the_model_columns_is_refused_not_a_server_error(world):
    response = upload(world.user, scaffold=ALICE_AGENT, model={"provider": "p" * 61, "name": "m"})
    assert response.status_code == 400
    assert response.json()["errors"] == [{"where": "metadata: provider", "message": "is longer than 60 characters"}]
