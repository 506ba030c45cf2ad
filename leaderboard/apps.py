from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Models, submissions and leaderboards"

    def ready(self) -> None:
        from leaderboard import signals  # noqa: F401  (connects the summary-table refresh)
