"""Staff-only pages: the runner fleet, queues, jobs in flight, and results-file uploads."""

from __future__ import annotations

import json

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from evaluator import selectors, services
from kgsite.errors import ApplicationError

MAX_RESULTS_FILE_BYTES = 16 * 1024 * 1024


class ResultsUploadForm(forms.Form):
    results_file = forms.FileField(
        help_text="A results bundle (kgb.results/1) from `python -m evaluator bundle run`, signed with the runner's key."
    )
    runner_name = forms.CharField(
        required=False, max_length=100, help_text="Optional: refuse the file unless this runner signed it."
    )


def _require_staff(request: HttpRequest) -> None:
    # a 403 for everyone not staff (also anonymous): the page is not part of the public site
    if not (request.user.is_authenticated and request.user.is_staff):
        raise PermissionDenied("staff only")


def runners_page(request: HttpRequest) -> HttpResponse:
    _require_staff(request)
    context = {
        "runner_rows": selectors.runner_rows(),
        "queues": selectors.queue_depth_per_chip(),
        "in_flight": selectors.jobs_in_flight(),
        "upload_form": ResultsUploadForm(),
    }
    return render(request, "evaluator/runners.html", context)


@require_POST
def import_results_upload(request: HttpRequest) -> HttpResponse:
    _require_staff(request)
    form = ResultsUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, "Choose a results file to upload.")
        return redirect("evaluator:runners")
    upload = form.cleaned_data["results_file"]
    if upload.size > MAX_RESULTS_FILE_BYTES:
        messages.error(request, f"The file is larger than {MAX_RESULTS_FILE_BYTES // (1024 * 1024)} MiB.")
        return redirect("evaluator:runners")
    try:
        bundle = json.loads(upload.read().decode("utf-8"))
        summary = services.import_results(
            bundle=bundle, runner_name=form.cleaned_data["runner_name"] or None, user=request.user
        )
    except (UnicodeDecodeError, json.JSONDecodeError):
        messages.error(request, "The file is not UTF-8 JSON.")
    except ApplicationError as error:  # shown on the page the file was uploaded from, not as an error page
        messages.error(request, f"Refused: {error.message}")
    else:
        text = f"Imported from runner {summary.runner.name}: {summary.recorded} recorded, {summary.duplicates} already recorded"
        if summary.runner_failures:
            text += f", {len(summary.runner_failures)} without a verdict (left queued)"
        messages.success(request, text + ".")
    return redirect("evaluator:runners")
