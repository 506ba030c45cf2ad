#!/usr/bin/env bash
# The air-gapped runner path on a lent GPU machine: evaluate job-bundle chunks with the harness CLI.
#   bench/h200_bundle_run.sh CHUNK_DIR PATTERN OUT_DIR [MAX_CASES] [TIME_BUDGET_S]
# Needs python3 with torch + triton; KGB_RUNNER_TOKEN (optional) signs each results file.
set -u
chunks=$1; pattern=$2; out=$3; max_cases=${4:-16}; budget=${5:-0.25}
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$(pwd) PYTHONUNBUFFERED=1
for chunk in "$chunks"/$pattern; do
    name=$(basename "$chunk" .json)
    start=$(date +%s)
    python3 -m evaluator bundle run "$chunk" --out "$out/results_$name.json" --device cuda \
        --max-cases "$max_cases" --time-budget "$budget" 2>> "$out/bundle_$name.log"
    echo "$name: rc=$? in $(( $(date +%s) - start )) s"
done
