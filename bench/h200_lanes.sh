#!/usr/bin/env bash
# Correctness-only evaluation of job-bundle chunks in N parallel lanes on one GPU (timing off:
# lanes share the card), each chunk's results written as soon as it finishes.
#   bench/h200_lanes.sh CHUNK_DIR LANES OUT_DIR MAX_CASES
set -u
chunks=$1; lanes=$2; out=$3; max_cases=$4
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$(pwd) PYTHONUNBUFFERED=1
files=("$chunks"/*.json)
for lane in $(seq 0 $((lanes - 1))); do
    (
        for i in "${!files[@]}"; do
            [ $((i % lanes)) -eq "$lane" ] || continue
            name=$(basename "${files[$i]}" .json)
            python3 -m evaluator bundle run "${files[$i]}" --out "$out/results_$name.json" --device cuda \
                --max-cases "$max_cases" --no-timing 2>> "$out/lane$lane.log"
        done
    ) &
done
wait
