"""The database mirror of the operator catalog (filled by `manage.py sync_operators`)."""

from __future__ import annotations

from django.db import models


class OperatorSource(models.TextChoices):
    ATEN = "aten", "PyTorch ATen"
    VLLM = "vllm13", "vLLM 0.13"
    CUBLAS = "cublas", "cuBLAS"


class Operator(models.Model):
    # "aten::add": the upstream KernelGenBench id is the primary key, so URLs and exports use it.
    id = models.CharField(primary_key=True, max_length=100)
    source = models.CharField(max_length=10, choices=OperatorSource.choices)
    name = models.CharField(max_length=90)
    category = models.CharField(max_length=30)
    mc = models.BooleanField("multi-chip set", default=False)
    provisional = models.TextField(blank=True, help_text="Why the reference is not yet verified (empty = verified).")
    description = models.TextField(blank=True)
    signature = models.TextField(blank=True)
    fidelity = models.TextField(blank=True)
    case_counts = models.JSONField(default=dict, help_text="Cases per tier, e.g. {'smoke': 3, 'full': 650}.")
    has_reference_solution = models.BooleanField(default=False)
    catalog_version = models.CharField(max_length=20)
    in_catalog = models.BooleanField(default=True, help_text="False once the operator left the code catalog.")
    synced_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["source", "name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(source__in=["aten", "vllm13", "cublas"]), name="operator_source_valid"
            ),
            models.UniqueConstraint(fields=["source", "name"], name="operator_unique_source_name"),
        ]
        indexes = [
            # leaderboard slicing by source and the MC view
            models.Index(fields=["source", "mc"], name="operator_source_mc_idx"),
        ]

    def __str__(self) -> str:
        return self.id
