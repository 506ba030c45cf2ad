# ruff: noqa
# family D/§4: start a grandchild that would outlive the attempt, print its marker, then hang
import subprocess
import sys
import uuid
import triton


def add_Tensor(self, other, *, alpha=1):
    marker = f"kgb-grandchild-{uuid.uuid4().hex}"
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", marker], start_new_session=True)
    print(f"GRANDCHILD_MARKER={marker}", flush=True)
    while True:
        pass
