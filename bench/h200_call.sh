#!/usr/bin/env bash
# One device call on a lent H200 machine (one or two GPUs): harness benchmarks on GPU 0 while the
# reference bundle runs with timing on the other GPU(s), then GPU 0 joins the bundle; everything
# is packed into at most three archives under OUT before the call's limit.
#   bench/h200_call.sh CHUNK_DIR OUT [SECONDS=530] [MAX_CASES=4] [TIME_BUDGET=0.2] [SKIP_HARNESS=]
# Environment: KGB_LANE_WORKERS (attempts side by side per GPU), KGB_ORDER_REVERSE=1.
set -u
chunks=$1; out=$2; seconds=${3:-530}; max_cases=${4:-4}; budget=${5:-0.2}; skip=${6:-}
start=$(date +%s); deadline=$(( start + seconds ))
export PYTHONPATH=$(pwd) PYTHONUNBUFFERED=1
work=/tmp/kgb_call; rm -rf "$work"; mkdir -p "$work/harness" "$work/bundle"
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | tr '\n' ' ')
nvidia-smi > "$work/harness/nvidia-smi.txt" 2>&1
ls "$chunks"/*.json > "$work/order.txt"
[ -f "$chunks/order.txt" ] && sed "s#^#$chunks/#" "$chunks/order.txt" > "$work/order.txt"
# KGB_ORDER_REVERSE=1: claim chunks from the end, so a second call need not know what the first finished
[ "${KGB_ORDER_REVERSE:-0}" = 1 ] && tac "$work/order.txt" > "$work/order.rev" && mv "$work/order.rev" "$work/order.txt"
# sanity first: a correct solution must come back correct with the default transport and limits,
# else the bundle runs with outputs by value and no host-memory limit (both recorded in the log)
sanity() {
    CUDA_VISIBLE_DEVICES=0 timeout 120 python3 -m evaluator check --operator aten::add \
        --solution operators/solutions/triton_reference/aten__add.py --tier perf --max-cases 2 "$@" --json \
        > "$work/harness/sanity.json" 2>> "$work/harness/sanity.log"
    python3 -c "import json,sys; r=json.load(open('$work/harness/sanity.json')); print('sanity', r['verdict'], r['reason'][:200], r.get('profile'), r['environment'].get('host_memory')); sys.exit(r['verdict'] != 'correct')"
}
CUDA_VISIBLE_DEVICES=0 timeout 60 python3 -m pytest -q -p no:cacheprovider tests/harness/test_units.py -k "wire" \
    > "$work/harness/pytest_wire.txt" 2>&1; tail -1 "$work/harness/pytest_wire.txt"
export KGB_BUNDLE_ARGS=""
if ! sanity; then
    export KGB_OUTPUTS_BY_IPC=0 KGB_BUNDLE_ARGS="--host-memory-gib 0"
    sanity --host-memory-gib 0 || echo "sanity still failing: see sanity.log"
fi
other=$(echo $gpus | cut -s -d' ' -f2-)
if [ -n "$other" ]; then
    bench/h200_gpu_lanes.sh "$work/order.txt" "$work/bundle" "$deadline" "$max_cases" "$budget" $other &
fi
if [ "$skip" != "all" ]; then
    CUDA_VISIBLE_DEVICES=0 timeout -k 5 $(( deadline - $(date +%s) )) \
        python3 bench/harness_h200.py --out "$work/harness" --skip "cli,hostile${skip:+,$skip}" \
        > "$work/harness/stdout.txt" 2>&1
fi
bench/h200_gpu_lanes.sh "$work/order.txt" "$work/bundle" "$deadline" "$max_cases" "$budget" 0
wait
tar -czf "$out/harness.tar.gz" -C "$work" harness
tar -czf "$out/bundle.tar.gz" -C "$work" bundle
cat "$work/bundle/lanes.txt" 2>/dev/null; tail -40 "$work/harness/stdout.txt" 2>/dev/null
