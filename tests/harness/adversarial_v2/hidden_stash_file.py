# ruff: noqa
# class 8 (held-out side channel), passes no static policy (it writes files): every call records the
# shape it sees in shared temporary places; every call first raises whatever an earlier call (of any
# child) recorded, so a hidden shape would surface in a public case's reason or in stderr. Shapes
# past 64 elements (the hidden ones) get a wrong answer, so the verdict is never correct
import os
import torch, triton
import triton.language as tl

PLACES = ["/var/tmp/kgb-redteam-v2-hidden", "/dev/shm/kgb-redteam-v2-hidden", "/tmp/kgb-redteam-v2-hidden",
          os.path.join(os.path.dirname(os.getcwd()), "kgb-redteam-v2-hidden")]


@triton.jit
def _add_kernel(a_ptr, b_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask) + alpha * tl.load(b_ptr + offs, mask=mask), mask=mask)


def add_Tensor(self, other, *, alpha=1):
    seen = []
    for place in PLACES:
        try:
            with open(place) as h:
                seen.append(h.read())
        except OSError:
            pass
    for place in PLACES:
        try:
            with open(place, "a") as h:
                h.write(f"shape {list(self.shape)} numel {self.numel()}\n")
            os.chmod(place, 0o666)
        except OSError:
            pass
    print("HIDDEN_SEEN", seen, flush=True)
    if seen and self.numel() <= 64:
        raise RuntimeError("earlier shapes: " + " ".join(seen))
    a, b = self.contiguous(), other.contiguous()
    out = torch.empty_like(a)
    if a.numel() > 64:
        return out
    _add_kernel[(triton.cdiv(a.numel(), 1024),)](a, b, out, float(alpha), a.numel(), BLOCK=1024)
    return out
