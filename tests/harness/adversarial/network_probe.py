# ruff: noqa
# family §4: phone home (the result says whether the network was reachable)
import socket
import triton


def add_Tensor(self, other, *, alpha=1):
    try:
        socket.create_connection(("1.1.1.1", 53), timeout=2).close()
        outcome = "CONNECTED"
    except OSError as exc:
        outcome = f"NO_NETWORK {exc}"
    raise RuntimeError(outcome)
