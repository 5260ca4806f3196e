"""The suite's hypothesis profiles (tests/hypothesis_profiles.py): `ci` runs every
property test at its full number of examples, `dev` a fifth of them; an unknown profile
name stops the run rather than silently running the default."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READ = ("from hypothesis import settings; from tests.hypothesis_profiles import examples, PROFILE; "
        "print(PROFILE, examples(60), examples(12), settings.default.max_examples, settings.default.deadline)")


def under(profile: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_PROFILE"}
    if profile is not None:
        env["HYPOTHESIS_PROFILE"] = profile
    return subprocess.run([sys.executable, "-c", READ], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def test_ci_is_the_default_and_runs_every_example():
    assert under(None).stdout.split() == ["ci", "60", "12", "100", "None"]
    assert under("ci").stdout.split() == ["ci", "60", "12", "100", "None"]


def test_dev_runs_a_fifth_of_the_examples_and_at_least_three():
    assert under("dev").stdout.split() == ["dev", "12", "3", "20", "None"]


def test_an_unknown_profile_stops_the_run():
    run = under("quick")
    assert run.returncode != 0 and "use ci or dev" in run.stderr
