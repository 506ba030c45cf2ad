from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    # before any other /api/ include: the runner API authenticates with runner tokens only
    path("api/runner/", include("evaluator.api_urls")),
    path("", include("evaluator.urls")),
]
