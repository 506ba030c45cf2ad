"""The chip registry: real platforms with their published peaks, our measurements where we have
them, and where each figure comes from.

`manage.py seed_chips` writes these rows (by slug). Two sets of ceilings per chip: the datasheet's
(`peak_bandwidth_gbs`, `peak_tflops`), shown for reference, and ours (`measured_bandwidth_gbs`,
`measured_tflops`, with how and when in `measured`). The site ranks with the measured figure where
there is one and the datasheet's otherwise (evaluator.selectors.chip_ceilings), and sends those
ceilings to the runners with every job, so %SOL and the physical-limit check use the same numbers
on every runner; the harness's own table (evaluator/harness/peaks.py) is only the CLI's fallback.

Datasheet figures are dense (no structured sparsity) unless `sources` says otherwise. A figure we
could not establish from a vendor or a consistent secondary source is None, and `sources` says so:
a wrong roofline is worse than none, because %SOL is computed from these numbers.
"""

from __future__ import annotations

MB = 1024 * 1024

CHIPS: list[dict] = [
    {
        "slug": "h200",
        "name": "NVIDIA H200 SXM",
        "vendor": "NVIDIA",
        "family": "nvidia",
        "device_type": "cuda",
        "triton_backend": "nvidia",
        "l2_bytes": 60 * MB,
        "peak_bandwidth_gbs": 4800.0,
        "peak_tflops": {
            "float64": 34.0,
            "float32": 67.0,
            "tfloat32": 494.5,
            "bfloat16": 989.5,
            "float16": 989.5,
            "float8": 1979.0,
        },
        "measured_bandwidth_gbs": 4400.0,
        "measured_tflops": {"bfloat16": 716.0},
        "measured": {
            "date": "2026-11-29",
            "where": "the lent H200 of this project",
            "sm_count": 132,
            "l2_bytes_reported": 60 * MB,
            "note": "bandwidth from a large device-to-device copy; bf16 matmul on random data (rates on "
            "random data sit below the datasheet peak because of power/clock limits).",
        },
        "sources": "NVIDIA H200 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h200): 4.8 TB/s HBM3e, "
        "same GH100 compute as H100 SXM; the datasheet's tensor figures (1,979 BF16, 3,958 FP8) include 2:4 "
        "sparsity, halved here to dense. L2: 60 MB as reported by torch.cuda.get_device_properties on our H200 "
        "(the H100 whitepaper states 50 MB for H100 SXM5).",
        "timing_meaningful": True,
    },
    {
        "slug": "h100",
        "name": "NVIDIA H100 SXM",
        "vendor": "NVIDIA",
        "family": "nvidia",
        "device_type": "cuda",
        "triton_backend": "nvidia",
        "l2_bytes": 50 * MB,
        "peak_bandwidth_gbs": 3350.0,
        "peak_tflops": {
            "float64": 34.0,
            "float32": 67.0,
            "tfloat32": 494.5,
            "bfloat16": 989.5,
            "float16": 989.5,
            "float8": 1979.0,
        },
        "measured": {},
        "sources": "NVIDIA H100 Tensor Core GPU datasheet and the NVIDIA H100 (Hopper) architecture whitepaper: "
        "3.35 TB/s HBM3 (SXM5), 50 MB L2; datasheet tensor figures with sparsity halved to dense.",
        "timing_meaningful": True,
    },
    {
        "slug": "a100",
        "name": "NVIDIA A100 SXM 80GB",
        "vendor": "NVIDIA",
        "family": "nvidia",
        "device_type": "cuda",
        "triton_backend": "nvidia",
        "l2_bytes": 40 * MB,
        "peak_bandwidth_gbs": 2039.0,
        "peak_tflops": {"float64": 9.7, "float32": 19.5, "tfloat32": 156.0, "bfloat16": 312.0, "float16": 312.0},
        "measured": {},
        "sources": "NVIDIA A100 Tensor Core GPU datasheet (80GB SXM: 2,039 GB/s HBM2e; dense TF32 156, BF16/FP16 "
        "312 TFLOP/s) and the NVIDIA A100 (Ampere) architecture whitepaper (40 MB L2).",
        "timing_meaningful": True,
    },
    {
        "slug": "mi300x",
        "name": "AMD Instinct MI300X",
        "vendor": "AMD",
        "family": "amd",
        "device_type": "cuda",  # ROCm builds of torch expose the device as "cuda"
        "triton_backend": "amd",
        "l2_bytes": 32 * MB,
        "peak_bandwidth_gbs": 5300.0,
        "peak_tflops": {
            "float64": 81.7,
            "float32": 163.4,
            "tfloat32": 653.7,
            "bfloat16": 1307.4,
            "float16": 1307.4,
            "float8": 2614.9,
        },
        "measured": {},
        "sources": "AMD Instinct MI300X data sheet (amd.com): 5.3 TB/s HBM3, dense matrix FP16/BF16 1,307.4, FP8 "
        "2,614.9, TF32 653.7, FP32 163.4 TFLOP/s. L2: 4 MB per XCD x 8 XCDs (the 256 MB Infinity Cache is "
        "not counted here).",
        "timing_meaningful": True,
    },
    {
        "slug": "ascend-910b",
        "name": "Huawei Ascend 910B",
        "vendor": "Huawei",
        "family": "ascend",
        "device_type": "npu",
        "triton_backend": "triton-ascend",
        "l2_bytes": None,
        "peak_bandwidth_gbs": None,
        "peak_tflops": {"float16": 320.0},
        "measured": {},
        "sources": "Huawei publishes no public datasheet for the 910B. FP16 ~320 TFLOP/s is the figure repeated by "
        "secondary sources (e.g. boardor.com 'Huawei Ascend 910B outperforms H20'); its memory bandwidth is "
        "quoted inconsistently (0.4, 1.2 and 1.6 TB/s in different secondary sources) and its L2 size not at "
        "all, so both are left null.",
        "timing_meaningful": True,
    },
    {
        "slug": "mtt-s4000",
        "name": "Moore Threads MTT S4000",
        "vendor": "Moore Threads",
        "family": "moore_threads",
        "device_type": "musa",
        "triton_backend": "triton-musa",
        "l2_bytes": None,
        "peak_bandwidth_gbs": 768.0,
        "peak_tflops": {"float32": 25.0, "tfloat32": 50.0, "bfloat16": 100.0, "float16": 100.0},
        "measured": {},
        "sources": "Moore Threads launch of the MTT S4000 (December 2023), as reported by io-tech.fi and tweakpc.de: "
        "48 GB GDDR6 on 384 bit at 768 GB/s, FP32 25, TF32 50, FP16/BF16 100 TFLOP/s, INT8 200 TOPS. "
        "L2 size not published: null.",
        "timing_meaningful": True,
    },
    {
        "slug": "mtt-s5000",
        "name": "Moore Threads MTT S5000",
        "vendor": "Moore Threads",
        "family": "moore_threads",
        "device_type": "musa",
        "triton_backend": "triton-musa",
        "l2_bytes": None,
        "peak_bandwidth_gbs": 1600.0,
        "peak_tflops": {"float8": 1000.0},
        "measured": {},
        "sources": "Secondary report of the Moore Threads S5000 launch (ldeepai.com): 80 GB at 1.6 TB/s and "
        "'1000 TFLOPS' single-card FP8. Whether that FP8 figure is dense is not stated; no BF16/FP32 figure "
        "and no L2 size could be established: null.",
        "timing_meaningful": True,
    },
    {
        "slug": "hygon-bw1000",
        "name": "Hygon BW1000",
        "vendor": "Hygon",
        "family": "hygon",
        "device_type": "cuda",  # Hygon DCU torch (DTK/ROCm lineage) exposes the device as "cuda"
        "triton_backend": "amd",
        "l2_bytes": None,
        "peak_bandwidth_gbs": None,
        "peak_tflops": {},
        "measured": {},
        "sources": "No public datasheet or consistent secondary figure for the BW1000 could be found: bandwidth, "
        "L2 and compute peaks are null until a runner operator supplies vendor figures.",
        "timing_meaningful": True,
    },
    {
        "slug": "iluvatar-bi-v150",
        "name": "Iluvatar CoreX BI-V150",
        "vendor": "Iluvatar CoreX",
        "family": "iluvatar",
        "device_type": "cuda",  # Iluvatar's CUDA-compatible torch build
        "triton_backend": "iluvatar",
        "l2_bytes": None,
        "peak_bandwidth_gbs": None,
        "peak_tflops": {},
        "measured": {},
        "sources": "Iluvatar publishes figures for the earlier BI (Big Island: 1.2 TB/s HBM2, FP16 147 TFLOP/s, "
        "geektopia.es/TechPowerUp 2021) but none we could find for the BI-V150: all peaks null.",
        "timing_meaningful": True,
    },
    {
        "slug": "metax-c550",
        "name": "MetaX C550",
        "vendor": "MetaX",
        "family": "metax",
        "device_type": "cuda",  # MetaX MACA torch build exposes the device as "cuda"
        "triton_backend": "metax",
        "l2_bytes": None,
        "peak_bandwidth_gbs": None,
        "peak_tflops": {},
        "measured": {},
        "sources": "No public datasheet for the C550 could be found (secondary sources only describe C550 "
        "clusters; the earlier C500 is quoted at FP32 15 TFLOP/s): all peaks null.",
        "timing_meaningful": True,
    },
    {
        "slug": "cpu",
        "name": "CPU (Triton interpreter)",
        "vendor": "Generic",
        "family": "cpu",
        "device_type": "cpu",
        "triton_backend": "interpreter",
        "l2_bytes": None,
        "peak_bandwidth_gbs": None,
        "peak_tflops": {},
        "measured": {},
        "sources": "TRITON_INTERPRET=1 on the host CPU: checks correctness only; timings are not comparable to "
        "any accelerator and no speedup or %SOL is reported.",
        "timing_meaningful": False,
    },
]
