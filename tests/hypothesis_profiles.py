"""Hypothesis profiles for this suite: `ci` (the default, what `make test` and `.ci/run`
run: every property test at its full number of examples) and `dev` (a fifth of them, at
least 3, for a quick loop while editing: `HYPOTHESIS_PROFILE=dev make test ARGS=...`).

A property test states its examples as `max_examples=examples(N)`, N being what `ci`
runs: an explicit `max_examples` would otherwise override the profile."""

from __future__ import annotations

import os

from hypothesis import settings

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
DEV_SHARE = 5  # dev runs 1/DEV_SHARE of each test's examples

settings.register_profile("ci", deadline=None, print_blob=True)
settings.register_profile("dev", settings.get_profile("ci"), max_examples=max(3, 100 // DEV_SHARE))
if PROFILE not in ("ci", "dev"):
    raise RuntimeError(f"HYPOTHESIS_PROFILE={PROFILE!r}: use ci or dev")
settings.load_profile(PROFILE)


def examples(ci: int) -> int:
    """A test's number of examples under the loaded profile; `ci` is the full number."""
    return ci if PROFILE == "ci" else max(3, ci // DEV_SHARE)
