"""Split a job bundle (kgb.jobs/1) into small chunk files for bench/h200_call.sh, so a device call
that is cut short loses one chunk, not everything; `order.txt` lists the chunks in the order the
lanes take them: the operators named by --first, then the rest with the sources interleaved.

    python bench/split_jobs.py jobs.json --out-dir chunks/ --per-chunk 2 [--first ops.txt] [--skip ops.txt]
                               [--only ops.txt] [--tiers full edge]

--first / --skip / --only name files with one operator id per line (e.g. the ones to re-run after a
fix, the ones a previous call already evaluated, the only ones wanted). --tiers re-targets every job
at each tier in turn (a correctness sweep: job ids get "/TIER" where the tier differs from the
exported one); such results are for tables, not for import into the site.
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path


def read_ids(path: Path | None) -> list[str]:
    if path is None:
        return []
    return [line.strip() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


def ordered_jobs(jobs: list[dict], first: list[str], skip: set[str], only: set[str] | None = None) -> list[dict]:
    rank = {op: i for i, op in enumerate(first)}
    wanted = [j for j in jobs if j["operator"] not in skip and (only is None or j["operator"] in only)]
    head = sorted((j for j in wanted if j["operator"] in rank), key=lambda j: rank[j["operator"]])
    by_source: dict[str, list[dict]] = {}
    for job in wanted:
        if job["operator"] not in rank:
            by_source.setdefault(job["operator"].split("::")[0], []).append(job)
    tail = [j for group in itertools.zip_longest(*by_source.values()) for j in group if j is not None]
    return head + tail


def retarget(jobs: list[dict], tiers: list[str]) -> list[dict]:
    return [
        job if job["tier"] == tier else {**job, "tier": tier, "job_id": f"{job['job_id']}/{tier}"}
        for tier in tiers
        for job in jobs
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("jobs", type=Path)
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("--per-chunk", type=int, default=2)
    parser.add_argument("--first", type=Path, help="operator ids to evaluate first, one per line")
    parser.add_argument("--skip", type=Path, help="operator ids to leave out, one per line")
    parser.add_argument("--only", type=Path, help="the only operator ids to keep, one per line")
    parser.add_argument("--tiers", nargs="+", choices=("smoke", "full", "edge", "perf"), help="re-target jobs")
    args = parser.parse_args()
    if args.per_chunk < 1:
        parser.error("--per-chunk must be at least 1")
    bundle = json.loads(args.jobs.read_text())
    only = set(read_ids(args.only)) if args.only else None
    jobs = ordered_jobs(bundle["jobs"], read_ids(args.first), set(read_ids(args.skip)), only)
    if args.tiers:
        jobs = retarget(jobs, args.tiers)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    names = []
    for start in range(0, len(jobs), args.per_chunk):
        name = f"c{start // args.per_chunk:03d}.json"
        (args.out_dir / name).write_text(json.dumps({**bundle, "jobs": jobs[start : start + args.per_chunk]}))
        names.append(name)
    (args.out_dir / "order.txt").write_text("".join(f"{name}\n" for name in names))
    print(f"{len(jobs)} jobs in {len(names)} chunks under {args.out_dir} (order.txt lists them)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
