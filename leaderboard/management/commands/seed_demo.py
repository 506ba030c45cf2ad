"""Load a small, clearly-labelled demo dataset so a newcomer sees a populated site (idempotent).

Every submission it creates has is_demo=True and "[demo]" in its name; the site shows a "demo" badge on
them. The numbers are synthetic (seeded random), not measurements.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from evaluator.models import Chip, Evaluation, EvaluationJob
from evaluator.vocabulary import JobState
from leaderboard.models import Attempt, LLMModel, Scaffold, Submission
from leaderboard.services import import_reported_dir, refresh_leaderboard_entries, sync_submission_status
from leaderboard.vocabulary import ScaffoldKind, Track
from operators.models import Operator

DEMO_NAMESPACE = uuid.UUID("6f1c5c1e-2b7a-4d0e-9a57-6b0f3c1d2e4f")
DEMO_ATEN = [
    "add",
    "mul",
    "sub",
    "div",
    "neg",
    "cos",
    "sin",
    "rsqrt",
    "silu",
    "softmax",
    "mean",
    "sum",
    "cumsum",
    "mm",
    "bmm",
    "matmul",
    "gather",
    "index_select",
    "embedding",
    "cat",
    "stack",
    "sort",
    "argmax",
    "pow",
    "eq",
    "gt",
    "mish",
    "erfc",
    "huber_loss",
]
DEMO_VLLM = [
    "rms_norm",
    "fused_add_rms_norm",
    "silu_and_mul",
    "rotary_embedding",
    "topk_softmax",
    "moe_sum",
    "reshape_and_cache",
    "paged_attention_v1",
]
DEMO_CUBLAS = [
    "cublasSaxpy_v2",
    "cublasSdot_v2",
    "cublasSscal_v2",
    "cublasDasum_v2",
    "cublasSgemm_v2",
    "cublasDgemv_v2",
    "cublasZswap_v2",
    "cublasCcopy_v2",
]
MODELS = [
    # provider, name, version, $ per Mtok input, output, cached input (list prices, for the cost columns)
    ("Anthropic", "Claude Opus", "4.6", 5.0, 25.0, 0.5),
    ("Zhipu AI", "GLM", "5.0", 1.0, 3.2, 0.2),
    ("Alibaba", "Qwen3.5", "27B", 0.3, 1.2, None),
    ("MiniMax", "MiniMax", "M2.5", 0.3, 1.2, 0.03),
]
SCAFFOLDS = [
    ("Pass@k sampler", ScaffoldKind.PASS_AT_K, "1", Track.LLM),
    ("Claude Code", ScaffoldKind.AGENT, "2.1", Track.AGENT),
    ("OpenCode", ScaffoldKind.AGENT, "1.0", Track.AGENT),
    ("AutoKernel", ScaffoldKind.AGENT, "0.3", Track.AGENT),
]
# chip slug -> how much harder the chip is for generated kernels (a demo "portability gap")
CHIP_DIFFICULTY = {
    "h200": 0.0,
    "a100": 0.02,
    "mi300x": 0.10,
    "ascend-910b": 0.22,
    "iluvatar-bi-v150": 0.30,
    "cpu": 0.05,
}
VERDICT_REASONS = {
    "incorrect": "case 3 of 12: max abs error 0.031 > atol 1e-05 (float32, shape (1024, 4096))",
    "compile_error": "triton.compiler.errors.CompilationError: at 14:8: unsupported tensor index",
    "runtime_error": "RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered",
    "timeout": "exceeded the 300 s per-candidate limit",
    "missing_entrypoint": "no function named add_Tensor in the file",
    "cheat_detected": "output unchanged with Triton disabled (ghost replay): the result is computed by torch",
}
KERNEL_TEMPLATE = """import torch
import triton
import triton.language as tl


@triton.jit
def _{name}_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    # [demo] a synthetic solution file: one block of BLOCK elements per program
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x, mask=mask)


def {name}(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, 1024),)
    _{name}_kernel[grid](x, out, n, BLOCK=1024)
    return out
