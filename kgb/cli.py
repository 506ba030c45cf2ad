"""The `kgb` command line (console script `kgb`, or `python -m kgb`). docs/client.md is the manual.

kgb generate --model M --base-url URL --api openai|anthropic (--operators ID ... | --source SET)
             [--rounds R [--reflection] | --samples K] [--temperature T] [--max-tokens N]
             [--budget-usd X --price-input P --price-output P] [--workers N]
             [--verify local|remote|none] [--chip C] --out RUN_DIR
kgb resume RUN_DIR            continue an interrupted run with its recorded settings
kgb status RUN_DIR            the summary table of a run
kgb submit PATH               upload a run directory (or a directory of solution files + metadata.json)
kgb export RUN_DIR DEST       write the submission (files + metadata.json) without uploading
kgb verify FILE --operator ID check one kernel locally or in the site's test mode
kgb import upstream|agent DIR --out DEST    runs made elsewhere, as a submission directory
kgb operators | kgb prompt ID the catalog and the prompts
kgb mcp                       the MCP server for agents (stdio or streamable HTTP)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any

from kgb import CLIENT_NAME, RUN_SCHEMA, __version__
from kgb.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, KgbError

OPERATOR_SETS = ("aten", "vllm13", "cublas", "mc", "all")


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    console = Console(stderr=stderr, highlight=False)
    if not console.is_terminal:  # a log file or a pipe: room for the whole summary table
        console = Console(stderr=stderr, highlight=False, width=160)
    return console


def _json_arg(text: str | None, flag: str) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise KgbError(f"{flag} must be a JSON object ({exc})") from None
    if not isinstance(value, dict):
        raise KgbError(f"{flag} must be a JSON object")
    return value


def _temperature(text: str) -> float | None:
    if text.lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number or 'none': {text!r}") from None


def resolve_operators(ids: list[str] | None, source: str | None) -> list[str]:
    from operators import registry

    if bool(ids) == bool(source):
        raise KgbError("give either --operators ID ... or --source aten|vllm13|cublas|mc|all")
    if source:
        if source not in OPERATOR_SETS:
            raise KgbError(f"--source must be one of {', '.join(OPERATOR_SETS)}")
        if source == "all":
            return [s.id for s in registry.all_specs()]
        if source == "mc":
            return [s.id for s in registry.all_specs(mc_only=True)]
        return [s.id for s in registry.all_specs(source)]
    known = {s.id for s in registry.all_specs()}
    wanted: list[str] = []
    for item in ids or []:
        for op in (part.strip() for part in item.split(",")):
            if op and op not in wanted:
                wanted.append(op)
    unknown = [op for op in wanted if op not in known]
    if unknown:
        hint = " (ids look like aten::add, vllm13::rms_norm, cublas::cublasSgemm_v2)"
        raise KgbError(f"unknown operator{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}{hint}")
    return wanted


def _api_key(api: str, env_name: str | None, no_key: bool) -> str:
    from kgb.providers import DEFAULT_KEY_ENV

    if no_key:
        return "not-needed"
    name = env_name or DEFAULT_KEY_ENV[api]
    value = os.environ.get(name, "").strip()
    if not value:
        raise KgbError(
            f"no API key: set {name} in the environment (or name another variable with --api-key-env); "
            "for a local server without authentication pass --no-api-key"
        )
    return value


def _prices(args: argparse.Namespace) -> Any:
    from kgb.scoring import Prices

    given = [args.price_input, args.price_output]
    if all(p is None for p in given) and args.price_cached is None:
        return None
    if any(p is None for p in given):
        raise KgbError("prices need both --price-input and --price-output (USD per million tokens)")
    if any(p < 0 for p in (*given, args.price_cached or 0)):
        raise KgbError("prices cannot be negative")
    return Prices(args.price_input, args.price_output, args.price_cached)


def _default_family(verify: dict[str, Any]) -> str:
    if verify.get("mode") == "local":
        return "cpu" if verify.get("device", "cpu") == "cpu" else "nvidia"
    if verify.get("chip") == "cpu":
        return "cpu"
    return "nvidia"


def _settings_from_args(args: argparse.Namespace) -> dict[str, Any]:
    from kgb.extract import RULES
    from kgb.prompting import check_prompt_set
    from kgb.providers import check_base_url

    if args.samples is not None and args.rounds is not None:
        raise KgbError("--rounds (upstream's sequential pass@k) and --samples (independent samples) exclude each other")
    mode = "samples" if args.samples is not None else "rounds"
    rounds = args.rounds if args.rounds is not None else 1
    samples = args.samples if args.samples is not None else 1
    for flag, value in (("--rounds", rounds), ("--samples", samples)):
        if not 1 <= value <= 10:
            raise KgbError(f"{flag} must be between 1 and 10 (the site keeps at most 10 samples per operator)")
    if args.reflection and mode != "rounds":
        raise KgbError("--reflection feeds round r-1's verdict into round r: it needs --rounds, not --samples")
    if args.verify == "none" and mode == "rounds" and rounds > 1:
        raise KgbError("--rounds above 1 needs a verifier (which operators passed decides the next round)")
    if args.max_tokens < 1:
        raise KgbError("--max-tokens must be positive")
    if args.extract not in RULES:
        raise KgbError(f"--extract must be one of {', '.join(RULES)}")
    if args.temperature is not None and not 0 <= args.temperature <= 2:
        raise KgbError("--temperature must be between 0 and 2")
    if args.verify == "local":
        verify = {
            "mode": "local",
            "device": args.device,
            "tier": args.tier or ("smoke" if args.device == "cpu" else "full"),
        }
    elif args.verify == "remote":
        if not args.chip:
            raise KgbError("--verify remote needs --chip (a chip slug of the site, e.g. cpu or h200)")
        if not args.site:
            raise KgbError("--verify remote needs --site (or KGB_SITE)")
        verify = {"mode": "remote", "site": args.site.rstrip("/"), "chip": args.chip, "tier": args.tier or "smoke"}
    else:
        verify = {"mode": "none"}
    return {
        "schema": RUN_SCHEMA,
        "run_id": str(uuid.uuid4()),
        "client": {"name": CLIENT_NAME, "version": __version__},
        "api": args.api,
        "base_url": check_base_url(args.base_url),
        "model": args.model,
        "mode": mode,
        "rounds": rounds if mode == "rounds" else None,
        "samples": samples if mode == "samples" else None,
        "reflection": bool(args.reflection),
        "temperature": args.temperature,
        "max_tokens": args.max_tokens,
        "max_tokens_param": args.max_tokens_param,
        "extra_body": _json_arg(args.extra_body, "--extra-body"),
        "prompt_set": check_prompt_set(args.prompt_set),
        "chip_family": args.chip_family or _default_family(verify),
        "extract": args.extract,
        "operators": resolve_operators(args.operators, args.source),
        "verify": verify,
        "submit_chip": args.chip,
        "provider": args.provider,
        "model_label": args.model_label,
        "model_version": args.model_version,
        "name": args.name,
    }


def _make_verifier(verify: dict[str, Any], args: argparse.Namespace, run_id: str) -> Any:
    from kgb.verify import LocalVerifier, RemoteVerifier, SiteClient

    if verify["mode"] == "local":
        return LocalVerifier(device=verify["device"], tier=verify["tier"], timeout_s=args.verify_timeout)
    if verify["mode"] == "remote":
        token = args.token
        client = SiteClient(verify["site"], token)
        return RemoteVerifier(client=client, chip=verify["chip"], tier=verify["tier"], run_label=run_id)
    return None


def _run_session(run: Any, settings: dict[str, Any], args: argparse.Namespace) -> int:
    from kgb.generate import Session, SessionOptions
    from kgb.providers import RetryPolicy, make_provider
    from kgb.report import print_summary

    if args.workers < 1:
        raise KgbError("--workers must be at least 1")
    if args.budget_usd is not None and args.budget_usd <= 0:
        raise KgbError("--budget-usd must be positive")
    prices = _prices(args)
    if prices is None and settings.get("prices"):
        from kgb.scoring import Prices

        prices = Prices(**settings["prices"])
    if args.budget_usd is not None and prices is None:
        raise KgbError(
            "--budget-usd needs the model's prices: --price-input and --price-output (USD per million tokens)"
        )
    if prices is not None:
        settings["prices"] = prices.record()
        run.write_settings(settings)
    api_key = _api_key(settings["api"], args.api_key_env, args.no_api_key)
    provider = make_provider(
        settings["api"],
        model=settings["model"],
        base_url=settings["base_url"],
        api_key=api_key,
        timeout_s=args.timeout,
        retry=RetryPolicy(max_retries=args.max_retries, backoff_s=args.retry_backoff_s),
        extra_body=settings.get("extra_body"),
        max_tokens_param=settings.get("max_tokens_param") or "max_tokens",
    )
    if not args.no_preflight:
        provider.preflight()
    verifier = _make_verifier(settings["verify"], args, settings["run_id"])
    console = _console(stderr=args.json)
    session = Session(
        run=run,
        settings=settings,
        provider=provider,
        verifier=verifier,
        options=SessionOptions(
            workers=args.workers,
            budget_usd=args.budget_usd,
            prices=prices,
            progress=not args.no_progress and console.is_terminal,
        ),
        console=console,
    )
    try:
        result = session.execute()
    except KeyboardInterrupt:
        print(f"interrupted; run `kgb resume {run.path}` to continue", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if verifier is not None:
            verifier.close()
    if args.json:
        print(json.dumps(result.summary, indent=2, sort_keys=True))
    else:
        print_summary(console, result.summary)
    if result.status == "complete":
        console.print(f"done: {run.path} (submit with `kgb submit {run.path}`)", markup=False, highlight=False)
    elif result.status == "budget":
        console.print(
            f"stopped: {result.message}; resume with a larger --budget-usd: `kgb resume {run.path} --budget-usd X`",
            markup=False,
            highlight=False,
        )
    else:
        console.print(
            f"stopped: {result.message}; fix it and run `kgb resume {run.path}`", markup=False, highlight=False
        )
    return result.exit_code


def cmd_generate(args: argparse.Namespace) -> int:
    from kgb.rundir import RunDir

    settings = _settings_from_args(args)
    run = RunDir(args.out)
    if not run.exists() and args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir())):
        raise KgbError(f"{args.out} exists and is not a kgb run directory; choose an empty or new --out")
    with run.locked():
        if run.exists():
            stored = run.read_settings()
            problems = RunDir.conflicts(stored, settings)
            if problems:
                raise KgbError(
                    f"{run.path} holds a run with other settings; use another --out, or `kgb resume {run.path}`:\n  "
                    + "\n  ".join(problems)
                )
            for key in ("rounds", "samples"):
                stored[key] = settings[key]
            settings = stored
        run.write_settings(settings)
        return _run_session(run, settings, args)


def cmd_resume(args: argparse.Namespace) -> int:
    from kgb.rundir import RunDir

    run = RunDir(args.run_dir)
    with run.locked():
        settings = run.read_settings()
        for key in ("rounds", "samples"):
            value = getattr(args, key)
            if value is not None:
                if settings["mode"] != ("rounds" if key == "rounds" else "samples"):
                    raise KgbError(f"this run uses the {settings['mode']} protocol; --{key} does not apply")
                if value < (settings[key] or 0) or value > 10:
                    raise KgbError(f"--{key} can grow up to 10 on resume, not shrink ({settings[key]} -> {value})")
                settings[key] = value
        run.write_settings(settings)
        return _run_session(run, settings, args)


def cmd_status(args: argparse.Namespace) -> int:
    from kgb.generate import run_summary
    from kgb.report import print_summary
    from kgb.rundir import RunDir
    from kgb.scoring import Prices

    run = RunDir(args.run_dir)
    settings = run.read_settings()
    prices = Prices(**settings["prices"]) if settings.get("prices") else None
    summary = run_summary(run, settings, prices)
    if args.json:
        print(json.dumps(summary, indent=2, sort_keys=True))
    else:
        print_summary(_console(), summary)
    return EXIT_OK


def _site_and_token(args: argparse.Namespace) -> tuple[str, str]:
    return (args.site or "").rstrip("/"), args.token or ""


def cmd_submit(args: argparse.Namespace) -> int:
    from kgb.submission import submit_path

    site, token = _site_and_token(args)
    return submit_path(
        args.path,
        site=site,
        token=token,
        wait=args.wait,
        name=args.name,
        provider=args.provider,
        model_name=args.model_label,
        model_version=args.model_version,
        chip=args.chip,
        public=not args.private,
        transcripts=args.transcripts,
        dry_run=None,
    )


def cmd_export(args: argparse.Namespace) -> int:
    from kgb.submission import submit_path

    if args.dest.exists() and any(args.dest.iterdir()):
        raise KgbError(f"{args.dest} is not empty")
    return submit_path(
        args.run_dir,
        site="",
        token="",
        name=args.name,
        provider=args.provider,
        model_name=args.model_label,
        model_version=args.model_version,
        chip=args.chip,
        public=not args.private,
        transcripts=args.transcripts,
        dry_run=args.dest,
    )


def cmd_verify(args: argparse.Namespace) -> int:
    from kgb.prompting import feedback_text
    from kgb.verify import LocalVerifier, RemoteVerifier, SiteClient

    resolve_operators([args.operator], None)
    try:
        source = args.file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KgbError(f"cannot read {args.file}: {exc}") from None
    remote = args.chip is not None and not args.local
    if remote:
        if not args.site:
            raise KgbError("remote verification needs --site (or KGB_SITE); use --local for this machine's harness")
        verifier: Any = RemoteVerifier(
            client=SiteClient(args.site, args.token), chip=args.chip, tier=args.tier or "smoke"
        )
    else:
        verifier = LocalVerifier(device=args.device, tier=args.tier, timeout_s=args.verify_timeout)
    try:
        result = verifier.verify(args.operator, source)
    finally:
        verifier.close()
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        where = f"test mode on {args.chip}" if remote else f"local {args.device}"
        print(f"{args.operator} ({where}, {result.get('tier', '')} tier, {result.get('seed_kind', '')} seed)")
        print(feedback_text(result))
    return EXIT_OK if result.get("verdict") == "correct" else EXIT_FAILED


def cmd_import(args: argparse.Namespace) -> int:
    from kgb import importers

    if args.out.exists() and any(args.out.iterdir()):
        raise KgbError(f"{args.out} is not empty")
    common = {
        "name": args.name,
        "provider": args.provider,
        "model_name": args.model_label,
        "model_version": args.model_version,
        "chip": args.chip,
        "public": not args.private,
    }
    if args.kind == "upstream":
        files, metadata = importers.import_upstream(args.dir, **common)
    else:
        files, metadata = importers.import_agent(args.dir, scaffold=args.scaffold, **common)
    from kgb.submission import export

    export(args.out, files, json.dumps(metadata, ensure_ascii=False).encode())
    tokens = sum(
        u.get("prompt_tokens", 0) + u.get("completion_tokens", 0)
        for entries in metadata.get("operators", {}).values()
        for u in (entries if isinstance(entries, list) else [entries])
    )
    print(
        f"wrote {len(files)} files and metadata.json to {args.out} ({tokens:,} tokens); upload with `kgb submit {args.out}`"
    )
    return EXIT_OK


def cmd_operators(args: argparse.Namespace) -> int:
    from kgb.mcp_server import list_operators_data

    rows = list_operators_data(source=args.source, mc_only=args.mc)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            print(f"{row['id']:<48} {row['category']:<14} smoke={row['tiers']['smoke']} full={row['tiers']['full']}")
    return EXIT_OK


def cmd_prompt(args: argparse.Namespace) -> int:
    from kgb.prompting import operator_prompt

    sys.stdout.write(operator_prompt(args.id, prompt_set=args.prompt_set, chip_family=args.chip_family))
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace) -> int:
    from kgb.mcp_server import build_server

    server = build_server(site=args.site, token=args.token, device=args.device, log_path=args.log)
    if args.transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=args.host, port=args.port)
    return EXIT_OK


def _add_site(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--site", default=os.environ.get("KGB_SITE"), help="the site, e.g. http://127.0.0.1:8000 (env KGB_SITE)"
    )
    parser.add_argument(
        "--token", default=os.environ.get("KGB_TOKEN"), help="your API token, account page (env KGB_TOKEN)"
    )


def _add_labels(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", help="the label shown on the leaderboard")
    parser.add_argument("--provider", help="the model's provider as the site shows it, e.g. 'Zhipu AI'")
    parser.add_argument("--model-label", help="the model's name as the site shows it (default: --model)")
    parser.add_argument("--model-version", help="the model's version as the site shows it")


def _add_session(parser: argparse.ArgumentParser) -> None:
    """What may change between sessions of one run."""
    parser.add_argument("--workers", type=int, default=4, help="requests in flight (default 4)")
    parser.add_argument("--budget-usd", type=float, help="stop starting requests once the run has cost this much")
    parser.add_argument("--price-input", type=float, help="USD per million input tokens")
    parser.add_argument("--price-output", type=float, help="USD per million output tokens")
    parser.add_argument("--price-cached", type=float, help="USD per million cached input tokens (default: input price)")
    parser.add_argument(
        "--api-key-env", help="environment variable holding the API key (default OPENAI_API_KEY / ANTHROPIC_API_KEY)"
    )
    parser.add_argument("--no-api-key", action="store_true", help="the server needs no key (a local vLLM/Ollama)")
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="seconds per request before it is retried (default 600)"
    )
    parser.add_argument(
        "--max-retries", type=int, default=6, help="retries of 429/5xx/timeouts per request (default 6)"
    )
    parser.add_argument(
        "--retry-backoff-s", type=float, default=2.0, help="first backoff; doubles with jitter (default 2)"
    )
    parser.add_argument(
        "--verify-timeout", type=float, default=300.0, help="seconds per local verification (default 300)"
    )
    parser.add_argument("--no-preflight", action="store_true", help="skip listing the server's models before starting")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    _add_site(parser)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kgb", description="KernelGenBench client: generate, verify and submit Triton kernels"
    )
    parser.add_argument("--version", action="version", version=f"{CLIENT_NAME} {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    gen = commands.add_parser("generate", help="run the LLM-track protocol against a model and record everything")
    gen.add_argument(
        "--model", required=True, help="the model id to request, e.g. gpt-4o-mini, claude-opus-4-6, Qwen/Qwen3-8B"
    )
    gen.add_argument("--base-url", help="the API's base URL, e.g. http://127.0.0.1:8001/v1 (default: the SDK's)")
    gen.add_argument(
        "--api", choices=("openai", "anthropic"), default="openai", help="chat completions or Anthropic Messages"
    )
    gen.add_argument("--operators", nargs="+", help="operator ids (space- or comma-separated)")
    gen.add_argument("--source", help="an operator set: aten, vllm13, cublas, mc (multi-chip) or all")
    gen.add_argument(
        "--rounds", type=int, help="upstream's protocol: up to R rounds, each retrying only what failed (default 1)"
    )
    gen.add_argument("--reflection", action="store_true", help="rounds: send round r-1's code and verifier feedback")
    gen.add_argument(
        "--samples", type=int, help="K independent samples per operator (pass@k by the unbiased estimator)"
    )
    gen.add_argument(
        "--temperature",
        type=_temperature,
        default=0.8,
        help="default 0.8 (upstream's default; its paper used 0 for pass@1); 'none' sends none",
    )
    gen.add_argument("--max-tokens", type=int, default=16384, help="default 16384 (upstream's)")
    gen.add_argument(
        "--max-tokens-param",
        choices=("max_tokens", "max_completion_tokens"),
        default="max_tokens",
        help="OpenAI API: the name of the limit (OpenAI's reasoning models need max_completion_tokens)",
    )
    gen.add_argument("--extra-body", help='JSON merged into each request body, e.g. \'{"reasoning_effort": "high"}\'')
    gen.add_argument("--prompt-set", default="kgb/1", help="the prompt set (default kgb/1: the catalog's prompts)")
    gen.add_argument("--chip-family", help="the chip family the prompt targets (default: from the verifier)")
    gen.add_argument(
        "--extract", default="first", help="which code block of a reply is the kernel: first (upstream), last, longest"
    )
    gen.add_argument(
        "--verify",
        choices=("local", "remote", "none"),
        default="local",
        help="local harness, the site's test mode, or none",
    )
    gen.add_argument("--device", default="cpu", help="local verification device: cpu (Triton interpreter) or cuda")
    gen.add_argument(
        "--tier", choices=("smoke", "full"), help="verification tier (default smoke on cpu and remote, full on a GPU)"
    )
    gen.add_argument("--chip", help="the site chip: test-mode verification and the submission's target")
    gen.add_argument("--out", type=Path, required=True, help="RUN_DIR: created, or resumed when it holds this run")
    _add_labels(gen)
    _add_session(gen)
    gen.set_defaults(run=cmd_generate)

    resume = commands.add_parser("resume", help="continue a run with its recorded settings")
    resume.add_argument("run_dir", type=Path)
    resume.add_argument("--rounds", type=int, help="raise the number of rounds")
    resume.add_argument("--samples", type=int, help="raise the number of samples")
    _add_session(resume)
    resume.set_defaults(run=cmd_resume)

    status = commands.add_parser("status", help="the summary of a run")
    status.add_argument("run_dir", type=Path)
    status.add_argument("--json", action="store_true")
    status.set_defaults(run=cmd_status)

    for name, help_text in (
        ("submit", "upload a run directory or a solution directory"),
        ("export", "write the submission without uploading"),
    ):
        sub = commands.add_parser(name, help=help_text)
        if name == "submit":
            sub.add_argument("path", type=Path, help="a kgb RUN_DIR, or a directory of *.py files and metadata.json")
            sub.add_argument("--wait", action="store_true", help="poll until the evaluation finishes")
            _add_site(sub)
        else:
            sub.add_argument("run_dir", type=Path)
            sub.add_argument("dest", type=Path)
        sub.add_argument("--chip", help="the site chip that evaluates it (default: the run's --chip)")
        sub.add_argument("--private", action="store_true", help="visible to you (and staff) only")
        sub.add_argument(
            "--transcripts",
            choices=("auto", "all", "none"),
            default="auto",
            help="auto: while the metadata stays under the site's 8 MiB limit",
        )
        _add_labels(sub)
        sub.set_defaults(run=cmd_submit if name == "submit" else cmd_export)

    verify = commands.add_parser("verify", help="check one kernel file: locally, or on a site chip in test mode")
    verify.add_argument("file", type=Path)
    verify.add_argument("--operator", required=True, help="e.g. aten::add")
    verify.add_argument(
        "--chip", help="verify remotely on this site chip (test mode: public cases, never the ranked seed)"
    )
    verify.add_argument(
        "--local", action="store_true", help="verify with this machine's harness even if --chip is given"
    )
    verify.add_argument("--device", default="cpu", help="local device (default cpu)")
    verify.add_argument("--tier", choices=("smoke", "full"))
    verify.add_argument("--verify-timeout", type=float, default=300.0)
    verify.add_argument("--json", action="store_true", help="print the whole result document")
    _add_site(verify)
    verify.set_defaults(run=cmd_verify)

    imp = commands.add_parser("import", help="turn a run made elsewhere into a submission directory")
    imp.add_argument(
        "kind", choices=("upstream", "agent"), help="upstream: a pass@k output folder; agent: a run with workspaces/"
    )
    imp.add_argument("dir", type=Path)
    imp.add_argument("--out", type=Path, required=True)
    imp.add_argument("--scaffold", help="agent: the scaffold's name (default: claude-code or opencode, from the logs)")
    imp.add_argument("--chip", required=True, help="the site chip that evaluates it")
    imp.add_argument("--private", action="store_true")
    _add_labels(imp)
    imp.set_defaults(run=cmd_import)

    ops = commands.add_parser("operators", help="list the catalog")
    ops.add_argument("--source", choices=("aten", "vllm13", "cublas"))
    ops.add_argument("--mc", action="store_true")
    ops.add_argument("--json", action="store_true")
    ops.set_defaults(run=cmd_operators)

    prompt = commands.add_parser("prompt", help="print the prompt of one operator")
    prompt.add_argument("id")
    prompt.add_argument("--chip-family", default="nvidia")
    prompt.add_argument("--prompt-set", default="kgb/1")
    prompt.set_defaults(run=cmd_prompt)

    mcp = commands.add_parser("mcp", help="serve list_operators, get_prompt, verify_kernel and submit over MCP")
    mcp.add_argument("--transport", choices=("stdio", "streamable-http"), default="stdio")
    mcp.add_argument("--host", default="127.0.0.1")
    mcp.add_argument("--port", type=int, default=8765)
    mcp.add_argument("--device", default="cpu", help="local verification device")
    mcp.add_argument("--log", type=Path, help="append one JSON line per verify call (counts an agent's checks)")
    _add_site(mcp)
    mcp.set_defaults(run=cmd_mcp)
    return parser


def main(argv: list[str] | None = None) -> int:
    import logging

    for noisy in ("httpx", "httpx2", "openai", "anthropic"):  # one line per HTTP request at INFO
        logging.getLogger(noisy).setLevel(logging.WARNING)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except KgbError as exc:
        print(f"kgb: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("kgb: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["EXIT_USAGE", "build_parser", "main"]
