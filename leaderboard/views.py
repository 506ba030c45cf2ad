"""HTML pages of the public site. Thin: parse the request, call a selector or service, render.

Refusals (kgsite.errors) are not caught here: kgsite.error_handlers turns them into the error page,
except where a form shows them inline (the upload form)."""

from __future__ import annotations

import csv
import inspect
import io
from urllib.parse import urlencode

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import NON_FIELD_ERRORS
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views import defaults
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from evaluator import selectors as evaluator_selectors
from kgsite import docs as site_docs
from kgsite import downloads
from kgsite.errors import ApplicationError
from leaderboard import charts, selectors, services
from leaderboard.forms import LeaderboardFilterForm, SignUpForm, SubmissionUploadForm
from leaderboard.login_throttle import (
    THROTTLED,
    ThrottledAuthenticationForm,
    login_try,
    record_login_success,
    set_device_cookie,
)
from leaderboard.throttles import signup_throttle_allows, submission_throttle_allows
from operators.models import OperatorSource

LEADERBOARD_PAGE_SIZE = 50  # rows per page; the downloads hold every row
# Plotly writes its own stylesheet into <style> elements and style="" attributes at run time (no option turns
# that off); without them its charts lose their layout and hover. Pages that draw charts allow inline styles,
# never inline scripts (settings.CONTENT_SECURITY_POLICY keeps script-src 'self' everywhere).
CHART_PAGE_CSP = {"style-src": [UNSAFE_INLINE]}


def export_response(export: selectors.Export, fmt: str) -> HttpResponse:
    """The same rows as the page, as CSV or JSON (`?format=csv|json` on any table's URL). The file name
    and the CSV cells go through kgsite.downloads (no header injection, no spreadsheet formulas)."""
    if fmt == "json":
        response = JsonResponse({"count": len(export.rows), "results": export.rows}, json_dumps_params={"indent": 1})
        response["Content-Disposition"] = downloads.attachment(export.filename, "json")
        return response
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=export.fields, extrasaction="ignore")
    writer.writerow({k: downloads.csv_cell(k) for k in export.fields})  # headers too: some are chip slugs
    for row in export.rows:
        writer.writerow({k: downloads.csv_cell(row.get(k)) for k in export.fields})
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = downloads.attachment(export.filename, "csv")
    return response


def _export_format(request: HttpRequest) -> str | None:
    fmt = request.GET.get("format", "")
    return fmt if fmt in ("csv", "json") else None


def _querystring(request: HttpRequest, **changes) -> str:
    query = request.GET.copy()
    for key, value in changes.items():
        if value is None:
            query.pop(key, None)
        else:
            query[key] = value
    return query.urlencode()


def _leaderboard_view(request: HttpRequest, filters: selectors.LeaderboardFilters) -> selectors.LeaderboardView:
    """The view the URL asks for; without a `chip` in it, the site's default cohort (the flagship chip)."""
    return selectors.leaderboard_view(
        filters=filters,
        viewer=request.user,
        chip_chosen="chip" in request.GET,
        tier_chosen=bool(request.GET.get("tier")),
    )


def _cohort_links(request: HttpRequest, view: selectors.LeaderboardView, *, base: str, keep: bool) -> dict:
    """Links to every cohort of the view and to all chips at once; `keep`: the other parameters of this URL too."""

    def url(**changes) -> str:
        if keep:
            return base + "?" + _querystring(request, page=None, **changes)
        return base + "?" + urlencode({k: v for k, v in changes.items() if v is not None})

    current = view.current.key if view.current else None
    return {
        "cohorts": [
            {"cohort": c, "url": url(chip=c.chip, tier=c.tier), "current": c.key == current} for c in view.cohorts
        ],
        "all_chips_url": url(chip="", tier=None),
        "all_chips_current": not view.filters.chip,
    }


def home(request: HttpRequest) -> HttpResponse:
    view = selectors.leaderboard_view(filters=selectors.LeaderboardFilters(), viewer=request.user, chip_chosen=False)
    stats = selectors.site_stats(viewer=request.user)
    return render(
        request,
        "home.html",
        {
            "view": view,
            "rows": view.rows[:8],
            "stats": stats,
            "columns": selectors.LEADERBOARD_COLUMNS,
            "column_choice": selectors.leaderboard_columns(requested=[], one_chip=view.one_chip),
            "cohort_links": _cohort_links(request, view, base=reverse("leaderboard"), keep=False),
            "reported": selectors.reported_for_leaderboard(source="all")[:5],
        },
    )


