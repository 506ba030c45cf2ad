#!/usr/bin/env bash
# One device call for correctness at scale on a lent H200 machine: GPU 0 first runs the cuBLAS vendor
# check and the timed chunks (one lane, the card to itself), then joins the correctness sweep, which
# runs LANES bundle processes per GPU with timing off (lanes share a card, so nothing is timed there).
# Everything is packed into OUT/sweep.tar.gz before the call's limit.
#   bench/h200_sweep.sh SWEEP_DIR TIMED_DIR OUT [SECONDS=450] [SWEEP_MAX_CASES=12] [LANES=2] [WORKERS=3]
# SWEEP_DIR and TIMED_DIR come from bench/split_jobs.py (the sweep with --tiers full edge); TIMED_DIR "-"
# means no timed chunks.
set -u
sweep=$1; timed=$2; out=$3; seconds=${4:-450}; max_cases=${5:-12}; lanes=${6:-2}; workers=${7:-3}
deadline=$(( $(date +%s) + seconds ))
export PYTHONPATH=$(pwd) PYTHONUNBUFFERED=1 KGB_LANE_WORKERS=$workers
work=/tmp/kgb_sweep; rm -rf "$work"; mkdir -p "$work/vendor" "$work/timed" "$work/sweep"
sed "s#^#$sweep/#" "$sweep/order.txt" > "$work/sweep_order.txt"
touch "$work/timed_order.txt"
[ "$timed" != - ] && sed "s#^#$timed/#" "$timed/order.txt" > "$work/timed_order.txt"
nvidia-smi > "$work/vendor/nvidia-smi.txt" 2>&1
others=$(nvidia-smi --query-gpu=index --format=csv,noheader | tail -n +2 | tr '\n' ' ')
lane_gpus() { for gpu in "$@"; do for _ in $(seq "$lanes"); do printf '%s ' "$gpu"; done; done; }
sweep_lanes() {
    KGB_BUNDLE_ARGS="--no-timing" bench/h200_gpu_lanes.sh "$work/sweep_order.txt" "$work/sweep" "$deadline" \
        "$max_cases" 0.2 $(lane_gpus "$@")
}
[ -n "$others" ] && sweep_lanes $others &
CUDA_VISIBLE_DEVICES=0 timeout -k 5 240 python3 bench/cublas_vendor_check.py --time \
    --json "$work/vendor/cublas_vendor.json" > "$work/vendor/stdout.txt" 2>&1
echo "vendor check rc=$?"
bench/h200_gpu_lanes.sh "$work/timed_order.txt" "$work/timed" "$deadline" 3 0.2 0
sweep_lanes 0
wait
tar -czf "$out/sweep.tar.gz" -C "$work" vendor timed sweep
cat "$work/sweep/lanes.txt" | wc -l; tail -5 "$work/vendor/stdout.txt"
