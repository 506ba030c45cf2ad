"""The KernelGenBench client: from a model to a verified leaderboard row.

`kgb generate` runs the LLM-track protocol (prompt -> model -> kernel -> verify -> feedback -> next round)
against any OpenAI-compatible endpoint or Anthropic's Messages API and records, per attempt, the usage the
API returned, the transcript and the settings; `kgb submit` uploads a run; `kgb verify` checks one kernel
locally or in the site's test mode; `kgb mcp` serves the same as MCP tools for agents.

Runs on a researcher's machine without Django: it imports the operator catalog (`operators`) and, for
local verification, the harness (`evaluator.harness`), never a Django app. docs/client.md is the manual.
"""

from __future__ import annotations

__version__ = "0.1.0"
CLIENT_NAME = "kgb"
RUN_SCHEMA = "kgb-run/1"
