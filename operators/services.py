"""Writes for the operator catalog's database mirror."""

from __future__ import annotations

import dataclasses

from django.db import transaction

from operators import registry
from operators.models import Operator
from operators.spec import TIERS, OperatorSpec


@dataclasses.dataclass(frozen=True)
class SyncReport:
    created: int
    updated: int
    unchanged: int
    retired: int


def _fields(spec: OperatorSpec) -> dict:
    return {
        "source": spec.source,
        "name": spec.name,
        "category": spec.category,
        "mc": spec.mc,
        "provisional": spec.provisional,
        "description": spec.description,
        "signature": spec.signature,
        "fidelity": spec.fidelity,
        "case_counts": {tier: len(spec.tier(tier)) for tier in TIERS},
        "has_reference_solution": registry.reference_solution_path(spec) is not None,
        "catalog_version": registry.CATALOG_VERSION,
        "in_catalog": True,
    }


@transaction.atomic
def sync_operators(*, specs: list[OperatorSpec] | None = None) -> SyncReport:
    """Mirror the code catalog into the Operator table. Idempotent: rows whose fields already match
    are left untouched; operators that left the catalog are kept (attempts reference them) but
    marked `in_catalog=False`."""
    specs = registry.all_specs() if specs is None else specs
    existing = {op.id: op for op in Operator.objects.select_for_update()}
    created = updated = unchanged = 0
    for spec in specs:
        fields = _fields(spec)
        row = existing.pop(spec.id, None)
        if row is None:
            Operator.objects.create(id=spec.id, **fields)
            created += 1
        elif any(getattr(row, k) != v for k, v in fields.items()):
            for key, value in fields.items():
                setattr(row, key, value)
            row.save()
            updated += 1
        else:
            unchanged += 1
    retired = Operator.objects.filter(id__in=[op_id for op_id, op in existing.items() if op.in_catalog]).update(
        in_catalog=False
    )
    return SyncReport(created=created, updated=updated, unchanged=unchanged, retired=retired)
