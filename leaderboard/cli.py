"""The old command-line client, kept as an alias: `python -m leaderboard.cli submit DIR --site URL --token T`
is `kgb submit DIR --site URL --token T` (kgb/submission.py; docs/client.md). No Django: it runs anywhere."""

from __future__ import annotations

import sys
from pathlib import Path


def submit(directory: Path, *, site: str, token: str, wait: bool = False, timeout: float = 60.0) -> int:
    from kgb.submission import submit_path

    return submit_path(directory, site=site, token=token, wait=wait, timeout=timeout)


def main(argv: list[str] | None = None) -> int:
    from kgb.cli import main as kgb_main

    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] != "submit":
        print(
            "usage: python -m leaderboard.cli submit DIR --site URL --token T [--wait] (now `kgb submit`)",
            file=sys.stderr,
        )
        return 2
    return kgb_main(args)


if __name__ == "__main__":
    sys.exit(main())
