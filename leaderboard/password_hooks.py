"""What follows a password change, hooked where Django announces one.

Django has no "password changed" signal; it calls `password_changed(password, user)` on every entry
of AUTH_PASSWORD_VALIDATORS once a new password is saved (`set_password()` then `save()`: the admin's
password form, `manage.py changepassword`, the password reset and change forms). It does not call it
when it merely re-hashes an unchanged password at login (a hasher upgrade), so tokens survive that.
This entry sets no rule on passwords: it revokes the user's API token, so a token copied while the
old password was known stops working with it.
"""

from __future__ import annotations

from leaderboard import services


class RevokeApiTokensOnPasswordChange:
    def validate(self, password: str, user=None) -> None:
        return None  # every password is acceptable to this entry

    def password_changed(self, password: str, user=None) -> None:
        if user is not None and user.pk is not None:
            services.revoke_api_tokens(user=user)

    def get_help_text(self) -> str:
        return "Changing your password revokes your API token; create a new one on your account page."
