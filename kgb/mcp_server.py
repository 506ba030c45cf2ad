"""`kgb mcp`: the platform as an MCP server (the official `mcp` SDK), so Claude Code, OpenCode or any MCP client
can use it as the verifier, including on chips the agent's machine does not have.

Tools:
- `list_operators(source, mc_only)`: the catalog (id, source, category, tiers' case counts).
- `get_prompt(operator, chip_family)`: the task text the LLM track sends for that operator.
- `verify_kernel(operator, source | path, mode, chip, tier)`: one unranked check. `mode="local"` runs this
  machine's harness (cpu: the Triton interpreter); `mode="remote"` asks the site's test mode on `chip`
  (public cases, a public seed unlike the ranked one, never the hidden cases; rate-limited). Returns the
  verdict, the reason, the per-case results, the anti-cheat findings and the feedback text. Every call is
  counted, and with `--log FILE` appended there, so the number of checks an agent needed is on record.
- `submit(directory, chip, ...)`: upload a kgb run directory or a directory of solution files.

Transports: stdio (`kgb mcp`, what Claude Code's `claude mcp add kgb -- kgb mcp` starts) and streamable
HTTP (`kgb mcp --transport streamable-http --port 8765`, endpoint /mcp).
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from kgb.errors import KgbError


def list_operators_data(source: str | None = None, mc_only: bool = False) -> list[dict[str, Any]]:
    from operators import registry

    try:
        specs = registry.all_specs(source, mc_only=mc_only)
    except ValueError as exc:
        raise KgbError(str(exc)) from None
    return [
        {
            "id": s.id,
            "source": s.source,
            "category": s.category,
            "mc": s.mc,
            "file_name": s.file_name,
            "entrypoints": list(s.entrypoints),
            "tiers": {t: len(s.tier(t)) for t in ("smoke", "full")},
        }
        for s in specs
    ]


class Tools:
    """The tools' behaviour, separate from the MCP wiring so it is plain to test and reuse."""

    def __init__(self, *, site: str | None, token: str | None, device: str = "cpu", log_path: Path | None = None):
        self.site = site
        self.token = token
        self.device = device
        self.log_path = log_path
        self.verify_calls = 0
        self._local: Any = None
        self._lock = threading.Lock()

    def _local_verifier(self) -> Any:
        from kgb.verify import LocalVerifier

        with self._lock:
            if self._local is None:
                self._local = LocalVerifier(device=self.device)
            return self._local

    def close(self) -> None:
        if self._local is not None:
            self._local.close()

    def verify(
        self, operator: str, source: str | None, path: str | None, mode: str, chip: str | None, tier: str | None
    ) -> dict[str, Any]:
        from kgb.cli import resolve_operators
        from kgb.prompting import feedback_text
        from kgb.verify import LocalVerifier, RemoteVerifier, SiteClient

        resolve_operators([operator], None)
        if (source is None) == (path is None):
            raise KgbError("give the kernel as `source` (the file's text) or as `path` (a file on this machine)")
        if path is not None:
            try:
                source = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise KgbError(f"cannot read {path}: {exc}") from None
        assert source is not None
        if mode == "local":
            local = self._local_verifier()
            verifier: Any = local if tier in (None, local.tier) else LocalVerifier(device=self.device, tier=tier)
        elif mode == "remote":
            if not self.site:
                raise KgbError("remote verification needs the server started with --site (or KGB_SITE)")
            verifier = RemoteVerifier(client=SiteClient(self.site, self.token), chip=chip or "", tier=tier or "smoke")
        else:
            raise KgbError("mode must be 'local' or 'remote'")
        started = time.monotonic()
        try:
            result = verifier.verify(operator, source)
        finally:
            if verifier is not self._local and mode == "local":
                verifier.close()
        with self._lock:
            self.verify_calls += 1
            calls = self.verify_calls
        if self.log_path is not None:
            with open(self.log_path, "a", encoding="utf-8") as handle:
                handle.write(
                    json.dumps(
                        {
                            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                            "operator": operator,
                            "mode": mode,
                            "chip": chip if mode == "remote" else self.device,
                            "verdict": result.get("verdict"),
                            "duration_s": round(time.monotonic() - started, 3),
                        }
                    )
                    + "\n"
                )
        return {
            "operator": operator,
            "verdict": result.get("verdict"),
            "reason": result.get("reason", ""),
            "tier": result.get("tier"),
            "seed_kind": result.get("seed_kind"),
            "cases": result.get("cases", []),
            "findings": result.get("findings", []),
            "timing": result.get("timing"),
            "feedback": feedback_text(result),
            "verify_calls": calls,
        }


def build_server(
    *, site: str | None = None, token: str | None = None, device: str = "cpu", log_path: Path | None = None
) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    from kgb import __version__

    def anticipated(call: Any, *args: Any) -> Any:
        # a user's mistake (unknown operator, no site configured, a refused upload) reaches the model as
        # the tool's error text; anything else is a crash the SDK reports without details
        try:
            return call(*args)
        except KgbError as exc:
            raise ToolError(str(exc)) from exc

    tools = Tools(site=site, token=token, device=device, log_path=log_path)
    server = MCPServer(
        "kgb",
        version=__version__,
        instructions=(
            "KernelGenBench: write Triton kernels for PyTorch ATen, vLLM and cuBLAS operators. get_prompt gives the "
            "task; verify_kernel checks a kernel (locally, or on a site chip in test mode: public cases only, never "
            "the ranked test); submit uploads finished kernels."
        ),
    )

    @server.tool()
    def list_operators(source: str | None = None, mc_only: bool = False) -> list[dict[str, Any]]:
        """The operator catalog. source: aten, vllm13 or cublas (default all); mc_only: the multi-chip set."""
        return anticipated(list_operators_data, source, mc_only)

    @server.tool()
    def get_prompt(operator: str, chip_family: str = "nvidia") -> str:
        """The task for one operator (e.g. aten::add): what to compute, the signature, the rules, example cases."""
        from kgb.prompting import DEFAULT_PROMPT_SET, operator_prompt

        return anticipated(lambda: operator_prompt(operator, prompt_set=DEFAULT_PROMPT_SET, chip_family=chip_family))

    @server.tool()
    def verify_kernel(
        operator: str,
        source: str | None = None,
        path: str | None = None,
        mode: str = "local",
        chip: str | None = None,
        tier: str | None = None,
    ) -> dict[str, Any]:
        """Check one kernel file for an operator. Give its text as `source` or a file `path`. mode "local" runs
        this machine's harness; mode "remote" runs it on the site's `chip` in test mode (unranked, public cases).
        Returns the verdict (correct, incorrect, compile_error, ...), per-case results, findings and feedback."""
        return anticipated(tools.verify, operator, source, path, mode, chip, tier)

    @server.tool()
    def submit(
        directory: str,
        chip: str | None = None,
        name: str | None = None,
        provider: str | None = None,
        private: bool = False,
    ) -> str:
        """Upload a kgb run directory, or a directory of <ns>__<op>.py files with metadata.json, to the site."""
        import contextlib
        import io

        from kgb.submission import submit_path

        def upload() -> str:
            if not site or not token:
                raise KgbError("submit needs the server started with --site and --token (or KGB_SITE, KGB_TOKEN)")
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = submit_path(
                    Path(directory), site=site, token=token, chip=chip, name=name, provider=provider, public=not private
                )
            if status != 0:
                raise KgbError((err.getvalue() or out.getvalue()).strip() or f"submit failed ({status})")
            return out.getvalue().strip()

        return anticipated(upload)

    server.kgb_tools = tools  # type: ignore[attr-defined]
    return server
