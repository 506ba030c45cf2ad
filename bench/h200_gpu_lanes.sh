#!/usr/bin/env bash
# Evaluate job-bundle chunks with timing on every GPU of the machine, one lane per GPU (a lane owns
# its card, so timings are not shared), chunks claimed in the order of ORDER_FILE, each chunk's
# signed results written as soon as it finishes; nothing starts after DEADLINE (epoch seconds).
#   bench/h200_gpu_lanes.sh ORDER_FILE OUT_DIR DEADLINE MAX_CASES TIME_BUDGET GPU [GPU ...]
# KGB_RUNNER_TOKEN (optional) signs each results file. KGB_LANE_WORKERS (default 1) attempts run side
# by side in a lane: they share the card while checking and each timed phase has it alone
# (evaluator/harness/gate.py); every bundle rewrites its results file after each finished job.
set -u
order=$1; out=$2; deadline=$3; max_cases=$4; budget=$5; shift 5
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$(pwd) PYTHONUNBUFFERED=1
mkdir -p "$out/claims"
for gpu in "$@"; do
    (
        while read -r chunk; do
            name=$(basename "$chunk" .json)
            mkdir "$out/claims/$name" 2>/dev/null || continue   # another lane has it
            left=$(( deadline - $(date +%s) ))
            [ "$left" -gt 20 ] || break
            start=$(date +%s)
            CUDA_VISIBLE_DEVICES=$gpu timeout -k 5 "$left" python3 -m evaluator bundle run "$chunk" \
                --out "$out/results_$name.json" --device cuda --max-cases "$max_cases" \
                --workers "${KGB_LANE_WORKERS:-1}" --time-budget "$budget" ${KGB_BUNDLE_ARGS:-} 2>> "$out/gpu$gpu.log"
            echo "gpu$gpu $name rc=$? $(( $(date +%s) - start )) s" | tee -a "$out/lanes.txt"
        done < "$order"
    ) &
done
wait
