# ruff: noqa
# class 1 (persistence): stash a file in /tmp, /var/tmp, /dev/shm, $HOME/.. and the working
# directory's parent, for a later candidate (persist_tmp_read.py) to print
import os
import torch, triton

MARK = "kgb-redteam-v2-stash"
STASHED = []
for directory in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue", os.path.dirname(os.getcwd())):
    try:
        with open(os.path.join(directory, MARK), "w") as h:
            h.write("stashed by tests/harness/adversarial_v2/persist_tmp_stash.py\n")
        os.chmod(os.path.join(directory, MARK), 0o666)
        STASHED.append(directory)
    except OSError:
        pass
print("STASHED", STASHED, flush=True)


def add_Tensor(self, other, *, alpha=1):
    return torch.empty_like(self)
