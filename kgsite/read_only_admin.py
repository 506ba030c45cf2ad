from django.contrib import admin
from django.http import HttpRequest


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows the services own (verdicts, uploaded attempts, leaderboard rows): viewed in the admin,
    never added, edited or deleted there, since a change would move the leaderboard with no record
    of who or why. They go only with their submission (leaderboard.services.delete_submission)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
