from django.apps import AppConfig


class OperatorsConfig(AppConfig):
    name = "operators"
    verbose_name = "Operator catalog"
