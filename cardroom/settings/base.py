"""Kept for one release: config.settings.base under its old name (cardroom/settings/__init__.py)."""

import warnings

from config.settings.base import *  # noqa: F401,F403

warnings.warn("DJANGO_SETTINGS_MODULE=cardroom.settings.base is the old name of config.settings.base; "
              "it goes in the next release", FutureWarning, stacklevel=2)  # shown by default: an operator sees it
