"""Staff pages of the evaluator."""

from django.urls import path

from evaluator import views

app_name = "evaluator"

urlpatterns = [
    path("runners/", views.runners_page, name="runners"),
    path("runners/import/", views.import_results_upload, name="import_results"),
]
