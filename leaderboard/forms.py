"""Forms: the leaderboard filters (GET, so every view is a shareable URL), upload, sign-up."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import AbstractBaseUser

from evaluator.models import Chip
from evaluator.vocabulary import Tier
from leaderboard.models import LLMModel, Scaffold
from leaderboard.selectors import (
    SORT_KEYS,
    SOURCE_CHOICES,
    LeaderboardFilters,
    Viewer,
    filter_choices,
    model_label,
    registered_models,
    registered_scaffolds,
    scaffold_label,
)
from leaderboard.services import UploadChoices
from leaderboard.upload import MAX_ARCHIVE_BYTES, MAX_METADATA_BYTES
from leaderboard.vocabulary import MIXED, Track

DEMO_CHOICES = [("include", "with demo rows"), ("exclude", "without demo rows"), ("only", "demo rows only")]
TIER_CHOICES = [("", "Any tier"), (Tier.FULL, "full"), (Tier.SMOKE, "smoke"), (MIXED, "several tiers")]


class LeaderboardFilterForm(forms.Form):
    source = forms.ChoiceField(choices=SOURCE_CHOICES, required=False, label="Operator source")
    chip = forms.ChoiceField(required=False, label="Chip")
    tier = forms.ChoiceField(choices=TIER_CHOICES, required=False, label="Tier")
    model = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, label="Model")
    scaffold = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, label="Scaffold")
    track = forms.ChoiceField(choices=[("", "Any track"), *Track.choices], required=False, label="Track")
    demo = forms.ChoiceField(choices=DEMO_CHOICES, required=False, label="Demo data")
    preliminary = forms.ChoiceField(
        choices=[("1", "show preliminary"), ("0", "hide preliminary")], required=False, label="Preliminary rows"
    )
    held_out = forms.BooleanField(required=False, label="Held-out verified only")
    q = forms.CharField(required=False, max_length=80, label="Search")
    sort = forms.CharField(required=False, max_length=40)

    def __init__(self, *args, viewer: Viewer = None, chip_required: bool = False, **kwargs):
        """`viewer`: whose view the choices are for (only models and scaffolds of submissions they may see
        are named; None is an anonymous visitor)."""
        super().__init__(*args, **kwargs)
        chips = [(c.slug, c.name) for c in Chip.objects.order_by("vendor", "name").only("slug", "name")]
        self.fields["chip"].choices = chips if chip_required else [("", "All chips"), *chips]
        choices = filter_choices(viewer=viewer)
        self.fields["model"].choices = [("", "Any model"), *[(m.pk, str(m)) for m in choices.models]]
        self.fields["scaffold"].choices = [("", "Any scaffold"), *[(s.pk, str(s)) for s in choices.scaffolds]]

    def filters(self, **overrides) -> LeaderboardFilters:
        """The validated filters; invalid values fall back to defaults (a stale link still shows a table)."""
        data = self.cleaned_data if self.is_valid() else {k: v for k, v in getattr(self, "cleaned_data", {}).items()}
        sort = data.get("sort") or "-accuracy_pct"
        desc = sort.startswith("-")
        key = sort.lstrip("-")
        values = {
            "source": data.get("source") or "all",
            "chip": data.get("chip") or "",
            "tier": data.get("tier") or "",
            "model": data.get("model"),
            "scaffold": data.get("scaffold"),
            "track": data.get("track") or "",
            "demo": data.get("demo") or "include",
            "preliminary": data.get("preliminary") != "0",
            "held_out": bool(data.get("held_out")),
            "q": (data.get("q") or "").strip(),
            "sort": key if key in SORT_KEYS else "accuracy_pct",
            "desc": desc if key in SORT_KEYS else True,
        }
        values.update(overrides)
        return LeaderboardFilters(**values)

    def show(self, **values: str) -> None:
        """Show these values in the fields (the chip and tier the site picked when the URL named none)."""
        if self.is_bound:
            data = self.data.copy()
            for name, value in values.items():
                data[name] = value
            self.data = data
        else:
            self.initial.update(values)


class SubmissionUploadForm(forms.Form):
    archive = forms.FileField(
        label="Solutions (.zip)",
        help_text=f"A zip of <ns>__<op>.py files at its top level, at most {MAX_ARCHIVE_BYTES // (1024 * 1024)} MiB.",
    )
    metadata = forms.FileField(
        label="Metadata (.json)",
        help_text=f"Model, scaffold, track, target chip and token usage; at most {MAX_METADATA_BYTES // (1024 * 1024)} MiB "
        "(the submission format, linked above).",
    )
    model = forms.ModelChoiceField(
        queryset=LLMModel.objects.none(),
        required=False,
        empty_label="as the metadata names it",
        label="Model",
        help_text="A registered model (with its prices and release date); replaces the metadata's model.",
    )
    new_model = forms.BooleanField(
        required=False, label="New model", help_text="The metadata's model is not one of the registered ones."
    )
    scaffold = forms.ModelChoiceField(
        queryset=Scaffold.objects.none(),
        required=False,
        empty_label="as the metadata names it",
        label="Scaffold",
        help_text="A reviewed scaffold or one of yours; replaces the metadata's scaffold.",
    )
    new_scaffold = forms.BooleanField(
        required=False, label="New scaffold", help_text="The metadata's scaffold is not one of those listed."
    )

    def __init__(self, *args, user: AbstractBaseUser, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["model"].queryset = registered_models()
        self.fields["model"].label_from_instance = model_label
        self.fields["scaffold"].queryset = registered_scaffolds(viewer=user)
        self.fields["scaffold"].label_from_instance = scaffold_label

    def choices(self) -> UploadChoices:
        data = self.cleaned_data
        return UploadChoices(
            model_id=data["model"].pk if data.get("model") else None,
            scaffold_id=data["scaffold"].pk if data.get("scaffold") else None,
            new_model=bool(data.get("new_model")),
            new_scaffold=bool(data.get("new_scaffold")),
        )

    def clean_archive(self):
        archive = self.cleaned_data["archive"]
        if archive.size > MAX_ARCHIVE_BYTES:
            raise forms.ValidationError(f"The zip is larger than {MAX_ARCHIVE_BYTES // (1024 * 1024)} MiB.")
        return archive

    def clean_metadata(self):
        metadata = self.cleaned_data["metadata"]
        if metadata.size > MAX_METADATA_BYTES:
            raise forms.ValidationError(f"The metadata file is larger than {MAX_METADATA_BYTES // (1024 * 1024)} MiB.")
        return metadata


class SignUpForm(UserCreationForm):
    email = forms.EmailField(required=False, help_text="Optional; only used to contact you about your submissions.")

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")
