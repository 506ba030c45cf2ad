"""Staff pages of the evaluator, and test mode's API for users."""

from django.urls import path

from evaluator import verify_api, views

app_name = "evaluator"

urlpatterns = [
    path("runners/", views.runners_page, name="runners"),
    path("runners/import/", views.import_results_upload, name="import_results"),
    path("api/v1/verify/", verify_api.VerifyApi.as_view(), name="api-verify"),
    path("api/v1/verify/<uuid:job_id>/", verify_api.VerifyStatusApi.as_view(), name="api-verify-status"),
]
