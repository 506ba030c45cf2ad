"""One vocabulary: each word set is defined once, the sets that live elsewhere agree with it, and the
models' choices and check constraints are taken from it."""

from __future__ import annotations

import os

import pytest
from django.db.models import CheckConstraint

from evaluator import vocabulary
from evaluator.harness import VERDICTS
from evaluator.harness.backends import DEFAULT_TIMING_PROTOCOL
from evaluator.models import Chip, Evaluation, EvaluationJob, Runner
from leaderboard import vocabulary as board_words
from leaderboard.models import LeaderboardEntry, Scaffold, Submission
from operators.spec import SOURCES, TIERS


def test_the_tiers_are_the_catalogs_and_the_verdicts_the_harnesss():
    assert vocabulary.Tier.values == TIERS
    assert set(vocabulary.Verdict.values) == set(VERDICTS)
    assert vocabulary.COMPILED_VERDICTS < set(vocabulary.Verdict.values)
    assert set(vocabulary.VERDICT_RANK) == set(vocabulary.Verdict.values)
    assert set(board_words.SOURCE_SETS) == set(SOURCES)
    assert set(board_words.COUNTED_TIERS) <= set(TIERS)


def test_a_word_set_that_disagrees_with_its_source_does_not_load():
    with pytest.raises(TypeError, match="differs from its source"):

        class Broken(vocabulary.Words, source=("a", "b")):
            A = "a"


def test_words_give_values_labels_and_choices():
    assert vocabulary.Verdict.CORRECT == "correct" and isinstance(vocabulary.Verdict.CORRECT, str)
    assert dict(vocabulary.Verdict.choices)["compile_error"] == "compile error"
    assert dict(vocabulary.JobState.choices)["queued"] == "queued"  # no label given: the value


def _constraint(model, name: str):
    return next(c for c in model._meta.constraints if c.name == name)


@pytest.mark.parametrize(
    ("model", "field", "constraint", "words"),
    [
        (Chip, "device_type", "chip_device_type_valid", vocabulary.DeviceType),
        (Runner, "state", "runner_state_valid", vocabulary.RunnerState),
        (EvaluationJob, "state", "job_state_valid", vocabulary.JobState),
        (EvaluationJob, "tier", "job_tier_valid", vocabulary.Tier),
        (Evaluation, "verdict", "evaluation_verdict_valid", vocabulary.Verdict),
        (Submission, "track", "submission_track_valid", board_words.Track),
        (Submission, "status", "submission_status_valid", board_words.SubmissionStatus),
        (Scaffold, "kind", "scaffold_kind_valid", board_words.ScaffoldKind),
        (LeaderboardEntry, "operator_set", "entry_operator_set_valid", board_words.OperatorSet),
    ],
)
def test_models_take_choices_and_constraints_from_the_vocabulary(model, field, constraint, words):
    assert [value for value, _ in model._meta.get_field(field).choices] == list(words.values)
    check = _constraint(model, constraint)
    assert isinstance(check, CheckConstraint)
    assert check.condition.children == [(f"{field}__in", words.values)]


@pytest.mark.skipif("KGB_RANKED_TIMING_PROTOCOL" in os.environ, reason="the environment sets the protocol")
def test_the_ranked_protocol_default_is_the_harnesss_default():
    # settings import no app code, so they spell the default out; it must stay the harness's
    from kgsite import settings as site_settings

    assert site_settings.KGB_RANKED_TIMING_PROTOCOL == DEFAULT_TIMING_PROTOCOL
