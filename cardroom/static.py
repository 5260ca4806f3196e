"""Static files under Daphne (which serves none): WhiteNoise, quiet about a STATIC_ROOT
that has not been collected. The container collects it (Dockerfile); `make run` and the
tests serve the source folders through the finders (WHITENOISE_USE_FINDERS), where
WhiteNoise's warning that STATIC_ROOT is missing is only noise."""

import os

from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    def add_files(self, root, prefix=None):
        if self.autorefresh or os.path.isdir(root):
            super().add_files(root, prefix)
