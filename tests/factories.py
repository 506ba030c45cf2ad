"""factory_boy factories for every model (shared by all test areas; add, don't change)."""

from __future__ import annotations

import hashlib

import factory
from django.contrib.auth import get_user_model

from evaluator.models import Chip, Evaluation, EvaluationJob, JobState, Runner
from leaderboard.models import Attempt, LLMModel, Scaffold, ScaffoldKind, Submission, Track
from operators.models import Operator


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    password = factory.django.Password("correct horse battery staple")


class OperatorFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Operator
        django_get_or_create = ("id",)

    source = "aten"
    name = factory.Sequence(lambda n: f"op{n}")
    id = factory.LazyAttribute(lambda o: f"{o.source}::{o.name}")
    category = "elementwise"
    mc = factory.LazyAttribute(lambda o: o.source == "aten")
    catalog_version = "test"
    case_counts = factory.LazyFunction(lambda: {"smoke": 2, "full": 10, "edge": 3, "perf": 2})


class ChipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Chip
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"chip{n}")
    name = factory.LazyAttribute(lambda c: c.slug.upper())
    vendor = "NVIDIA"
    family = "nvidia"
    device_type = "cuda"
    triton_backend = "nvidia"
    l2_bytes = 50 * 1024 * 1024
    peak_bandwidth_gbs = 3350.0
    peak_tflops = factory.LazyFunction(lambda: {"bfloat16": 989.0, "float32": 67.0})


class RunnerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Runner

    name = factory.Sequence(lambda n: f"runner{n}")
    chip = factory.SubFactory(ChipFactory)
    token_id = factory.Sequence(lambda n: f"{n:08x}")
    token_hash = factory.LazyAttribute(lambda r: hashlib.sha256(f"kgbr_{r.token_id}_secret".encode()).hexdigest())


class LLMModelFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = LLMModel

    provider = "Example AI"
    name = factory.Sequence(lambda n: f"model-{n}")
    version = "1"
    price_input_per_mtok = 3
    price_output_per_mtok = 15


class ScaffoldFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Scaffold

    name = factory.Sequence(lambda n: f"scaffold-{n}")
    kind = ScaffoldKind.AGENT
    version = "1"


class SubmissionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Submission

    name = factory.Sequence(lambda n: f"submission {n}")
    model = factory.SubFactory(LLMModelFactory)
    scaffold = factory.SubFactory(ScaffoldFactory)
    track = Track.AGENT
    uploader = factory.SubFactory(UserFactory)
    target_chip = factory.SubFactory(ChipFactory)


class AttemptFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Attempt

    submission = factory.SubFactory(SubmissionFactory)
    operator = factory.SubFactory(OperatorFactory)
    sample_index = 0
    file_name = factory.LazyAttribute(lambda a: a.operator.id.replace("::", "__") + ".py")
    source = "import triton\n"
    source_sha256 = factory.LazyAttribute(lambda a: hashlib.sha256(a.source.encode()).hexdigest())
    prompt_tokens = 1000
    completion_tokens = 500


class EvaluationJobFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = EvaluationJob

    attempt = factory.SubFactory(AttemptFactory)
    chip = factory.LazyAttribute(lambda j: j.attempt.submission.target_chip)
    tier = "full"
    state = JobState.QUEUED


class EvaluationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Evaluation

    job = factory.SubFactory(EvaluationJobFactory, state=JobState.DONE)
    attempt = factory.LazyAttribute(lambda e: e.job.attempt)
    chip = factory.LazyAttribute(lambda e: e.job.chip)
    tier = factory.LazyAttribute(lambda e: e.job.tier)
    verdict = "correct"
    cases_total = 4
    cases_passed = 4
    speedup = 1.0
