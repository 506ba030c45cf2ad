"""Writes of the runner fleet: tokens, signing keys, registration, state changes, heartbeats. Every
admin action on a runner is audited (RunnerAuditEvent).

A runner signs its air-gapped results files with an Ed25519 key pair (evaluator/harness/signing.py):
the private key stays with the runner, the site stores only the public key. enroll_runner makes the
pair at registration and hands the private key out once, like the token (or takes the public key of
a pair the runner made itself with `python -m evaluator bundle keygen`, and then no private key
ever passes through the site)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from evaluator.harness import signing
from evaluator.models import Chip, Runner, RunnerAuditEvent
from evaluator.services.dispatch import requeue_expired_leases
from evaluator.vocabulary import RunnerState
from kgsite.errors import Conflict, Invalid

TOKEN_PREFIX = "kgbr"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _new_token() -> tuple[str, str]:
    token_id = secrets.token_hex(4)
    while Runner.objects.filter(token_id=token_id).exists():
        token_id = secrets.token_hex(4)
    return token_id, f"{TOKEN_PREFIX}_{token_id}_{secrets.token_urlsafe(32)}"


def parse_token_id(token: str) -> str | None:
    """The public id of a well-formed token, else None (malformed tokens never reach the DB)."""
    parts = token.split("_", 2)
    if len(parts) != 3 or parts[0] != TOKEN_PREFIX or len(parts[1]) != 8 or len(parts[2]) < 32 or len(token) > 200:
        return None
    try:
        int(parts[1], 16)
    except ValueError:
        return None
    return parts[1]


def runner_for_token(token: str) -> Runner | None:
    """The runner whose current token this is (constant-time hash check), or None. Any state."""
    token_id = parse_token_id(token)
    if token_id is None:
        return None
    runner = Runner.objects.select_related("chip").filter(token_id=token_id).first()
    if runner is None or not hmac.compare_digest(runner.token_hash, hash_token(token)):
        return None
    return runner


def audit(runner: Runner, action: str, user: AbstractBaseUser | None, detail: str = "") -> None:
    RunnerAuditEvent.objects.create(runner=runner, action=action, user=user, detail=detail)


@transaction.atomic
def register_runner(*, chip: Chip, name: str, user: AbstractBaseUser | None) -> tuple[Runner, str]:
    """Create a runner for `chip`. Returns the runner and its token: shown once, stored hashed."""
    if Runner.objects.filter(chip=chip, name=name).exists():
        raise Conflict(f"a runner named {name!r} already exists for {chip.slug}", code="duplicate")
    token_id, token = _new_token()
    runner = Runner.objects.create(
        name=name, chip=chip, token_id=token_id, token_hash=hash_token(token), created_by=user
    )
    audit(runner, "register", user, f"chip={chip.slug}")
    return runner, token


@dataclass(frozen=True)
class RunnerCredentials:
    """What a registration hands out once: the token, and the private signing key when the site
    made the pair (None when the runner brought its own public key)."""

    runner: Runner
    token: str
    signing_key: str | None


def _store_public_key(runner: Runner, public_key: str) -> None:
    try:
        raw = signing.parse_public_key(public_key.strip())
    except signing.SigningError as error:
        raise Invalid(f"signing public key: {error}", code="bad_public_key") from None
    key_id = signing.key_id(raw)
    if Runner.objects.filter(signing_key_id=key_id).exclude(pk=runner.pk).exists():
        raise Conflict("this signing key is already another runner's", code="duplicate_key")
    runner.signing_public_key, runner.signing_key_id = signing.public_key_text(raw), key_id
    runner.save(update_fields=["signing_public_key", "signing_key_id"])


@transaction.atomic
def set_signing_key(*, runner: Runner, public_key: str, user: AbstractBaseUser | None) -> Runner:
    """Make `public_key` (`ed25519:<base64>`, from `python -m evaluator bundle keygen`) the runner's
    signing key; files signed with its previous key are refused from now on."""
    runner = Runner.objects.select_for_update().get(pk=runner.pk)
    old = runner.signing_key_id or "none"
    _store_public_key(runner, public_key)
    audit(runner, "set_signing_key", user, f"key {old} -> {runner.signing_key_id}")
    return runner


@transaction.atomic
def issue_signing_key(*, runner: Runner, user: AbstractBaseUser | None) -> str:
    """Make a new key pair for the runner: the site keeps the public key and returns the private
    key (PEM) to be shown once and never stored. The previous key stops verifying at once."""
    pem, public_key = signing.generate_key_pair()
    set_signing_key(runner=runner, public_key=public_key, user=user)
    return pem.decode("ascii")


@transaction.atomic
def enroll_runner(
    *, chip: Chip, name: str, user: AbstractBaseUser | None, signing_public_key: str | None = None
) -> RunnerCredentials:
    """Register a runner with its token and its signing key pair (made here unless the runner
    brought its public key). The token and the private key are returned once, stored never."""
    runner, token = register_runner(chip=chip, name=name, user=user)
    if signing_public_key:
        runner = set_signing_key(runner=runner, public_key=signing_public_key, user=user)
        return RunnerCredentials(runner=runner, token=token, signing_key=None)
    private_key = issue_signing_key(runner=runner, user=user)
    runner.refresh_from_db()
    return RunnerCredentials(runner=runner, token=token, signing_key=private_key)


@transaction.atomic
def rotate_token(*, runner: Runner, user: AbstractBaseUser | None) -> str:
    """Issue a new token; the old one stops working at once (new id and hash)."""
    runner = Runner.objects.select_for_update().get(pk=runner.pk)
    old_id = runner.token_id
    runner.token_id, token = _new_token()
    runner.token_hash = hash_token(token)
    runner.token_rotated_at = timezone.now()
    runner.save(update_fields=["token_id", "token_hash", "token_rotated_at"])
    audit(runner, "rotate_token", user, f"old token id {old_id}")
    return token


@transaction.atomic
def _set_runner_state(runner: Runner, state: str, user: AbstractBaseUser | None, action: str) -> Runner:
    runner = Runner.objects.select_for_update().get(pk=runner.pk)
    previous = runner.state
    runner.state = state
    runner.save(update_fields=["state"])
    audit(runner, action, user, f"{previous} -> {state}")
    return runner


def disable_runner(*, runner: Runner, user: AbstractBaseUser | None) -> Runner:
    """The token stops authenticating; jobs it holds are redelivered by the broker to other runners."""
    return _set_runner_state(runner, RunnerState.DISABLED, user, "disable")


def drain_runner(*, runner: Runner, user: AbstractBaseUser | None) -> Runner:
    """Finish the current job, claim no new ones (the agent shuts its workers down warm)."""
    return _set_runner_state(runner, RunnerState.DRAINING, user, "drain")


def activate_runner(*, runner: Runner, user: AbstractBaseUser | None) -> Runner:
    return _set_runner_state(runner, RunnerState.ACTIVE, user, "activate")


def audit_runner_edit(*, runner: Runner, user: AbstractBaseUser | None, changed: Iterable[str]) -> None:
    """An edit of a runner's plain fields in the admin (state and token change only through the
    functions above, which audit themselves)."""
    audit(runner, "edit", user, "changed " + ", ".join(sorted(changed)))


def record_heartbeat(*, runner: Runner, environment: dict) -> Runner:
    """Note the runner alive, and queue again the chip's jobs whose claim lease ran out: live
    runners' heartbeats are the clock that recovers a dead runner's jobs."""
    runner.last_heartbeat_at = timezone.now()
    runner.last_environment = environment
    Runner.objects.filter(pk=runner.pk).update(last_heartbeat_at=runner.last_heartbeat_at, last_environment=environment)
    requeue_expired_leases(chip=runner.chip)
    return runner
