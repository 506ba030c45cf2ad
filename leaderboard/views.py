"""HTML pages of the public site. Thin: parse the request, call a selector or service, render."""

from __future__ import annotations

import csv
import inspect
import io

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, Sum
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer
from rest_framework.authtoken.models import Token

from evaluator.models import Chip, Evaluation
from leaderboard import charts, selectors, services
from leaderboard.forms import LeaderboardFilterForm, SignUpForm, SubmissionUploadForm
from leaderboard.login_throttle import THROTTLED, ThrottledAuthenticationForm
from leaderboard.models import Attempt, LeaderboardEntry, Submission
from leaderboard.throttles import submission_throttle_allows
from leaderboard.upload import UploadInvalid
from operators.models import Operator, OperatorSource

LEADERBOARD_PAGE_SIZE = 50  # rows per page; the downloads hold every row


def export_response(*, rows: list[dict], fields: list[str], filename: str, fmt: str) -> HttpResponse:
    """The same rows as the page, as CSV or JSON (`?format=csv|json` on any table's URL)."""
    if fmt == "json":
        response = JsonResponse({"count": len(rows), "results": rows}, json_dumps_params={"indent": 1})
        response["Content-Disposition"] = f'attachment; filename="{filename}.json"'
        return response
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in fields})
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}.csv"'
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


def home(request: HttpRequest) -> HttpResponse:
    filters = selectors.LeaderboardFilters(preliminary=False)
    rows = selectors.leaderboard_rows(filters=filters, viewer=request.user)[:8]
    if not rows:
        rows = selectors.leaderboard_rows(filters=selectors.LeaderboardFilters(), viewer=request.user)[:8]
    stats = {
        "operators": Operator.objects.filter(in_catalog=True).count(),
        "chips": Chip.objects.filter(active=True).count(),
        "submissions": selectors.submissions_visible_to(request.user).count(),
        # evaluated kernels from the summary table: COUNT(*) over a million evaluations would cost the page ~100 ms
        "evaluations": LeaderboardEntry.objects.filter(operator_set="all").aggregate(n=Sum("samples"))["n"] or 0,
    }
    return render(
        request,
        "home.html",
        {
            "rows": rows,
            "stats": stats,
            "columns": selectors.LEADERBOARD_COLUMNS[:6],
            "reported": selectors.reported_for_leaderboard(source="all")[:5],
        },
    )


def leaderboard(request: HttpRequest) -> HttpResponse:
    form = LeaderboardFilterForm(request.GET) if request.GET else LeaderboardFilterForm()
    filters = form.filters() if request.GET else selectors.LeaderboardFilters()
    rows = selectors.leaderboard_rows(filters=filters, viewer=request.user)
    fmt = _export_format(request)
    if fmt:
        return export_response(
            rows=[r.as_dict() for r in rows],
            fields=selectors.EXPORT_FIELDS,
            filename=f"leaderboard-{filters.source}-{filters.chip or 'all-chips'}",
            fmt=fmt,
        )
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
            "rank_offset": page.start_index() - 1,
            "total_rows": len(rows),
            "prev_url": "?" + _querystring(request, page=page.previous_page_number()) if page.has_previous() else None,
            "next_url": "?" + _querystring(request, page=page.next_page_number()) if page.has_next() else None,
            "columns": selectors.LEADERBOARD_COLUMNS,
            "sort_links": sort_links,
            "reported": reported,
            "pareto_chart": pareto,
            "speedup_chart": speedups,
            "csv_url": "?" + _querystring(request, format="csv"),
            "json_url": "?" + _querystring(request, format="json"),
            "min_operators": settings.KGB_PRELIMINARY_MIN_OPERATORS,
        },
    )


def _default_chip(request: HttpRequest) -> str:
    chip = request.GET.get("chip")
    if chip:
        return chip
    # the chip with the most results (the MS view compares sources on one chip)
    busiest = LeaderboardEntry.objects.values("chip__slug").annotate(n=Count("id")).order_by("-n").first()
    return busiest["chip__slug"] if busiest else ""


