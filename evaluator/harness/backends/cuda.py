"""The CUDA backend: NVIDIA GPUs, and the vendors whose torch builds expose the same API (ROCm's
HIP build, Iluvatar, MetaX, Hygon). The only module of the harness that names this device type."""

from __future__ import annotations

import ctypes
import functools
import subprocess

from evaluator.harness.backends import Backend


@functools.cache
def _cudart() -> ctypes.CDLL | None:
    for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    try:  # the runtime bundled with the torch wheel (nvidia-cuda-runtime)
        import nvidia.cuda_runtime  # type: ignore[import-not-found]

        for path in nvidia.cuda_runtime.__path__:
            import glob

            for lib in sorted(glob.glob(f"{path}/lib/libcudart.so*")):
                return ctypes.CDLL(lib)
    except Exception:
        return None
    return None


class CudaBackend(Backend):
    device_type = "cuda"
    dispatch_key = "CUDA"
    autograd_key = "AutogradCUDA"
    interpreter = False
    replays_launches = True
    supports_timing = True
    env_allowlist = (
        "CUDA_VISIBLE_DEVICES",
        "CUDA_HOME",
        "CUDA_PATH",
        "HIP_VISIBLE_DEVICES",
        "ROCR_VISIBLE_DEVICES",
        "NVIDIA_VISIBLE_DEVICES",
        "NVIDIA_DRIVER_CAPABILITIES",
        "LD_LIBRARY_PATH",
        "TRITON_PTXAS_PATH",
        "TRITON_CUOBJDUMP_PATH",
        "TRITON_NVDISASM_PATH",
        "TRITON_LIBCUDA_PATH",
        "TRITON_HIP_LLD_PATH",
    )
    banned_attributes = ("CUDAGraph", "ExternalStream", "_sleep")
    allowed_torch_api = (
        "torch.cuda.current_device",
        "torch.cuda.synchronize",
        "torch.cuda.device_count",
        "torch.cuda.get_device_name",
        "torch.cuda.get_device_capability",
        "torch.cuda.is_available",
        "torch.cuda.device",
        "torch._C._cuda_getDeviceCount",
        "torch.cuda.get_device_properties",
        "torch.cuda.current_stream",
    )

    def child_env(self, workdir: str) -> dict[str, str]:
        import os

        return {"CUDA_CACHE_PATH": os.path.join(workdir, "nv-cache")}

    def available(self) -> bool:
        import torch

        return bool(torch.cuda.is_available())

    def driver(self) -> str:
        import torch

        runtime = torch.version.cuda or torch.version.hip or ""
        try:
            out = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=10,
            )
            version = out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else ""
        except (OSError, subprocess.SubprocessError):
            version = ""
        return f"driver {version}, runtime {runtime}".strip() if version else f"runtime {runtime}"

    def l2_bytes(self) -> int:
        import torch

        return int(getattr(torch.cuda.get_device_properties(torch.cuda.current_device()), "L2_cache_size", 0))

    def graph(self):
        import torch

        return torch.cuda.CUDAGraph()

    def graph_context(self, graph):
        """Capture on a side stream without torch.cuda.graph's gc.collect()/empty_cache(): both
        processes hold tensors shared by CUDA IPC, whose blocks the cache must not reshuffle."""
        import contextlib

        import torch

        @contextlib.contextmanager
        def capture():
            torch.cuda.synchronize()
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                graph.capture_begin()
                try:
                    yield graph
                finally:
                    graph.capture_end()
            torch.cuda.current_stream().wait_stream(stream)

        return capture()

    graph_method = "cuda_graph"

    def spin(self, microseconds: float) -> None:
        import torch

        # cycles at the maximum clock: at a lower clock the spin only lasts longer, which is safe
        torch.cuda._sleep(int(self._clock_khz() * microseconds / 1000))

    @functools.cache  # noqa: B019 - one backend object per process, the clock does not change
    def _clock_khz(self) -> int:
        import torch

        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        return int(getattr(props, "clock_rate", 0) or 1_980_000)

    kernel_clock_marker = "::spin_kernel("  # at::cuda::(anonymous namespace)::spin_kernel(long)

    def kernel_trace(self):
        from evaluator.harness.kernel_clock import KinetoTrace

        return KinetoTrace()

    def reset_persisting_l2(self) -> None:
        lib = _cudart()
        if lib is not None:
            lib.cudaCtxResetPersistingL2Cache()
