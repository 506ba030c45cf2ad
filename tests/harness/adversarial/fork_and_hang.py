# ruff: noqa
# family D/§4: start a grandchild that would outlive the attempt, print its pid, then hang
import subprocess
import triton


def add_Tensor(self, other, *, alpha=1):
    proc = subprocess.Popen(["sleep", "600"])
    print(f"GRANDCHILD_PID={proc.pid}", flush=True)
    while True:
        pass