def multi_source(request: HttpRequest) -> HttpResponse:
    chip = _default_chip(request)
    data = request.GET.copy()
    data["chip"] = chip
    form = LeaderboardFilterForm(data, chip_required=True)
    filters = form.filters(chip=chip, source="all")
    columns, rows = selectors.multi_source(filters=filters, viewer=request.user)
    fmt = _export_format(request)
    if fmt:
        flat = []
        for row in rows:
            item = {
                "method": row.method,
                "model": row.model,
                "scaffold": row.scaffold,
                "track": row.track,
                "demo": row.is_demo,
                "chip": chip,
            }
            for column in columns:
                cell = row.cells.get(column)
                item[f"{column}_accuracy_pct"] = cell.accuracy_pct if cell else None
                item[f"{column}_speedup"] = cell.speedup if cell else None
                item[f"{column}_operators"] = cell.operators_evaluated if cell else None
            flat.append(item)
        fields = ["method", "model", "scaffold", "track", "demo", "chip"] + [
            f"{c}_{m}" for c in columns for m in ("accuracy_pct", "speedup", "operators")
        ]
        return export_response(rows=flat, fields=fields, filename=f"multi-source-{chip}", fmt=fmt)
    reported_columns, reported_rows = selectors.reported_pivot(table="multi_source")
    return render(
        request,
        "leaderboard/multi_source.html",
        {
            "form": form,
            "filters": filters,
            "columns": columns,
            "rows": rows,
            "chip": Chip.objects.filter(slug=chip).first(),
            "reported_columns": reported_columns,
            "reported_rows": reported_rows,
            "csv_url": "?" + _querystring(request, format="csv"),
            "json_url": "?" + _querystring(request, format="json"),
        },
    )


def multi_chip(request: HttpRequest) -> HttpResponse:
    form = LeaderboardFilterForm(request.GET) if request.GET else LeaderboardFilterForm()
    filters = form.filters() if request.GET else selectors.LeaderboardFilters()
    chips, reference, rows = selectors.multi_chip(
        filters=filters, viewer=request.user, reference=request.GET.get("reference", "")
    )
    fmt = _export_format(request)
    if fmt:
        flat = []
        for row in rows:
            item = {
                "method": row.method,
                "model": row.model,
                "scaffold": row.scaffold,
                "track": row.track,
                "demo": row.is_demo,
                "reference_chip": reference.slug if reference else "",
            }
            for chip in chips:
                cell = row.cells.get(chip.slug)
                item[f"{chip.slug}_accuracy_pct"] = cell.accuracy_pct if cell else None
                item[f"{chip.slug}_speedup"] = cell.speedup if cell else None
                item[f"{chip.slug}_accuracy_drop"] = cell.accuracy_drop if cell else None
                item[f"{chip.slug}_speedup_ratio"] = cell.speedup_ratio if cell else None
            flat.append(item)
        fields = ["method", "model", "scaffold", "track", "demo", "reference_chip"] + [
            f"{c.slug}_{m}" for c in chips for m in ("accuracy_pct", "speedup", "accuracy_drop", "speedup_ratio")
        ]
        return export_response(rows=flat, fields=fields, filename="multi-chip", fmt=fmt)
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
    rows = (
        selectors.reported_rows(table=request.GET.get("table", "multi_source"))
        if request.GET.get("table")
        else list(selectors.ReportedResult.objects.all())
    )
    fmt = _export_format(request)
    fields = [
        "source_name",
        "table",
        "method",
        "model_name",
        "chip_label",
        "operator_set",
        "accuracy_pct",
        "speedup",
        "total_tokens_m",
        "tokens_per_success_m",
        "total_time_h",
        "note",
    ]
    if fmt:
        return export_response(
            rows=[{f: getattr(r, f) for f in fields} for r in rows], fields=fields, filename="reported-results", fmt=fmt
        )
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


def _visible_submission(request: HttpRequest, pk) -> Submission:
    submission = get_object_or_404(
        Submission.objects.select_related("model", "scaffold", "target_chip", "uploader"), pk=pk
    )
    user = request.user
    if not submission.is_public and not (
        user.is_authenticated and (user.is_staff or submission.uploader_id == user.pk)
    ):
        raise Http404("No such submission")  # private: do not reveal that it exists
    return submission


def submission_detail(request: HttpRequest, pk) -> HttpResponse:
    submission = _visible_submission(request, pk)
    chips, operator_rows = selectors.submission_operator_table(submission=submission)
    fmt = _export_format(request)
    if fmt:
        flat = []
        for row in operator_rows:
            for chip in chips:
                cell = row.cells.get(chip) or {}
                flat.append(
                    {
                        "operator": row.operator_id,
                        "source": row.source,
                        "samples": row.samples,
                        "chip": chip,
                        "verdict": cell.get("verdict"),
                        "speedup": cell.get("speedup"),
                        "cases": cell.get("cases"),
                        "tier": cell.get("tier"),
                    }
                )
        return export_response(
            rows=flat,
            fields=["operator", "source", "samples", "chip", "verdict", "speedup", "cases", "tier"],
            filename=f"submission-{submission.pk}",
            fmt=fmt,
        )
    summary = selectors.submission_rows(submission_id=submission.pk)
    return render(
        request,
        "leaderboard/submission_detail.html",
        {
            "submission": submission,
            "summary": summary,
            "columns": selectors.LEADERBOARD_COLUMNS,
            "chips": chips,
            "operator_rows": operator_rows,
            "progress": selectors.submission_progress(submission=submission),
            "can_delete": request.user.is_authenticated
            and (request.user.is_staff or submission.uploader_id == request.user.pk),
            "csv_url": "?format=csv",
            "json_url": "?format=json",
        },
    )


