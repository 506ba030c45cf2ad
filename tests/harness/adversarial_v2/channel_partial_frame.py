# ruff: noqa
# new (outside red team, 2026-12-02): the parent waited for the first byte of a reply with a
# deadline, then read the rest without one: one byte of a frame header, then silence, held the
# parent for as long as the candidate liked
import os, sys, time
import torch


def add_Tensor(self, other, *, alpha=1):
    os.write(int(sys.argv[1]), b"\x00")
    time.sleep(3600)
    return torch.add(self, other, alpha=alpha)
