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
