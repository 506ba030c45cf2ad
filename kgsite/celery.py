"""The Celery app of the site. Tasks are sent by name to per-chip queues (`chip.<slug>`); the
GPU-side workers are the runner agents (evaluator.runner), which never import Django."""

from __future__ import annotations

import os
from pathlib import Path

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kgsite.settings")

app = Celery("kgsite")
app.config_from_object("django.conf:settings", namespace="CELERY")


def ensure_broker_folders() -> None:
    """The filesystem broker needs its folders before the site or a runner touches it."""
    from django.conf import settings

    for key in ("data_folder_in", "data_folder_out", "processed_folder", "control_folder"):
        folder = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get(key)
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)


@app.on_configure.connect
def _create_broker_folders(sender: Celery, **_: object) -> None:
    ensure_broker_folders()


app.autodiscover_tasks()
