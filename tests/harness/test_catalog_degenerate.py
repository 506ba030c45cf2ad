"""Negative controls over the real catalog: zeros, empty, constant and input-copy solutions (with
every entrypoint defined) must never be ranked correct on the smoke tier, unless the spec's
constant_output_ok explains why such an output is right. By default a deterministic sample of
KGB_DEGENERATE_SAMPLE operators (4) runs, four attempts each through one warm pool; `-m slow`
sweeps the whole catalog."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from evaluator.harness.bundle import run_bundle
from evaluator.harness.harness import HarnessConfig
from operators import registry
from tests.harness.degenerate import BODIES, degenerate_source

SAMPLE = int(os.environ.get("KGB_DEGENERATE_SAMPLE", "4"))


def _sample(specs: list) -> list:
    ranked = sorted(specs, key=lambda s: hashlib.sha256(s.id.encode()).hexdigest())
    return ranked[:SAMPLE]


def _sweep(specs: list) -> list[str]:
    jobs = []
    for spec in specs:
        for kind in BODIES:
            source = degenerate_source(spec, kind)
            jobs.append(
                {
                    "job_id": f"{spec.id}|{kind}",
                    "operator": spec.id,
                    "tier": "smoke",
                    "seed": 7,
                    "secret_seed": False,
                    "timeout_s": 120,
                    "solution": {
                        "file_name": spec.file_name,
                        "source": source,
                        "sha256": hashlib.sha256(source.encode()).hexdigest(),
                    },
                }
            )
    results = run_bundle(
        {"schema": "kgb.jobs/1", "chip": "cpu", "jobs": jobs}, config=HarnessConfig(device="cpu"), workers=2
    )
    json.dumps(results)  # every result, params included, is plain JSON
    by_id = {s.id: s for s in specs}
    wrong = []
    for item in results["results"]:
        operator, kind = item["job_id"].split("|")
        if item["result"]["verdict"] == "correct" and not by_id[operator].constant_output_ok:
            wrong.append(f"{operator} accepts the {kind} solution")
    return wrong


def test_degenerate_solutions_fail_on_a_catalog_sample():
    specs = registry.all_specs()
    if not specs:
        pytest.skip("the catalog is empty")
    assert _sweep(_sample(specs)) == []


@pytest.mark.slow
def test_degenerate_solutions_fail_on_the_whole_catalog():
    assert _sweep(registry.all_specs()) == []