"""


def _demo_operators() -> list[Operator]:
    """The operators the demo uses: from the catalog when it has them, else created with upstream ids."""
    wanted = (
        [("aten", n) for n in DEMO_ATEN] + [("vllm13", n) for n in DEMO_VLLM] + [("cublas", n) for n in DEMO_CUBLAS]
    )
    operators = []
    for source, name in wanted:
        op_id = f"{source}::{name}"
        operator, _ = Operator.objects.get_or_create(
            id=op_id,
            defaults={
                "source": source,
                "name": name,
                "mc": source == "aten",
                "catalog_version": "demo",
                "category": {"aten": "tensor", "vllm13": "inference", "cublas": "blas"}[source],
                "description": "Created by seed_demo because the catalog does not define this operator yet.",
                "case_counts": {"smoke": 2, "full": 12, "edge": 4, "perf": 3},
            },
        )
        operators.append(operator)
    return operators


def _chips() -> list[Chip]:
    try:
        call_command("seed_chips", verbosity=0)
    except Exception:  # the chip registry is optional for the demo: fall back to two chips
        Chip.objects.get_or_create(
            slug="h200",
            defaults={
                "name": "NVIDIA H200 SXM",
                "vendor": "NVIDIA",
                "family": "nvidia",
                "device_type": "cuda",
                "triton_backend": "nvidia",
            },
        )
        Chip.objects.get_or_create(
            slug="cpu",
            defaults={
                "name": "CPU (Triton interpreter)",
                "vendor": "any",
                "family": "cpu",
                "device_type": "cpu",
                "triton_backend": "interpreter",
                "timing_meaningful": False,
            },
        )
    return list(Chip.objects.filter(slug__in=list(CHIP_DIFFICULTY)))


class Command(BaseCommand):
    help = "Load the clearly-labelled demo dataset (idempotent: existing demo submissions are kept as they are)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--reset", action="store_true", help="Delete every demo submission first, then reload.")

    def handle(self, *args, reset: bool = False, **options) -> None:
        try:
            call_command("sync_operators", verbosity=0)
        except Exception as exc:  # a catalog still under construction must not block the demo
            self.stderr.write(f"sync_operators failed ({exc}); creating the demo's operators directly")
        chips = _chips()
        operators = _demo_operators()
        with transaction.atomic():
            if reset:
                Submission.objects.filter(is_demo=True).delete()
            created = self._load(chips, operators)
        self._import_reported()
        self.stdout.write(
            f"demo data: {created} submissions created "
            f"({Submission.objects.filter(is_demo=True).count()} demo submissions in total)"
        )

    def _import_reported(self) -> None:
        from django.conf import settings

        for candidate in (settings.BASE_DIR / "leaderboard" / "data", settings.BASE_DIR.parent / "shared" / "data"):
            if (candidate / "kgb_paper_results.csv").exists():
                report = import_reported_dir(path=candidate)
                self.stdout.write(f"reported results: {report.created} created, {report.updated} updated")
                return

    def _load(self, chips: list[Chip], operators: list[Operator]) -> int:
        user, _ = get_user_model().objects.get_or_create(username="demo", defaults={"email": "demo@example.org"})
        if user.has_usable_password():
            user.set_unusable_password()
            user.save(update_fields=["password"])
        models = []
        for provider, name, version, p_in, p_out, p_cached in MODELS:
            model, _ = LLMModel.objects.get_or_create(
                provider=provider,
                name=name,
                version=version,
                defaults={
                    "price_input_per_mtok": p_in,
                    "price_output_per_mtok": p_out,
                    "price_cached_input_per_mtok": p_cached,
                    "reviewed": True,
                },
            )
            models.append(model)
        scaffolds = []
        for name, kind, version, track in SCAFFOLDS:
            # the site's own demo scaffolds: reviewed, so uploads naming them are filed under them
            scaffold, _ = Scaffold.objects.get_or_create(
                name=name, version=version, reviewed=True, defaults={"kind": kind}
            )
            scaffolds.append((scaffold, track))
        created = 0
        rng = random.Random(20261129)
        for model_index, model in enumerate(models):
            for scaffold, track in scaffolds:
                # per-sample success: one LLM sample is much weaker than an agent's iterated attempt (pass@5 then catches up)
                skill = 0.85 - 0.17 * model_index - (0.45 if track == Track.LLM else 0.0) + rng.uniform(-0.05, 0.05)
                for chip in chips:
                    if chip.slug != "h200" and (model_index > 2 or scaffold.name == "OpenCode"):
                        continue  # not every method is run on every chip, as in the paper
                    name = f"[demo] {scaffold.name} · {model.name} {model.version} · {chip.slug}"
                    samples = 5 if track == Track.LLM else 1
                    created += self._submission(
                        rng, user, model, scaffold, track, chip, operators, name, skill, samples
                    )
        # one small run (preliminary) and one still evaluating (live progress on its page)
        cpu = next((c for c in chips if c.slug == "cpu"), chips[0])
        created += self._submission(
            rng,
            user,
            models[0],
            scaffolds[1][0],
            Track.AGENT,
            cpu,
            operators[:6],
            "[demo] Claude Code · quick smoke run",
            0.9,
            1,
        )
        created += self._submission(
            rng,
            user,
            models[1],
            scaffolds[2][0],
            Track.AGENT,
            cpu,
            operators[:24],
            "[demo] OpenCode · evaluating now",
            0.6,
            1,
            finished_share=0.5,
        )
        return created

    def _submission(
        self, rng, user, model, scaffold, track, chip, operators, name, skill, samples, finished_share: float = 1.0
    ) -> int:
        pk = uuid.uuid5(DEMO_NAMESPACE, name)
        if Submission.objects.filter(pk=pk).exists():
            return 0
        submission = Submission.objects.create(
            id=pk,
            name=name,
            model=model,
            scaffold=scaffold,
            track=track,
            uploader=user,
            target_chip=chip,
            metadata={"demo": True, "note": "synthetic data from manage.py seed_demo"},
            is_public=True,
            is_demo=True,
            held_out=chip.slug == "h200" and scaffold.name == "Claude Code",
        )
        difficulty = CHIP_DIFFICULTY.get(chip.slug, 0.1)
        tier = "smoke" if chip.device_type == "cpu" else "full"
        attempts = []
        for operator in operators:
            for sample in range(samples):
                source = KERNEL_TEMPLATE.format(name=operator.name.strip("_") or "op")
                agentic = track == Track.AGENT
                prompt_tokens = int(rng.lognormvariate(13.2 if agentic else 8.3, 0.5))
                attempts.append(
                    Attempt(
                        submission=submission,
                        operator=operator,
                        sample_index=sample,
                        file_name=f"{operator.source}__{operator.name}" + (f".{sample}" if sample else "") + ".py",
                        source=source,
                        source_sha256=hashlib.sha256(source.encode()).hexdigest(),
                        prompt_tokens=prompt_tokens,
                        completion_tokens=int(prompt_tokens * rng.uniform(0.03, 0.12)),
                        cached_tokens=int(prompt_tokens * rng.uniform(0.5, 0.85)) if agentic else 0,
                        turns=rng.randint(8, 60) if agentic else 1,
                        wall_time_s=rng.uniform(120, 1800) if agentic else rng.uniform(10, 60),
                        transcript=(
                            "[demo transcript]\nuser: write a Triton kernel for "
                            f"{operator.id}\nassistant: (tool calls elided)\n"
                        )
                        if agentic
                        else "",
                    )
                )
        Attempt.objects.bulk_create(attempts)
        now = timezone.now()
        jobs, evaluations = [], []
        for index, attempt in enumerate(attempts):
            finished = index < len(attempts) * finished_share
            job = EvaluationJob(
                attempt=attempt,
                chip=chip,
                tier=tier,
                state=JobState.DONE if finished else JobState.QUEUED,
                queued_at=now - timedelta(minutes=30),
                finished_at=now if finished else None,
                secret_seed=rng.getrandbits(62) if submission.held_out else None,
                owner=user,
            )
            jobs.append(job)
            if finished:
                evaluations.append(
                    self._evaluation(rng, job, attempt, chip, tier, skill - difficulty, submission.held_out)
                )
        EvaluationJob.objects.bulk_create(jobs)
        Evaluation.objects.bulk_create(evaluations)
        sync_submission_status(submission_id=submission.pk)  # complete, or evaluating while jobs are queued
        refresh_leaderboard_entries(submission_id=submission.pk)
        return 1

    def _evaluation(self, rng, job, attempt, chip, tier, skill, held_out) -> Evaluation:
        source_penalty = {"aten": 0.0, "vllm13": 0.25, "cublas": 0.12}[attempt.operator.source]
        roll = rng.random()
        if roll < skill - source_penalty:
            verdict = "correct"
        else:
            verdict = rng.choices(list(VERDICT_REASONS), weights=[6, 3, 2, 1, 1, 1])[0]
        cases_total = 2 if tier == "smoke" else 12
        cases_passed = (
            cases_total if verdict == "correct" else (rng.randint(0, cases_total - 1) if verdict == "incorrect" else 0)
        )
        timed = verdict == "correct" and chip.timing_meaningful
        speedup = round(rng.lognormvariate(-0.15 + 0.2 * skill, 0.45), 3) if timed else None
        cases = [
            {
                "case": i,
                "passed": i < cases_passed,
                "shape": [2 ** (8 + i % 5), 128],
                "dtype": ["float32", "bfloat16", "float16"][i % 3],
                "max_abs_err": 0.0 if i < cases_passed else 0.031,
                "speedup": round(speedup * rng.uniform(0.8, 1.2), 3) if speedup else None,
            }
            for i in range(cases_total)
        ]
        return Evaluation(
            job=job,
            attempt=attempt,
            chip=chip,
            tier=tier,
            held_out=held_out,
            verdict=verdict,
            reason="" if verdict == "correct" else VERDICT_REASONS[verdict],
            cases=cases,
            cases_total=cases_total,
            cases_passed=cases_passed,
            timing={"median_us": round(rng.uniform(4, 400), 2), "baseline_median_us": None, "samples": 100}
            if timed
            else None,
            speedup=speedup,
            sol_pct=round(min(95.0, rng.uniform(5, 70) * (speedup or 1)), 1) if timed else None,
            findings=[{"layer": "ghost_replay", "detail": VERDICT_REASONS["cheat_detected"]}]
            if verdict == "cheat_detected"
            else [],
            environment={
                "demo": True,
                "chip": chip.slug,
                "torch": "2.13.0",
                "triton": "3.9.0",
                "harness_version": "demo",
            },
            harness_version="demo",
            duration_s=round(rng.uniform(2, 40), 1),
            stderr_tail="" if verdict in ("correct", "incorrect") else VERDICT_REASONS[verdict],
        )
