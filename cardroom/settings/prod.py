"""Kept for one release: config.settings.prod under its old name (cardroom/settings/__init__.py)."""

import warnings

from config.settings.prod import *  # noqa: F401,F403

warnings.warn("DJANGO_SETTINGS_MODULE=cardroom.settings.prod is the old name of config.settings.prod; "
              "it goes in the next release", FutureWarning, stacklevel=2)  # shown by default: an operator sees it
