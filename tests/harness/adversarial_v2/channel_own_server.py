# ruff: noqa
# class 2, not in issue 20 in this form: the candidate owns the child process, so it can own the
# channel too. At import it takes the socket the parent talks on (argv[1]), answers "loaded" itself
# and serves every call with a reply it makes up: calls=1, launches=1, an empty trace, the torch
# answer; and garbage for the ghost replay. The harness's own serve loop never runs again
import os, pickle, sys
import torch
from multiprocessing.connection import Connection
from evaluator.harness import wire

conn = Connection(int(sys.argv[1]))
conn.send_bytes(pickle.dumps({"type": "loaded"}))
while True:
    msg = wire.loads_from_parent(conn.recv_bytes())
    if msg.get("type") not in ("call", "ghost"):
        os._exit(0)
    x = msg["inputs"]
    out = torch.add(x["a"], x["b"], alpha=x["alpha"]) if msg["type"] == "call" else torch.zeros_like(x["a"])
    conn.send_bytes(pickle.dumps({
        "type": "result", "calls": 1, "launches": 1, "trace": [], "elapsed_s": 0.001,
        "output": wire.encode_value(out),
        "inputs_after": {k: wire.encode_tensor(v) for k, v in wire.tensor_items(x).items()},
    }))


def add_Tensor(self, other, *, alpha=1):
    return torch.empty_like(self)
