"""`sync_operators` mirrors the code catalog into the database, idempotently."""

from __future__ import annotations

import dataclasses

import pytest
from django.core.management import call_command

from operators import registry
from operators.models import Operator
from operators.services import sync_operators

pytestmark = pytest.mark.django_db


def test_sync_creates_then_leaves_unchanged() -> None:
    specs = registry.all_specs()
    first = sync_operators()
    assert first.created == len(specs)
    assert Operator.objects.count() == len(specs)
    second = sync_operators()
    assert (second.created, second.updated, second.unchanged) == (0, 0, len(specs))


def test_sync_mirrors_fields_and_case_counts() -> None:
    specs = registry.all_specs()
    if not specs:
        pytest.skip("catalog is empty")
    sync_operators()
    spec = specs[0]
    row = Operator.objects.get(id=spec.id)
    assert (row.source, row.name, row.category, row.mc) == (spec.source, spec.name, spec.category, spec.mc)
    assert row.case_counts["smoke"] == len(spec.tier("smoke"))
    assert row.has_reference_solution == (registry.reference_solution_path(spec) is not None)


def test_sync_updates_changed_spec_and_retires_removed_ones() -> None:
    specs = registry.all_specs()
    if len(specs) < 2:
        pytest.skip("needs two operators in the catalog")
    sync_operators()
    changed = dataclasses.replace(specs[0], description="a new description")
    report = sync_operators(specs=[changed])
    assert report.updated == 1
    assert report.retired == len(specs) - 1
    assert Operator.objects.get(id=changed.id).description == "a new description"
    assert not Operator.objects.get(id=specs[1].id).in_catalog


def test_command_reports_counts(capsys) -> None:
    call_command("sync_operators")
    assert "created" in capsys.readouterr().out
