"""Pluggable vendor backends over `torch.<device type>` modules (Ascend npu, Moore Threads musa,
Intel xpu, Cambricon mlu). Their torch forks mirror the torch.cuda API (synchronize, Event,
get_device_name), so one generic class serves them; timing stays off until a port is measured."""

from __future__ import annotations

import importlib

from evaluator.harness.backends import Backend


class VendorBackend(Backend):
    vendor_module: str = ""  # the plug-in that adds torch.<device_type> (torch_npu, torch_musa, ...)

    def available(self) -> bool:
        import torch

        if self.vendor_module:
            try:
                importlib.import_module(self.vendor_module)
            except ImportError:
                return False
        module = getattr(torch, self.device_type, None)
        return bool(module is not None and module.is_available())


class NpuBackend(VendorBackend):
    device_type = "npu"
    dispatch_key = "PrivateUse1"
    autograd_key = "AutogradPrivateUse1"
    vendor_module = "torch_npu"
    env_allowlist = ("ASCEND_RT_VISIBLE_DEVICES", "ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")
    allowed_torch_api = (
        "torch.npu.synchronize",
        "torch.npu.current_device",
        "torch.npu.device_count",
        "torch.npu.is_available",
        "torch.npu.device",
    )


class MusaBackend(VendorBackend):
    device_type = "musa"
    dispatch_key = "PrivateUse1"
    autograd_key = "AutogradPrivateUse1"
    vendor_module = "torch_musa"
    env_allowlist = ("MUSA_VISIBLE_DEVICES", "MUSA_HOME")
    allowed_torch_api = (
        "torch.musa.synchronize",
        "torch.musa.current_device",
        "torch.musa.device_count",
        "torch.musa.is_available",
        "torch.musa.device",
    )


class XpuBackend(VendorBackend):
    device_type = "xpu"
    dispatch_key = "XPU"
    autograd_key = "AutogradXPU"
    env_allowlist = ("ZE_AFFINITY_MASK", "ONEAPI_DEVICE_SELECTOR")
    allowed_torch_api = (
        "torch.xpu.synchronize",
        "torch.xpu.current_device",
        "torch.xpu.device_count",
        "torch.xpu.is_available",
        "torch.xpu.device",
    )


class MluBackend(VendorBackend):
    device_type = "mlu"
    dispatch_key = "PrivateUse1"
    autograd_key = "AutogradPrivateUse1"
    vendor_module = "torch_mlu"
    env_allowlist = ("MLU_VISIBLE_DEVICES", "NEUWARE_HOME")
    allowed_torch_api = (
        "torch.mlu.synchronize",
        "torch.mlu.current_device",
        "torch.mlu.device_count",
        "torch.mlu.is_available",
        "torch.mlu.device",
    )


VENDOR_BACKENDS: tuple[type[VendorBackend], ...] = (NpuBackend, MusaBackend, XpuBackend, MluBackend)
