"""benchmarks/bench_e2e.py: its floor parsing and lag arithmetic, and one tiny real run
(its own PostgreSQL, Redis and Daphne, real sockets) whose report must be complete."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.bench_e2e import floor_lags, rows_of

ROOT = Path(__file__).resolve().parent.parent


def test_floor_rows_are_read_from_any_message_with_row_or_rows():
    row = {"table": 3, "seq": 7, "name": "T"}
    assert rows_of({"type": "row", "row": row}) == [(3, 7)]
    assert rows_of({"type": "floor", "rows": [row, {"table": 4, "seq": 1}]}) == [(3, 7), (4, 1)]
    assert rows_of({"type": "rows", "rows": [row]}) == [(3, 7)]  # a batched format
    assert rows_of({"type": "snapshot", "snapshot": {}}) == []
    assert rows_of({"type": "rows", "rows": [{"table": 3}, "x"]}) == []


def test_the_floor_lag_waits_for_every_screen_and_counts_a_later_seq_as_delivery():
    answered = [(1, 5, 10.0), (2, 3, 10.0), (1, 6, 11.0)]
    screens = [
        {1: [(9.9, 5), (11.3, 7)], 2: [(10.2, 3)]},
        {1: [(10.4, 6)], 2: [(10.1, 2)]},  # never saw table 2 at seq 3
    ]
    lags, missing = floor_lags(answered, screens)
    # (1, 5): screen 1 at 9.9 (before the answer: 0), screen 2 at 10.4 with seq 6 -> 0.4 s
    # (1, 6): screen 1 only at 11.3 with seq 7 -> 0.3 s
    assert [round(x, 6) for x in lags] == [0.4, 0.3]
    assert missing == 1


@pytest.mark.slow
@pytest.mark.redis
@pytest.mark.parametrize("tablet_role", ["supervisor", "dealer"])
def test_a_tiny_run_reports_every_figure_and_delivers_the_whole_floor(tmp_path, redis_url, tablet_role):
    out = tmp_path / "report.json"
    # As many commands as 4 s at 4/s, in half the time: the run's start (its own PostgreSQL,
    # migrations, Daphne) is most of its length, the measured windows need only be non-empty.
    # --time-limit 225 (the quick run's is 120 s; the subprocess is given 240): on a loaded
    # machine the start alone may take 100 s, and a scenario the limit skips leaves the
    # report without a result.
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_e2e", "--quick", "--tables", "3", "--screens", "2", "--rates", "8",
         "--seconds", "2", "--baseline-seconds", "1.5", "--heartbeat", "0", "--time-limit", "225", "--json", str(out),
         "--tablet-role", tablet_role],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads(out.read_text())
    [result] = report["results"]
    assert (result["processes"], result["tables"], result["screens"]) == (1, 3, 2)
    assert result["sent"] > 0 and result["answered"] == result["sent"] == result["ok"] + result["refused"]
    assert result["errors"] == 0 and result["unanswered"] == 0
    assert result["delivery_pct"] == 100.0 and result["stale_pairs"] == 0 and result["floor_missing"] == 0
    for figure in ("tap_ms", "floor_ms", "echo_ms", "raw_ms"):
        assert result[figure]["n"] > 0 and 0 < result[figure]["p50"] <= result[figure]["p99"], figure
    assert result["floor_ms"]["n"] == result["ok"]
    assert set(result["cpu_ms_per_command"]) == {"daphne", "postgres", "redis", "client"}
    assert result["cpu_ms_per_command"]["daphne"] > 0 and result["cpu_ms_per_command"]["postgres"] > 0
    assert len(result["daphne_rss_mib"]) == 1 and result["daphne_rss_mib"][0] > 10
    assert result["tap_p99_over_echo_p99"] > 0 and result["tap_p50_over_raw_p50"] > 0
    # The echo's CPU per message beside the command's (a tiny run may round it to 0).
    assert result["echo_cpu_ms_per_message"] >= 0 and "daphne CPU per echo" in run.stdout
    # The command path's CPU by stage, measured inside Daphne (benchmarks/stages.py) in a phase
    # of its own with the meter on: every stage named, the engine and the ledger writes seen,
    # and together within that phase's Daphne CPU. The headline phase ran with the meter off.
    by_stage, staged = result["daphne_cpu_ms_per_command_by_stage"], result["staged_phase"]
    assert list(by_stage) == ["envelope", "lock", "standing", "approvals+boxes", "patron gate", "engine",
                              "ledger writes", "publish", "floor", "service"]
    assert by_stage["engine"] > 0 and by_stage["ledger writes"] > 0 and by_stage["service"] > 0
    assert staged["answered"] > 0 and staged["errors"] == 0
    assert sum(by_stage.values()) <= staged["daphne_cpu_ms_per_command"] * 1.05
    assert "daphne CPU ms/command by stage" in run.stdout
    assert set(result["targets"]) >= {"100 % delivery", "no errors"}
    assert set(report["idle_cpu_per_s"]["1"]) == {"daphne", "postgres", "redis"}
    assert "tap -> answer" in run.stdout and "summary" in run.stdout
    # A dealer's tablet drives its own table: the assignments the benchmark made let it.
    assert report["tablet_role"] == tablet_role and "not_authorized" not in result["refusals"]


@pytest.mark.slow
@pytest.mark.redis
def test_a_tiny_run_behind_nginx_spreads_the_sockets_over_the_processes_and_counts_nginx(tmp_path, redis_url):
    """--front nginx: each process on its own port behind docker/nginx.conf (rendered)."""
    out = tmp_path / "report.json"
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_e2e", "--quick", "--tables", "4", "--screens", "2", "--rates", "4",
         "--processes", "2", "--front", "nginx", "--seconds", "4", "--baseline-seconds", "2", "--heartbeat", "0",
         "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads(out.read_text())
    [result] = report["results"]
    assert (result["processes"], result["front"]) == (2, "nginx")
    assert result["errors"] == 0 and result["delivery_pct"] == 100.0 and result["answered"] == result["sent"] > 0
    # 4 tablets, 4 echo sockets and 2 screens, taken in turns by nginx: both processes hold some.
    assert sum(result["sockets_per_process"]) == 10 and min(result["sockets_per_process"]) > 0
    assert set(result["cpu_ms_per_command"]) == {"daphne", "nginx", "postgres", "redis", "client"}
    assert set(report["idle_cpu_per_s"]["2 nginx"]) == {"daphne", "postgres", "redis", "nginx"}
    assert "behind nginx on 127.0.0.1:" in run.stdout and "via nginx" in run.stdout


def test_an_unknown_front_is_refused():
    # A tiny run otherwise: without the check it would start, run as `fd`, and end soon.
    run = subprocess.run([sys.executable, "-m", "benchmarks.bench_e2e", "--quick", "--tables", "1", "--screens", "1",
                          "--rates", "1", "--seconds", "1", "--baseline-seconds", "1", "--front", "fd,haproxy"],
                         cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert run.returncode == 2 and "--front takes fd, nginx" in run.stderr
