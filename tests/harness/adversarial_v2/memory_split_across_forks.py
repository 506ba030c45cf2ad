# ruff: noqa
# class 1 (memory), not in issue 20: RLIMIT_AS bounds one process, not the attempt. Fork three
# processes that each touch 45% of the limit at once; the sum is what the machine pays. The parent
# answers correctly only if all three held their memory together (the limit was per process)
import os, resource, time
import torch, triton
import triton.language as tl

limit = resource.getrlimit(resource.RLIMIT_AS)[0]
share = int(min(limit if limit > 0 else 3 << 30, 3 << 30) * 0.45)
pids, r, w = [], *os.pipe()
for i in range(3):
    pid = os.fork()
    if pid == 0:
        try:
            block = bytearray(share)
            for j in range(0, share, 4096):
                block[j] = 1
            os.write(w, b"1")
            time.sleep(3)
        except BaseException:
            os.write(w, b"0")
        os._exit(0)
    pids.append(pid)
got = b""
while len(got) < 3:
    got += os.read(r, 3)
for pid in pids:
    os.waitpid(pid, 0)
HELD = got.count(b"1")
BREACH = HELD == 3
print("MEM_HELD", HELD, "x", share, "limit", limit, flush=True)


@triton.jit
def _add_kernel(a_ptr, b_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask) + alpha * tl.load(b_ptr + offs, mask=mask), mask=mask)


def add_Tensor(self, other, *, alpha=1):
    if not BREACH:
        return torch.empty_like(self)
    a, b = self.contiguous(), other.contiguous()
    out = torch.empty_like(a)
    _add_kernel[(1,)](a, b, out, float(alpha), a.numel(), BLOCK=128)
    return out
