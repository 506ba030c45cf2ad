"""Which timing method agrees with Nsight Compute for kernels of 20-200 µs: the harness's timing
functions run in this process (no child, no verification) on the benchmark's add and softmax
kernels, each case timed by
  - events, flush write   (the harness's default: do_bench's protocol)
  - events, flush read    (clean L2, as ncu's cache control leaves it)
  - graph                 (calls on rotated input sets replayed back to back, the sets sized as
                           the harness sizes them, and with at least 8 sets)
  - kernel clock          (CUPTI's start/end of the kernel itself, through torch.profiler, in an
                           events loop with the read flush: no event bracket)
  - events, flush read, on inputs another process allocated and shared by CUDA IPC (as the
    harness's parent shares input sets with the candidate's process)
  - the harness itself (--harness): the candidate's and the baseline's medians, flush read
beside do_bench (median) and `ncu --clock-control none` (gpu__time_duration, median of 5).

    PYTHONPATH=. python3 bench/timing_methods.py [--out methods.json] [--ncu] [--harness] [--budget 0.3]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import shutil
import statistics
from pathlib import Path

import torch
import triton

from bench.harness_accuracy import KERNEL_NAMES, load_solution, ncu_kernel_durations
from evaluator.harness import timed, timing
from evaluator.harness.backends.cuda import CudaBackend
from operators.spec import Rng
from tests.harness.specs import ADD, SOFTMAX

CASES = [
    ("add", [4096, 3584], "bfloat16"),
    ("add", [4096, 4096], "bfloat16"),
    ("add", [4096, 6144], "bfloat16"),
    ("add", [8192, 4096], "bfloat16"),
    ("add", [16384, 8192], "bfloat16"),
    ("softmax", [4096, 4096], "float32"),
    ("softmax", [6144, 4096], "float32"),
    ("softmax", [8192, 4096], "float32"),
]
# the harness loads a spec by its module's SPECS list, in the candidate's process too
SPECS = [
    dataclasses.replace(
        spec,
        cases={
            **spec.cases,
            "perf": [
                {"shape": shape, "dtype": dtype, **({"alpha": 0.5} if op == "add" else {})}
                for op, shape, dtype in CASES
                if op == name
            ],
        },
    )
    for name, spec in (("add", ADD), ("softmax", SOFTMAX))
]
NCU_LAUNCHES = 5


def label(op: str, shape: list[int], dtype: str) -> str:
    return f"{op} {shape} {dtype}"


def make_set(op: str, shape: list[int], dtype: str, seed: int) -> dict:
    rng = Rng(seed, "cuda")
    if op == "add":
        return ADD.make_inputs({"shape": shape, "dtype": dtype, "alpha": 0.5}, rng)
    return SOFTMAX.make_inputs({"shape": shape, "dtype": dtype}, rng)


def caller(op: str, sets: list[dict]):
    if op == "add":
        module = load_solution("tests/harness/solutions/aten__add.py")
        return lambda which: module.add_Tensor(sets[which]["a"], sets[which]["b"], alpha=sets[which]["alpha"])
    module = load_solution("tests/harness/solutions/aten__softmax.py")
    return lambda which: module.softmax_int(sets[which]["x"], sets[which]["dim"])


def set_bytes(inputs: dict, out: torch.Tensor) -> int:
    tensors = [v for v in inputs.values() if isinstance(v, torch.Tensor)] + [out]
    return sum(t.numel() * t.element_size() for t in tensors)


def _produce_sets(op: str, shape: list[int], dtype: str, n: int, queue, done) -> None:
    sets = [make_set(op, shape, dtype, 100 + k) for k in range(n)]
    torch.cuda.synchronize()
    queue.put(sets)
    done.wait()


def ipc_sets(op: str, shape: list[int], dtype: str, n: int):
    """Input sets allocated by another process and mapped into this one by CUDA IPC."""
    ctx = torch.multiprocessing.get_context("spawn")
    queue, done = ctx.Queue(), ctx.Event()
    producer = ctx.Process(target=_produce_sets, args=(op, shape, dtype, n, queue, done))
    producer.start()
    return queue.get(timeout=120), (producer, done)


def harness_medians(flush: str) -> dict[str, dict]:
    """The harness's candidate and baseline medians for every case (perf tier = CASES)."""
    # run as a script this module is __main__; the candidate's process finds the specs by the
    # module's importable name
    from bench.timing_methods import SPECS as specs
    from evaluator.harness import Harness

    found: dict[str, dict] = {}
    with Harness(device="cuda", flush=flush) as harness:
        for op, bench_spec, path in (
            ("add", specs[0], "tests/harness/solutions/aten__add.py"),
            ("softmax", specs[1], "tests/harness/solutions/aten__softmax.py"),
        ):
            result = harness.evaluate(bench_spec, Path(path).read_text(), tier="perf", timeout_s=600)
            if result["verdict"] != "correct":
                raise RuntimeError(f"{op}: {result['verdict']}: {result['reason']}")
            for case in result["cases"]:
                found[label(op, case["params"]["shape"], case["params"]["dtype"])] = case["timing"]
    return found


