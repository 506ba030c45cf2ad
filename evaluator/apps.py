from django.apps import AppConfig
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


class EvaluatorConfig(AppConfig):
    name = "evaluator"
    verbose_name = "Chips, runners and evaluations"

    def ready(self) -> None:
        # settings import no app code, so the evaluator checks its own setting at start-up (every
        # entry point runs this: manage.py, the WSGI/ASGI app, Celery)
        from evaluator.harness.backends import parse_timing_protocol

        protocol = settings.KGB_RANKED_TIMING_PROTOCOL
        try:
            parse_timing_protocol(protocol)
        except ValueError as exc:
            raise ImproperlyConfigured(
                f"KGB_RANKED_TIMING_PROTOCOL must be FLUSH:CLOCK, not {protocol!r} ({exc})"
            ) from None