def submission_progress(request: HttpRequest, pk) -> HttpResponse:
    """The progress fragment, polled by htmx every few seconds while jobs are pending."""
    submission = _visible_submission(request, pk)
    response = render(
        request,
        "leaderboard/_progress.html",
        {"submission": submission, "progress": selectors.submission_progress(submission=submission)},
    )
    response["Cache-Control"] = "no-store"
    return response


@require_POST
@login_required
def submission_delete(request: HttpRequest, pk) -> HttpResponse:
    submission = _visible_submission(request, pk)
    try:
        services.delete_submission(submission=submission, user=request.user)
    except PermissionError:
        raise PermissionDenied("Only the uploader can delete this submission.") from None
    messages.success(request, f"Submission “{submission.name}” deleted.")
    return redirect("account")


def attempt_detail(request: HttpRequest, pk: int) -> HttpResponse:
    attempt = get_object_or_404(Attempt.objects.select_related("submission", "operator"), pk=pk)
    submission = _visible_submission(request, attempt.submission_id)
    evaluations = list(
        Evaluation.objects.filter(attempt=attempt).select_related("chip", "runner").order_by("-created_at")
    )
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
    operator = get_object_or_404(Operator, pk=pk)
    spec = _spec(operator.id)
    return render(
        request,
        "leaderboard/operator_detail.html",
        {
            "operator": operator,
            "reference_html": _reference_html(spec),
            "prompt": _prompt(spec),
            "best": selectors.best_solutions(operator_id=operator.id, viewer=request.user),
            "tiers": sorted(
                operator.case_counts.items(),
                key=lambda kv: (
                    ["smoke", "full", "edge", "perf"].index(kv[0]) if kv[0] in ("smoke", "full", "edge", "perf") else 9
                ),
            ),
        },
    )


def operator_list(request: HttpRequest) -> HttpResponse:
    operators = Operator.objects.filter(in_catalog=True)
    source = request.GET.get("source", "")
    if source:
        operators = operators.filter(source=source)
    fmt = _export_format(request)
    fields = ["id", "source", "name", "category", "mc", "provisional"]
    if fmt:
        return export_response(rows=list(operators.values(*fields)), fields=fields, filename="operators", fmt=fmt)
    return render(
        request,
        "leaderboard/operator_list.html",
        {
            "operators": operators,
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
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, "Welcome! Your account is ready; create an API token below to submit from the CLI.")
        return redirect("account")
    return render(request, "registration/signup.html", {"form": form})


class LoginView(auth_views.LoginView):
    """Django's login page with failed logins throttled: a refused try is a 429 with the form's message."""

    form_class = ThrottledAuthenticationForm

    def form_invalid(self, form: ThrottledAuthenticationForm) -> HttpResponse:
        response = super().form_invalid(form)
        if form.has_error(NON_FIELD_ERRORS, code=THROTTLED):
            response.status_code = 429
        return response


@login_required
def account(request: HttpRequest) -> HttpResponse:
    token = Token.objects.filter(user=request.user).first()
    new_token = request.session.pop("new_api_token", None)
    submissions = Submission.objects.filter(uploader=request.user).select_related("model", "scaffold", "target_chip")
    return render(
        request,
        "registration/account.html",
        {
            "token": token,
            "new_token": new_token,
            "submissions": submissions,
        },
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
    form = SubmissionUploadForm(request.POST or None, request.FILES or None)
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
                )
            except UploadInvalid as exc:
                errors = [str(e) for e in exc.errors]
                status = 400
            else:
                messages.success(
                    request, f"Submission “{submission.name}” received: {submission.attempts.count()} files queued."
                )
                return redirect(reverse("submission_detail", args=[submission.pk]))
        else:
            status = 400
    chips = Chip.objects.filter(active=True)
    return render(request, "leaderboard/upload.html", {"form": form, "errors": errors, "chips": chips}, status=status)


def api_docs(request: HttpRequest) -> HttpResponse:
    """Swagger UI over /api/schema/, with the vendored swagger-ui bundle (no CDN)."""
    return render(request, "leaderboard/api_docs.html", {"schema_url": reverse("api-schema")})
