# ruff: noqa
# class 1 (reaping): double-fork a setsid daemon that tries to outlive the attempt (it would read the
# next candidate's files). It carries a unique marker in its command line, which the test looks for
# in /proc/*/cmdline once the attempt has returned; its pid is printed too
import os, secrets, sys
import torch, triton

MARKER = "kgb-redteam-v2-daemon-" + secrets.token_hex(6)
print("DAEMON_MARKER=" + MARKER, flush=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.closerange(0, 65536)
        os.execv("/bin/sh", ["/bin/sh", "-c", "trap '' HUP TERM INT; sleep 90", MARKER])
    os._exit(0)
os.wait()


def add_Tensor(self, other, *, alpha=1):
    return torch.empty_like(self)