@csp_update(CHART_PAGE_CSP)
def leaderboard(request: HttpRequest) -> HttpResponse:
    form = LeaderboardFilterForm(request.GET or None, viewer=request.user)
    view = _leaderboard_view(request, form.filters() if request.GET else selectors.LeaderboardFilters())
    filters, rows = view.filters, view.rows
    fmt = _export_format(request)
    if fmt:
        return export_response(selectors.leaderboard_export(filters=filters, rows=rows), fmt)
    if view.by_default:  # the form shows the chip and tier picked for the reader
        form.show(chip=filters.chip, tier=filters.tier)
    columns = selectors.leaderboard_columns(requested=request.GET.getlist("cols"), one_chip=view.one_chip)
    reported = selectors.reported_for_leaderboard(source=filters.source)
    page = Paginator(rows, LEADERBOARD_PAGE_SIZE).get_page(request.GET.get("page"))
    pareto = charts.pareto_chart(rows)
    speedups = charts.speedup_distribution_chart(selectors.speedup_distributions(rows=rows, source=filters.source))
    sort_links = {}
    for column in [*selectors.LEADERBOARD_COLUMNS, selectors.Column("name", "Submission", "text")]:
        active = filters.sort == column.key
        next_sort = column.key if active and filters.desc else f"-{column.key}"
        sort_links[column.key] = {
            "url": "?" + _querystring(request, sort=next_sort, page=None),
            "active": active,
            "aria": ("descending" if filters.desc else "ascending") if active else "none",
        }
    return render(
        request,
        "leaderboard/leaderboard.html",
        {
            "form": form,
            "filters": filters,
            "rows": page.object_list,
            "page": page,
            "view": view,
            "total_rows": len(rows),
            "prev_url": "?" + _querystring(request, page=page.previous_page_number()) if page.has_previous() else None,
            "next_url": "?" + _querystring(request, page=page.next_page_number()) if page.has_next() else None,
            "columns": selectors.LEADERBOARD_COLUMNS,
            "column_choice": columns,
            "column_keep": [(k, v) for k, values in request.GET.lists() if k not in ("cols", "page") for v in values],
            "cohort_links": _cohort_links(request, view, base="", keep=True),
            "sort_links": sort_links,
            "reported": reported,
            "pareto_chart": pareto,
            "speedup_chart": speedups,
            "csv_url": "?" + _querystring(request, format="csv"),
            "json_url": "?" + _querystring(request, format="json"),
            "min_operators": view.preliminary_minimum,
        },
    )


def _default_chip(request: HttpRequest) -> str:
    """The chip the MS view compares sources on: the requested one when it is a chip's slug, else the chip
    with the most results (an unknown value, even one with CR/LF, is ignored with a message)."""
    chip = request.GET.get("chip", "")
    if chip and evaluator_selectors.chip_for_slug(slug=chip) is not None:
        return chip
    if chip and not _export_format(request):
        messages.warning(request, "The chip in this link is not known; showing the chip with the most results.")
    return selectors.busiest_chip_slug()


def multi_source(request: HttpRequest) -> HttpResponse:
    chip = _default_chip(request)
    data = request.GET.copy()
    data["chip"] = chip
    form = LeaderboardFilterForm(data, viewer=request.user, chip_required=True)
    filters = form.filters(chip=chip, source="all")
    columns, rows = selectors.multi_source(filters=filters, viewer=request.user)
    fmt = _export_format(request)
    if fmt:
        return export_response(selectors.multi_source_export(chip=chip, columns=columns, rows=rows), fmt)
    reported_columns, reported_rows = selectors.reported_pivot(table="multi_source")
    return render(
        request,
        "leaderboard/multi_source.html",
        {
            "form": form,
            "filters": filters,
            "columns": columns,
            "rows": rows,
            "chip": evaluator_selectors.chip_for_slug(slug=chip),
            "reported_columns": reported_columns,
            "reported_rows": reported_rows,
            "csv_url": "?" + _querystring(request, format="csv"),
            "json_url": "?" + _querystring(request, format="json"),
        },
    )


