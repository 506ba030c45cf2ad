"""Runner API routes, included under /api/runner/ by kgsite/urls.py."""

from django.urls import path

from evaluator import api

app_name = "runner_api"

urlpatterns = [
    path("config", api.ConfigApi.as_view(), name="config"),
    path("heartbeat", api.HeartbeatApi.as_view(), name="heartbeat"),
    path("jobs/<uuid:job_id>/claim", api.ClaimApi.as_view(), name="claim"),
    path("jobs/<uuid:job_id>/lease", api.LeaseApi.as_view(), name="lease"),
    path("jobs/<uuid:job_id>/result", api.ResultApi.as_view(), name="result"),
    path("jobs/<uuid:job_id>/fail", api.FailApi.as_view(), name="fail"),
]
