from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict:
    return {"KGB_SITE_NAME": "KernelGenBench", "KGB_DEBUG": settings.DEBUG}
