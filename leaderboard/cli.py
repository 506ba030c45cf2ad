"""Command-line client: `python -m leaderboard.cli submit DIR --site URL --token T`.

Uses `requests` only (no Django), so it runs anywhere. DIR holds the solution files (`<ns>__<op>.py`,
optionally `<ns>__<op>.<k>.py` for extra samples) and `metadata.json` (docs/submission_format.md).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
import zipfile
from pathlib import Path

import requests


def build_archive(directory: Path) -> bytes:
    """Zip the top-level .py files of DIR (no subdirectories: the site refuses nested paths)."""
    files = sorted(p for p in directory.iterdir() if p.is_file() and p.suffix == ".py")
    if not files:
        raise SystemExit(f"error: no .py solution files in {directory}")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            archive.write(path, arcname=path.name)
    return buffer.getvalue()


def submit(directory: Path, *, site: str, token: str, wait: bool = False, timeout: float = 60.0) -> int:
    metadata_path = directory / "metadata.json"
    if not metadata_path.is_file():
        print(f"error: {metadata_path} is missing", file=sys.stderr)
        return 2
    archive = build_archive(directory)
    url = site.rstrip("/") + "/api/v1/submissions/"
    response = requests.post(
        url,
        headers={"Authorization": f"Token {token}"},
        files={
            "archive": ("solutions.zip", archive, "application/zip"),
            "metadata": ("metadata.json", metadata_path.read_bytes(), "application/json"),
        },
        timeout=timeout,
    )
    if response.status_code != 201:
        print(f"error: the site answered {response.status_code}", file=sys.stderr)
        try:
            body = response.json()
        except ValueError:
            print(response.text[:2000], file=sys.stderr)
            return 1
        for error in body.get("errors", []):
            print(f"  {error['where']}: {error['message']}", file=sys.stderr)
        if "detail" in body and not body.get("errors"):
            print(f"  {body['detail']}", file=sys.stderr)
        return 1
    submission = response.json()
    print(f"submitted {submission['id']} ({submission['attempts']} files): {submission['url']}")
    if wait:
        return _wait(site, token, submission["id"], timeout)
    return 0


def _wait(site: str, token: str, submission_id: str, timeout: float) -> int:
    url = site.rstrip("/") + f"/api/v1/submissions/{submission_id}/progress/"
    while True:
        progress = requests.get(url, headers={"Authorization": f"Token {token}"}, timeout=timeout).json()
        print(f"  {progress['finished']}/{progress['total']} finished, verdicts {json.dumps(progress['verdicts'])}")
        if not progress["active"]:
            return 0
        time.sleep(5)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m leaderboard.cli", description="KernelGenBench command-line client")
    commands = parser.add_subparsers(dest="command", required=True)
    submit_parser = commands.add_parser("submit", help="upload a directory of solution files and metadata.json")
    submit_parser.add_argument("directory", type=Path)
    submit_parser.add_argument("--site", required=True, help="e.g. http://127.0.0.1:8000")
    submit_parser.add_argument("--token", required=True, help="your API token (account page)")
    submit_parser.add_argument("--wait", action="store_true", help="poll until the evaluation finishes")
    args = parser.parse_args(argv)
    if not args.directory.is_dir():
        parser.error(f"{args.directory} is not a directory")
    return submit(args.directory, site=args.site, token=args.token, wait=args.wait)


if __name__ == "__main__":
    sys.exit(main())
