"""The leaderboard's words: tracks, scaffold kinds, submission statuses, operator sets, counted tiers.

Each word is defined here once; the models take their choices and check constraints from these
classes and the upload validator (`leaderboard.upload`) its allowed values. Pure Python (no Django).
The evaluator's words (tiers, verdicts, job states) are in `evaluator.vocabulary`.
"""

from __future__ import annotations

from evaluator.vocabulary import Tier, Words


class Track(Words):
    LLM = "llm"
    AGENT = "agent"
    REFERENCE = "reference"
    labels = {LLM: "LLM (pass@k)", REFERENCE: "reference Triton"}


class ScaffoldKind(Words):
    ONE_SHOT = "one_shot"
    PASS_AT_K = "pass_at_k"
    AGENT = "agent"
    labels = {ONE_SHOT: "one-shot LLM", PASS_AT_K: "LLM pass@k"}


class TokenSource(Words):
    """Where a submission's token counts come from (the client's `notes.kgb.tokens`, else self-reported)."""

    METERED = "metered"  # the usage blocks the model's API returned, recorded per request by the kgb client
    AGENT_LOG = "agent-log"  # counted from the agent's own logs (kgb import agent)
    NOT_RECORDED = "not recorded"  # the run kept no usage (kgb import upstream)
    SELF_REPORTED = "self-reported"  # figures the uploader wrote into metadata.json
    labels = {
        METERED: "metered by the kgb client from the API's usage blocks",
        AGENT_LOG: "counted from the agent's logs",
        NOT_RECORDED: "not recorded",
        SELF_REPORTED: "self-reported by the uploader",
    }


class SubmissionStatus(Words):
    """Written only by `leaderboard.services.sync_submission_status` (and `withdraw_submission`)."""

    RECEIVED = "received"
    EVALUATING = "evaluating"
    COMPLETE = "complete"
    FAILED = "failed"
    WITHDRAWN = "withdrawn"


# still moving: the progress bar polls, the status may still change with the jobs
OPEN_SUBMISSION_STATUSES = (SubmissionStatus.RECEIVED, SubmissionStatus.EVALUATING)


class OperatorSet(Words):
    """The sets a leaderboard row sums over: every operator, each source (`operators.spec.SOURCES`)
    and the multi-chip set."""

    ALL = "all"
    ATEN = "aten"
    VLLM = "vllm13"
    CUBLAS = "cublas"
    MC = "mc"
    labels = {ALL: "all sources", ATEN: "ATen", VLLM: "vLLM", CUBLAS: "cuBLAS", MC: "multi-chip set"}


SOURCE_SETS = (OperatorSet.ATEN, OperatorSet.VLLM, OperatorSet.CUBLAS)

# the tiers whose verdicts count on the leaderboard, by precedence: a sample's `full` verdict (the
# upstream coverage) wins over its `smoke` one
COUNTED_TIERS = {Tier.FULL: 2, Tier.SMOKE: 1}

# What a leaderboard row is comparable on (leaderboard.selectors.Cohort): its chip, the tier its verdicts come from
# (LeaderboardEntry.tier), the timing protocol its speedups were measured under (LeaderboardEntry.timing_protocol)
# and the prompt set its kernels were generated from. A row whose operators' verdicts come from several tiers, or
# whose speedups from several protocols, is MIXED: shown, never ranked.
MIXED = "mixed"
# the timing protocol of a row on a chip whose timings mean nothing (the CPU interpreter): correctness only
UNTIMED = "untimed"
# Submissions do not record a prompt set yet: the catalog has exactly one (operators/prompts.py, which the kgb
# client calls prompt set "kgb/1", kgb.prompting.DEFAULT_PROMPT_SET), so every row has this one.
CATALOG_PROMPT_SET = "kgb/1"
