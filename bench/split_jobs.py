"""Split a job bundle (kgb.jobs/1) into chunks by operator source, so an air-gapped run that is cut
short loses one chunk, not everything.

    python bench/split_jobs.py jobs.json --out-dir chunks/ --per-chunk 16
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("jobs", type=Path)
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("--per-chunk", type=int, default=16)
    args = parser.parse_args()
    bundle = json.loads(args.jobs.read_text())
    by_source: dict[str, list] = {}
    for job in bundle["jobs"]:
        by_source.setdefault(job["operator"].split("::")[0], []).append(job)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for source, jobs in sorted(by_source.items()):
        for start in range(0, len(jobs), args.per_chunk):
            chunk = {**bundle, "jobs": jobs[start : start + args.per_chunk]}
            path = args.out_dir / f"{source}_{start // args.per_chunk:02d}.json"
            path.write_text(json.dumps(chunk))
            print(f"{path}: {len(chunk['jobs'])} jobs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
