"""`manage.py seed_chips` says what it did: created, updated (only when a field changed) or unchanged."""

from __future__ import annotations

import copy
import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from evaluator.chips import CHIPS
from evaluator.management.commands import seed_chips as seed_chips_command
from evaluator.models import Chip

pytestmark = pytest.mark.django_db


def run_seed_chips() -> list[str]:
    out = io.StringIO()
    call_command("seed_chips", stdout=out)
    return out.getvalue().splitlines()


def test_a_second_run_reports_every_chip_unchanged_and_writes_nothing():
    assert run_seed_chips() == [f"chips: {len(CHIPS)} created, 0 updated, 0 unchanged"]
    with CaptureQueriesContext(connection) as queries:
        assert run_seed_chips() == [f"chips: 0 created, 0 updated, {len(CHIPS)} unchanged"]
    assert not [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("UPDATE", "INSERT"))]


def test_a_chip_changed_in_the_database_is_updated_back_and_named():
    run_seed_chips()
    Chip.objects.filter(slug="h100").update(peak_bandwidth_gbs=1.0)
    assert run_seed_chips() == [
        f"chips: 0 created, 1 updated, {len(CHIPS) - 1} unchanged",
        "  updated h100: peak_bandwidth_gbs",
    ]
    assert Chip.objects.get(slug="h100").peak_bandwidth_gbs == 3350.0
    assert run_seed_chips() == [f"chips: 0 created, 0 updated, {len(CHIPS)} unchanged"]


def test_a_changed_registry_row_updates_only_its_changed_fields(monkeypatch):
    run_seed_chips()
    rows = copy.deepcopy(CHIPS)
    h200 = next(row for row in rows if row["slug"] == "h200")
    h200["measured"]["sm_count"] = 144
    monkeypatch.setattr(seed_chips_command, "CHIPS", rows)
    assert run_seed_chips() == [
        f"chips: 0 created, 1 updated, {len(CHIPS) - 1} unchanged",
        "  updated h200: measured",
    ]
    assert Chip.objects.get(slug="h200").measured["sm_count"] == 144