@csp_update(CHART_PAGE_CSP)
def multi_chip(request: HttpRequest) -> HttpResponse:
    form = LeaderboardFilterForm(request.GET or None, viewer=request.user)
    filters = form.filters() if request.GET else selectors.LeaderboardFilters()
    chips, reference, rows = selectors.multi_chip(
        filters=filters, viewer=request.user, reference=request.GET.get("reference", "")
    )
    fmt = _export_format(request)
    if fmt:
        return export_response(selectors.multi_chip_export(chips=chips, reference=reference, rows=rows), fmt)
    reported_columns, reported_rows = selectors.reported_pivot(table="multi_chip")
    return render(
        request,
        "leaderboard/multi_chip.html",
        {
            "form": form,
            "filters": filters,
            "chips": chips,
            "reference": reference,
            "rows": rows,
            "heatmap": charts.chip_heatmap(chips, rows),
            "reference_links": [(c, "?" + _querystring(request, reference=c.slug)) for c in chips],
            "reported_columns": reported_columns,
            "reported_rows": reported_rows,
            "csv_url": "?" + _querystring(request, format="csv"),
            "json_url": "?" + _querystring(request, format="json"),
        },
    )


def reported(request: HttpRequest) -> HttpResponse:
    fmt = _export_format(request)
    if fmt:
        return export_response(selectors.reported_export(table=request.GET.get("table", "")), fmt)
    ms_columns, ms_rows = selectors.reported_pivot(table="multi_source")
    mc_columns, mc_rows = selectors.reported_pivot(table="multi_chip")
    return render(
        request,
        "leaderboard/reported.html",
        {
            "ms_columns": ms_columns,
            "ms_rows": ms_rows,
            "mc_columns": mc_columns,
            "mc_rows": mc_rows,
            "cost_rows": selectors.reported_rows(table="cost"),
            "csv_url": "?" + _querystring(request, format="csv"),
            "json_url": "?" + _querystring(request, format="json"),
        },
    )


# --- detail pages ---------------------------------------------------------------------------------------------


def _submission_results(request: HttpRequest, submission, chips, operator_rows) -> dict:
    """What the submission page's tables show (the page, and each progress poll that swaps them in place)."""
    verdict = request.GET.get("verdict", "")
    return {
        "submission": submission,
        "summary": selectors.submission_rows(submission_id=submission.pk),
        "columns": selectors.LEADERBOARD_COLUMNS,
        "chips": chips,
        "operator_rows": operator_rows,
        "attempt_rows": selectors.submission_attempt_rows(submission=submission, verdict=verdict),
        "verdict": verdict,
        "progress": selectors.submission_progress(submission=submission),
        "queue": selectors.submission_queue(submission=submission),
        "can_change": selectors.can_delete(submission=submission, viewer=request.user),
    }


def submission_detail(request: HttpRequest, pk) -> HttpResponse:
    submission = selectors.submission_for_viewer(pk=pk, viewer=request.user)
    chips, operator_rows = selectors.submission_operator_table(submission=submission)
    fmt = _export_format(request)
    if fmt:
        return export_response(selectors.submission_export(submission=submission, chips=chips, rows=operator_rows), fmt)
    return render(
        request,
        "leaderboard/submission_detail.html",
        {
            **_submission_results(request, submission, chips, operator_rows),
            "can_delete": selectors.can_delete(submission=submission, viewer=request.user),
            "csv_url": "?format=csv",
            "json_url": "?format=json",
        },
    )


def submission_progress(request: HttpRequest, pk) -> HttpResponse:
    """The progress fragment, polled by htmx every few seconds while jobs are pending; the tables come with it
    (swapped out of band), so a verdict shows up, and the final tables after completion, without a reload."""
    submission = selectors.submission_for_viewer(pk=pk, viewer=request.user)
    chips, operator_rows = selectors.submission_operator_table(submission=submission)
    response = render(
        request,
        "leaderboard/_progress_poll.html",
        _submission_results(request, submission, chips, operator_rows),
    )
    response["Cache-Control"] = "no-store"
    return response


@require_POST
@login_required
def submission_cancel(request: HttpRequest, pk) -> HttpResponse:
    submission = selectors.submission_for_viewer(pk=pk, viewer=request.user)
    cancelled = services.cancel_submission(submission=submission, user=request.user)
    messages.success(request, f"Cancelled {cancelled} pending job{'s' if cancelled != 1 else ''}.")
    return redirect("submission_detail", pk=submission.pk)


