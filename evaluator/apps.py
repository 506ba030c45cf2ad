from django.apps import AppConfig


class EvaluatorConfig(AppConfig):
    name = "evaluator"
    verbose_name = "Chips, runners and evaluations"
