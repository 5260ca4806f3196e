"""Kept for one release: the settings moved to config/settings (issue 36). An operator's
DJANGO_SETTINGS_MODULE=cardroom.settings.prod (or .base) keeps working, and says so in
the log; change it to config.settings.prod (docs/operations.md)."""
