"""Not a solution: probes what a candidate process can reach, at import time, and raises the
findings as JSON (the harness reports an import failure's message as the compile error's reason).
SECRET_FILE and MARKER are substituted by the test."""

import ctypes
import json
import os
import socket
import subprocess
import sys

found = {}


def attempt(name, fn):
    try:
        found[name] = ["ok", repr(fn())[:200]]
    except BaseException as exc:  # the probe records every failure
        found[name] = ["refused", type(exc).__name__]


libc = ctypes.CDLL(None, use_errno=True)
found["uid"] = os.getuid()
found["ppid"] = os.getppid()
found["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
attempt("read_secret", lambda: open("SECRET_FILE").read())
attempt("read_root_home", lambda: os.listdir("/root"))
attempt("write_checkout", lambda: open(os.path.join("REPO_ROOT", "evaluator", "kgb_probe_marker.py"), "w").write("x"))
attempt("write_site_packages", lambda: open(os.path.join(os.path.dirname(json.__file__), "kgb_probe.pth"), "w").write("x"))
attempt("stash_var_tmp", lambda: open("/var/tmp/kgb_probe_stash", "w").write("MARKER"))
attempt("read_stash", lambda: open("/var/tmp/kgb_probe_stash_earlier").read())
def unix_connect(path):
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(path)
    return path


attempt("unix_postgres", lambda: unix_connect("/var/run/postgresql/.s.PGSQL.5432"))
attempt("list_run", lambda: os.listdir("/run"))
attempt("list_site_state", lambda: os.listdir(os.path.join("REPO_ROOT", "var")))
attempt("connect_redis", lambda: socket.create_connection(("127.0.0.1", 6379), timeout=1))
found["unshare_user_net"] = [libc.unshare(0x10000000 | 0x40000000), ctypes.get_errno()]
found["ptrace_attach_1"] = [libc.ptrace(16, 1, 0, 0), ctypes.get_errno()]
found["mount_tmpfs"] = [libc.mount(b"tmpfs", b"/mnt", b"tmpfs", 0, None), ctypes.get_errno()]
attempt("setuid_0", lambda: os.setuid(0))
# a daemon that leaves the session and process group; it must not outlive the attempt
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "MARKER"], start_new_session=True)  # its own session already
raise RuntimeError("PROBE" + json.dumps(found) + "EBORP")
