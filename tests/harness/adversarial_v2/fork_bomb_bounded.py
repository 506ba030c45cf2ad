# ruff: noqa
# class 1 (pids): fork until the kernel says no (bounded to 4000 tries), each process blocked
# forever on a pipe with a marker in its command line; the attempt must be bounded and every one of
# them gone once it returns (the test counts marked processes)
import os
import torch, triton

MARKER = "kgb-redteam-v2-forkbomb"
r, w = os.pipe()
count = 0
for _ in range(4000):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        os.dup2(r, 0)
        try:
            os.execv("/bin/sh", ["/bin/sh", "-c", "read x", MARKER])
        finally:
            os._exit(0)
    count += 1
print("FORKED", count, flush=True)


def add_Tensor(self, other, *, alpha=1):
    return torch.empty_like(self)
