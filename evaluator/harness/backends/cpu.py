"""The CPU backend: Triton's interpreter runs the kernels (TRITON_INTERPRET=1); correctness only."""

from __future__ import annotations

import platform

from evaluator.harness.backends import Backend


class CpuBackend(Backend):
    device_type = "cpu"
    dispatch_key = "CPU"
    autograd_key = "AutogradCPU"
    interpreter = True
    supports_timing = False

    def available(self) -> bool:
        return True

    def child_env(self, workdir: str) -> dict[str, str]:
        return {"TRITON_INTERPRET": "1"}

    def initialise(self) -> None:
        import torch

        torch.zeros(1)

    def synchronize(self) -> None:
        return None

    def device_name(self) -> str:
        return platform.processor() or platform.machine()

    def driver(self) -> str:
        return "triton-interpreter"