@require_POST
@login_required
def submission_retarget(request: HttpRequest, pk) -> HttpResponse:
    submission = selectors.submission_for_viewer(pk=pk, viewer=request.user)
    jobs = services.retarget_submission(
        submission=submission, chip_slug=request.POST.get("chip", ""), user=request.user
    )
    messages.success(request, f"Re-targeted to {submission.target_chip.name}: {len(jobs)} jobs queued there.")
    return redirect("submission_detail", pk=submission.pk)


@require_POST
@login_required
def submission_delete(request: HttpRequest, pk) -> HttpResponse:
    submission = selectors.submission_for_viewer(pk=pk, viewer=request.user)
    services.delete_submission(submission=submission, user=request.user)
    messages.success(request, f"Submission “{submission.name}” deleted.")
    return redirect("account")


def attempt_detail(request: HttpRequest, pk: int) -> HttpResponse:
    attempt = selectors.attempt_for_viewer(pk=pk, viewer=request.user)
    submission = attempt.submission
    evaluations = selectors.attempt_evaluations(attempt=attempt)
    formatter = HtmlFormatter(linenos="table", cssclass="highlight", wrapcode=True)
    return render(
        request,
        "leaderboard/attempt_detail.html",
        {
            "attempt": attempt,
            "submission": submission,
            "evaluations": evaluations,
            "source_html": highlight(attempt.source, PythonLexer(), formatter),
            "total_tokens": attempt.prompt_tokens + attempt.completion_tokens,
            "ranked_protocol": settings.KGB_RANKED_TIMING_PROTOCOL,
        },
    )


def operator_detail(request: HttpRequest, pk: str) -> HttpResponse:
    operator = selectors.catalog_operator(pk=pk)
    spec = _spec(operator.id)
    checked = selectors.vendor_check(operator=operator)
    return render(
        request,
        "leaderboard/operator_detail.html",
        {
            "operator": operator,
            "fidelity": selectors.public_fidelity(operator=operator, checked=checked),
            "vendor_check": checked,
            "reference_html": _reference_html(spec),
            "prompt": _prompt(spec),
            "best": selectors.best_solutions(operator_id=operator.id, viewer=request.user),
            "tiers": selectors.operator_tiers(operator=operator),
            "case_tables": selectors.catalog_cases(spec=spec) if spec else [],
            "tolerance": selectors.tolerance_summary(spec=spec) if spec else None,
        },
    )


def operator_list(request: HttpRequest) -> HttpResponse:
    source = request.GET.get("source", "")
    fmt = _export_format(request)
    if fmt:
        return export_response(selectors.operator_export(source=source), fmt)
    q = request.GET.get("q", "").strip()[:80]
    sort = request.GET.get("sort", "") or "id"
    chips, rows = selectors.operator_rows(source=source, q=q, sort=sort)
    return render(
        request,
        "leaderboard/operator_list.html",
        {
            "rows": rows,
            "chips": chips,
            "q": q,
            "sort": sort,
            "sort_links": {
                key: "?" + _querystring(request, sort=f"-{key}" if sort == key else key)
                for key in selectors.OPERATOR_SORTS
            },
            "source": source,
            "source_choices": OperatorSource.choices,
            "csv_url": "?" + _querystring(request, format="csv"),
            "json_url": "?" + _querystring(request, format="json"),
        },
    )


def _spec(operator_id: str):
    """The catalog spec, when the catalog has it (the DB row can outlive its spec)."""
    try:
        from operators import registry

        return registry.get(operator_id)
    except Exception:  # an unknown id or a broken catalog module must not take the page down
        return None


def _reference_html(spec) -> str | None:
    function = spec and (spec.reference or spec.reference_impl)
    if not function:
        return None
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return None
    return highlight(source, PythonLexer(), HtmlFormatter(cssclass="highlight", wrapcode=True))


def _prompt(spec) -> str | None:
    if spec is None:
        return None
    try:
        from operators.prompts import render_prompt

        return render_prompt(spec)
    except Exception:  # the prompt is an optional part of the page
        return None


# --- accounts and uploads ----------------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("account")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and not signup_throttle_allows(request):
        # refused before the form is validated (the password validators are not free)
        messages.error(request, "Too many sign-ups from this address: please try again later.")
        return render(request, "registration/signup.html", {"form": SignUpForm()}, status=429)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, "Welcome! Your account is ready; create an API token below to submit from the CLI.")
        record_login_success(login_try(request, user.get_username()))  # this address is the account's first usual one
        response = redirect("account")
        set_device_cookie(response, username=user.get_username())
        return response
    return render(request, "registration/signup.html", {"form": form})


