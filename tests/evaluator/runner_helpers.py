"""Helpers shared by the runner agent tests and the fault tests: interpreters that refuse to import Django,
so a test fails if the runner agent (which runs on machines without the site) starts depending on it."""

import os
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

NO_DJANGO = textwrap.dedent(
    """
    import sys

    class RefuseDjango:
        def find_spec(self, name, path=None, target=None):
            if name == "django" or name.startswith("django."):
                raise ImportError("the runner agent imported " + name)
            return None

    sys.meta_path.insert(0, RefuseDjango())
    """
)


def write_no_django_sitecustomize(folder: Path) -> dict:
    """An environment whose interpreters refuse to import Django (for agent subprocesses)."""
    (folder / "sitecustomize.py").write_text(NO_DJANGO)
    environment = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    environment["PYTHONPATH"] = os.pathsep.join([str(folder), str(ROOT)])
    return environment
