from django.contrib import admin

from operators.models import Operator


@admin.register(Operator)
class OperatorAdmin(admin.ModelAdmin):
    list_display = ("id", "source", "category", "mc", "has_reference_solution", "is_provisional", "catalog_version")
    list_filter = ("source", "category", "mc", "has_reference_solution", "in_catalog")
    search_fields = ("id", "name", "description")
    readonly_fields = ("synced_at",)

    @admin.display(boolean=True, description="provisional")
    def is_provisional(self, obj: Operator) -> bool:
        return bool(obj.provisional)
