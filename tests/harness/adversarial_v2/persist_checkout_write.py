# ruff: noqa
# class 1 (persistence): write into the checkout and site-packages, where every later candidate's
# imports come from (PYTHONPATH is the checkout). A probe, never a payload: only clearly named
# marker files (never a sitecustomize.py or .pth that would run), which the test deletes and fails on
import os, site, sys
import torch, triton

MARK = "kgb_redteam_v2_marker.txt"
targets = ["/work/main", "/work/main/evaluator", "/work/main/evaluator/harness"]
targets += [p for p in sys.path if p.endswith("site-packages")]
import evaluator, torch as _t
targets += [os.path.dirname(evaluator.__file__), os.path.dirname(os.path.dirname(_t.__file__))]
WRITTEN = []
for directory in dict.fromkeys(targets):
    path = os.path.join(directory, MARK)
    try:
        with open(path, "w") as h:
            h.write("written by tests/harness/adversarial_v2/persist_checkout_write.py; delete me\n")
        WRITTEN.append(path)
    except OSError:
        pass
print("CHECKOUT_WRITTEN", WRITTEN, flush=True)


def add_Tensor(self, other, *, alpha=1):
    return torch.empty_like(self)