class LoginView(auth_views.LoginView):
    """Django's login page with failed logins throttled: a refused try is a 429 with the form's message."""

    form_class = ThrottledAuthenticationForm

    def form_valid(self, form: ThrottledAuthenticationForm) -> HttpResponse:
        response = super().form_valid(form)
        # this browser is now a device of the account: failures elsewhere never lock it out (login_throttle)
        set_device_cookie(response, username=form.get_user().get_username())
        return response

    def form_invalid(self, form: ThrottledAuthenticationForm) -> HttpResponse:
        response = super().form_invalid(form)
        if form.has_error(NON_FIELD_ERRORS, code=THROTTLED):
            response.status_code = 429
        return response


@never_cache  # it shows a new API token once: no browser or proxy cache may keep a copy
@login_required
def account(request: HttpRequest) -> HttpResponse:
    page = selectors.account_page(user=request.user)
    new_token = request.session.pop("new_api_token", None)
    return render(
        request,
        "registration/account.html",
        {"token": page.token, "new_token": new_token, "submissions": page.submissions},
    )


@require_POST
@login_required
def token_rotate(request: HttpRequest) -> HttpResponse:
    token = services.rotate_api_token(user=request.user)
    # shown once on the next page; afterwards only its first characters are displayed
    request.session["new_api_token"] = token.key
    messages.success(request, "A new API token was created; any previous token no longer works.")
    return redirect("account")


@require_http_methods(["GET", "POST"])
@login_required
def submission_upload(request: HttpRequest) -> HttpResponse:
    form = SubmissionUploadForm(request.POST or None, request.FILES or None, user=request.user)
    errors = []
    status = 200
    if request.method == "POST":
        if not submission_throttle_allows(request):
            errors = ["Too many submissions: please wait before uploading again."]
            status = 429
        elif form.is_valid():
            try:
                submission = services.create_submission(
                    uploader=request.user,
                    archive_bytes=form.cleaned_data["archive"].read(),
                    metadata_bytes=form.cleaned_data["metadata"].read(),
                    choices=form.choices(),
                )
            except ApplicationError as exc:  # shown on the form, with every problem the upload has
                errors = [str(e) for e in exc.errors] or [exc.message]
                status = exc.status
            else:
                messages.success(
                    request, f"Submission “{submission.name}” received: {submission.attempts.count()} files queued."
                )
                return redirect(reverse("submission_detail", args=[submission.pk]))
        else:
            status = 400
    chips = evaluator_selectors.chip_availability()
    example_chip = next((c.chip.slug for c in chips if c.runners_online), "cpu")  # one that would run it
    context = {"form": form, "errors": errors, "chips": chips, "example_chip": example_chip}
    return render(request, "leaderboard/upload.html", context, status=status)


def doc_index(request: HttpRequest) -> HttpResponse:
    return render(request, "docs/index.html", {"docs": site_docs.docs().values()})


def doc_page(request: HttpRequest, slug: str) -> HttpResponse:
    doc, html = site_docs.render(slug)
    return render(request, "docs/page.html", {"doc": doc, "html": html})


def api_docs(request: HttpRequest) -> HttpResponse:
    """Swagger UI over /api/schema/, with the vendored swagger-ui bundle (no CDN)."""
    return render(request, "leaderboard/api_docs.html", {"schema_url": reverse("api-schema")})


# --- status pages (kgsite.urls: handler404, handler500) --------------------------------------------------------


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") and not request.path.startswith(reverse("api-docs"))


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """An address no route matches: the styled 404 page, or under /api/ the APIs' error body (a client of the API
    reads JSON, not a page)."""
    if _is_api(request):
        return JsonResponse({"error": "not_found", "detail": "No such API endpoint."}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """An unhandled exception: under /api/ the APIs' error body, elsewhere the styled 500 page (rendered without
    the request's context, as Django's own handler does: the failure may be in what that context needs)."""
    if _is_api(request):
        return JsonResponse(
            {"error": "server_error", "detail": "The server failed to answer this request."}, status=500
        )
    return defaults.server_error(request)
