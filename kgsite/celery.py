"""The Celery app of the site. Tasks are sent by name to per-chip queues (`chip.<slug>`); the
GPU-side workers are the runner agents (evaluator.runner), which never import Django."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kgsite.settings")

app = Celery("kgsite")
app.config_from_object("django.conf:settings", namespace="CELERY")


@app.on_configure.connect
def _configure_filesystem_broker(sender: Celery, **_: object) -> None:
    from django.conf import settings

    if settings.CELERY_BROKER_URL.startswith("filesystem://"):
        folder = settings.CELERY_BROKER_DIR
        for sub in ("out", "processed"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        sender.conf.broker_transport_options = {
            "data_folder_in": str(folder / "out"),
            "data_folder_out": str(folder / "out"),
            "processed_folder": str(folder / "processed"),
            "store_processed": False,
        }


app.autodiscover_tasks()