def kernel_clock(call, n_sets: int, backend, l2: int, samples: int) -> list[float]:
    """Per call, the kernel's own duration from CUPTI (the solution launches one kernel)."""
    flusher = timing.Flusher(backend, "cuda", l2, own_kernels=True, mode="read")
    activities = [torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as prof:
        for i in range(samples):
            flusher.flush()
            backend.spin(100.0)
            call(i % n_sets)
            backend.synchronize()
    durations = []
    for event in prof.events():
        if any(name in event.name for name in KERNEL_NAMES) and event.device_type == torch.autograd.DeviceType.CUDA:
            durations.append(event.time_range.end - event.time_range.start)
    return durations


def ncu_durations() -> dict[str, float]:
    values = ncu_kernel_durations([str(Path(__file__).resolve()), "--ncu-target"], KERNEL_NAMES, 500)
    # one compile launch per case, then NCU_LAUNCHES profiled launches per case
    values = values[len(CASES) :]
    return {
        label(*case): statistics.median(values[i * NCU_LAUNCHES : (i + 1) * NCU_LAUNCHES])
        for i, case in enumerate(CASES)
        if values[i * NCU_LAUNCHES : (i + 1) * NCU_LAUNCHES]
    }


def ncu_target() -> None:
    for op, shape, dtype in CASES:
        caller(op, [make_set(op, shape, dtype, 1)])(0)
    torch.cuda.synchronize()
    for op, shape, dtype in CASES:
        call = caller(op, [make_set(op, shape, dtype, 1)])
        for _ in range(NCU_LAUNCHES):
            call(0)
        torch.cuda.synchronize()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None)
    parser.add_argument("--ncu", action="store_true")
    parser.add_argument("--ncu-target", action="store_true")
    parser.add_argument("--harness", action="store_true")
    parser.add_argument("--budget", type=float, default=0.3)
    args = parser.parse_args()
    if args.ncu_target:
        ncu_target()
        return
    backend = CudaBackend()
    l2 = backend.l2_bytes()
    rows = []
    for op, shape, dtype in CASES:
        first = make_set(op, shape, dtype, 100)
        out0 = caller(op, [first])(0)
        nbytes = set_bytes(first, out0)
        # the harness's rule for the number of rotated sets (timed.time_attempt)
        n_sets = max(2, min(timed.SETS_MAX, math.ceil(2 * l2 / nbytes), timed.SETS_BYTES_MAX // nbytes))
        n_many = max(n_sets, 8)
        sets = [first] + [make_set(op, shape, dtype, 100 + k) for k in range(1, n_many)]
        call = caller(op, sets)
        pairs = [[] for _ in sets]
        row = {"case": label(op, shape, dtype), "set_bytes": nbytes, "n_sets": n_sets}
        for name, kwargs in (
            ("events_write", {"method": "events", "flush": "write", "n": n_sets}),
            ("events_read", {"method": "events", "flush": "read", "n": n_sets}),
            ("graph", {"method": backend.graph_method, "flush": "write", "n": n_sets}),
            ("graph_8_sets", {"method": backend.graph_method, "flush": "write", "n": n_many}),
        ):
            result = timing.measure(
                call,
                kwargs["n"],
                backend=backend,
                device="cuda",
                l2_bytes=l2,
                restore_pairs=pairs,
                budget_s=args.budget,
                method=kwargs["method"],
                flush=kwargs["flush"],
            )
            stats = timing.summarize(result["samples_us"])
            row[name] = stats["median_us"]
            row[name + "_iqr"] = stats["iqr_us"]
            row[name + "_samples"] = stats["samples"]
            row[name + "_method"] = result["method"]
            result.pop("graph", None)
            del result
        row["do_bench"] = triton.testing.do_bench(lambda call=call: call(0), return_mode="median") * 1000.0
        shared, (producer, done) = ipc_sets(op, shape, dtype, n_sets)
        result = timing.measure(
            caller(op, shared),
            n_sets,
            backend=backend,
            device="cuda",
            l2_bytes=l2,
            restore_pairs=[[] for _ in shared],
            budget_s=args.budget,
            method="events",
            flush="read",
        )
        row["events_read_ipc"] = timing.summarize(result["samples_us"])["median_us"]
        del shared, result
        torch.cuda.synchronize()
        done.set()
        producer.join(60)
        # the profiler last: nothing measured after it in this case
        try:
            clock = kernel_clock(call, n_sets, backend, l2, 60)
            row["kernel_clock"] = statistics.median(clock[10:]) if len(clock) > 10 else None
        except Exception as exc:  # report, do not stop the benchmark
            row["kernel_clock"] = None
            row["kernel_clock_error"] = f"{type(exc).__name__}: {exc}"[:300]
        del sets, call, first, out0
        torch.cuda.empty_cache()
        rows.append(row)
    if args.harness:
        for key, harness_timing in harness_medians("read").items():
            for row in rows:
                if row["case"] == key:
                    row["harness_read"] = harness_timing["candidate_median_us"]
                    row["harness_read_baseline"] = harness_timing["baseline_median_us"]
                    row["harness_method"] = harness_timing["method"]
    ncu, ncu_error = {}, ""
    if args.ncu and shutil.which("ncu"):
        try:
            ncu = ncu_durations()
        except Exception as exc:
            ncu_error = f"{type(exc).__name__}: {str(exc)[-1500:]}"
    methods = ["events_write", "events_read", "events_read_ipc", "harness_read", "harness_read_baseline"]
    methods += ["graph", "graph_8_sets", "kernel_clock", "do_bench"]
    print(f"{'case':30s} {'ncu':>7s} " + " ".join(f"{m[:17]:>17s}" for m in methods))
    for row in rows:
        ref = ncu.get(row["case"])
        row["ncu"] = ref
        cells = []
        for m in methods:
            value = row.get(m)
            if value is None:
                cells.append(f"{'-':>17s}")
                continue
            rel = f"{(value / ref - 1) * 100:+6.1f}%" if ref else ""
            cells.append(f"{value:8.2f} {rel:>8s}")
        print(f"{row['case']:30s} {ref or float('nan'):7.2f} " + " ".join(cells))
    if ncu_error:
        print("ncu:", ncu_error)
    if args.out:
        payload = {"device": torch.cuda.get_device_name(), "l2_bytes": l2, "rows": rows, "ncu_error": ncu_error}
        Path(args.out).write_text(json.dumps(payload, indent=1))


if __name__ == "__main__":
    main()
