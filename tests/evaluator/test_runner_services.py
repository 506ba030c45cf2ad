import re

import pytest

from evaluator import services
from evaluator.models import Runner, RunnerAuditEvent, RunnerState
from kgsite.errors import ApplicationError


def test_register_issues_a_token_shown_once_and_stores_only_its_hash(chip, staff):
    runner, token = services.register_runner(chip=chip, name="box", user=staff)
    assert re.fullmatch(r"kgbr_[0-9a-f]{8}_[A-Za-z0-9_-]{32,}", token)
    stored = Runner.objects.get(pk=runner.pk)
    assert stored.token_id == token.split("_")[1]
    assert stored.token_hash == services.hash_token(token)
    assert token not in str(stored.__dict__)
    assert services.runner_for_token(token) == runner
    event = RunnerAuditEvent.objects.get(runner=runner)
    assert (event.action, event.user) == ("register", staff)


def test_register_refuses_a_duplicate_name_per_chip(runner_and_token, chip, staff):
    with pytest.raises(ApplicationError, match="already exists"):
        services.register_runner(chip=chip, name="gpu-box-1", user=staff)


def test_rotation_invalidates_the_old_token(runner_and_token, staff):
    runner, old = runner_and_token
    new = services.rotate_token(runner=runner, user=staff)
    assert services.runner_for_token(old) is None
    assert services.runner_for_token(new) == runner
    assert RunnerAuditEvent.objects.filter(runner=runner, action="rotate_token", user=staff).exists()


@pytest.mark.parametrize(
    "token", ["", "kgbr_zz_" + "a" * 40, "kgbr_0000000g_" + "a" * 40, "x" * 500, "kgbr_12345678_short"]
)
def test_malformed_tokens_are_not_looked_up(db, token):
    assert services.parse_token_id(token) is None
    assert services.runner_for_token(token) is None


def test_a_forged_secret_with_a_real_id_is_refused(runner_and_token):
    runner, token = runner_and_token
    assert services.runner_for_token(f"kgbr_{runner.token_id}_{'A' * 43}") is None


@pytest.mark.parametrize(
    ("change", "state", "action"),
    [
        (services.disable_runner, RunnerState.DISABLED, "disable"),
        (services.drain_runner, RunnerState.DRAINING, "drain"),
        (services.activate_runner, RunnerState.ACTIVE, "activate"),
    ],
)
def test_state_changes_are_audited_with_who(runner_and_token, staff, change, state, action):
    runner, _ = runner_and_token
    change(runner=runner, user=staff)
    runner.refresh_from_db()
    assert runner.state == state
    event = RunnerAuditEvent.objects.filter(runner=runner, action=action).get()
    assert event.user == staff and event.at is not None
