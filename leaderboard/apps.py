from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Models, submissions and leaderboards"

    def ready(self) -> None:
        from leaderboard import receivers  # noqa: F401  (answers the evaluator's signals)
