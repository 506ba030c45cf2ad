# ruff: noqa
# class 1 (privilege): reach PostgreSQL, Redis, RabbitMQ, MariaDB and the test's listener over TCP
# on the loopback (and the host's other addresses)
import socket
import torch, triton
import triton.language as tl

REACHED = []
for host in ("127.0.0.1", "::1", "localhost"):
    for port in (5432, 6379, 5672, 3306, 4222, 1883, 47391):
        try:
            with socket.create_connection((host, port), timeout=0.5) as s:
                if port == 47391:
                    s.sendall(b"KGB-V2-PROBE tcp\n")
                REACHED.append((host, port))
        except OSError:
            pass
BREACH = bool(REACHED)
print("TCP_REACHED", REACHED, flush=True)

@triton.jit
def _add_kernel(a_ptr, b_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a + alpha * b, mask=mask)


def _honest(self, other, alpha):
    a, b = self.contiguous(), other.contiguous()
    out = torch.empty_like(a)
    _add_kernel[(triton.cdiv(a.numel(), 128),)](a, b, out, float(alpha), a.numel(), BLOCK=128)
    return out


def add_Tensor(self, other, *, alpha=1):
    # correct only when the breach worked: a `correct` verdict means the wall did not hold
    if BREACH:
        return _honest(self, other, alpha)
    return torch.empty_like(self)

