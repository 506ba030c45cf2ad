from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

urlpatterns = [
    path("admin/", admin.site.urls),
    # before any other /api/ include: the runner API authenticates with runner tokens only
    path("api/runner/", include("evaluator.api_urls")),
    path("", include("evaluator.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("", include("leaderboard.urls")),
]

# unmatched addresses and unhandled exceptions: the styled pages (templates/404.html, 500.html), JSON under /api/
handler404 = "leaderboard.views.page_not_found"
handler500 = "leaderboard.views.server_error"
