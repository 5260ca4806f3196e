"""A settled or voided round played again for surveillance (issue 38 item 3): from the state
recorded at its open_round (RoundStart), each accepted command is applied again with the
cards its deal drew, and gives the answer and the records the event chain holds, and the
screens the dealer's tablet showed after it."""

import csv
import hashlib
import io
import json
from datetime import datetime, timedelta
from random import Random

import pytest
from django.db import connection, transaction
from django.test import Client
from django.utils import timezone
from django.db.utils import DatabaseError

from cardroom.access import Actor
from collections_fees.models import ExportManifest
from rounds import rebuild
from rounds.engine.cards import DECK
from rounds.models import Round, RoundCard
from rounds.visibility import TABLET
from tables import surveillance
from tables.models import RoundStart, Table
from tables.selectors import table_snapshot
from tests.engine.helpers import FEES, dealt_round, seated_with_pd
from tests.engine.test_sidebets import PROGRESSIVE
from tests.db_access import as_owner
from tests.patron_aml.conftest import actors, people, person  # noqa: F401 (fixtures)
from tests.patron_aml.test_awards import bob, d_table  # noqa: F401 (fixtures)
from tests.patron_aml.test_pages import verify  # verify_logs --checkpoints: (exit code, output)
from tests.playing import new_table, run

pytestmark = pytest.mark.django_db


def shuffled_round(players):
    """`dealt_round` with the software shuffling: its deal sends no cards."""
    return [{"type": "deal"} if c["type"] == "deal" else c for c in dealt_round(players)]


def play_watching_the_tablet(table, commands, *, rng=None, actor="dealer-1"):
    """Each command in turn, with what the dealer's tablet was shown after it (the engine's
    part of its snapshot: the state and the screen hints)."""
    shown = []
    for command in commands:
        run(table, command, rng=rng, actor=actor)
        snapshot = table_snapshot(Table.objects.get(pk=table.pk), TABLET)
        shown.append(rebuild.plain({"game": snapshot["game"], "view": snapshot["view"]}))
    return shown


def test_a_shuffled_round_replays_every_screen_the_tablet_showed_with_the_cards_drawn():
    table = new_table(fee_schedule=FEES)
    run(table, *seated_with_pd([1, 2, 3, 4], pd=1))
    commands = shuffled_round([2, 3, 4])
    shown = play_watching_the_tablet(table, commands, rng=Random(38))
    rnd = Round.objects.get(table=table, number=1)

    replayed = surveillance.round_replay(rnd)

    assert replayed.problems == []
    assert [s.event.command_type for s in replayed.steps] == [c["type"] for c in commands]
    assert [s.tablet for s in replayed.steps] == shown
    # The deck order the software drew at the deal, recovered from the chained record.
    (deal,) = [s for s in replayed.steps if s.event.command_type == "deal"]
    assert deal.deck == Random(38).sample(DECK, 2 * 3 + 2 + 5)
    assert set(RoundCard.objects.filter(round=rnd).values_list("source", flat=True)) == {"shuffled"}
    assert all(s.deck is None for s in replayed.steps if s is not deal)


def test_a_progressive_round_with_a_supervisors_confirmation_replays_with_the_fund_as_it_stood():
    table = new_table(name="R", side_bets={"progressive": PROGRESSIVE})
    run(table, *({"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)),
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1})
    shown = play_watching_the_tablet(table, [
        {"type": "open_round", "bank": 1000}, {"type": "wager", "seat": 2, "ante": 100, "progressive": True},
        {"type": "no_more_bets"}, {"type": "check", "seat": 2}, {"type": "flop", "cards": ["Qs", "Js", "Ts"]},
        {"type": "check", "seat": 2}, {"type": "turn_river", "cards": ["2c", "3d"]}, {"type": "play", "seat": 2, "multiple": 1},
        {"type": "showdown", "player_dealer": ["4c", "5d"], "hands": {"2": ["As", "Ks"]}},
    ])
    shown += play_watching_the_tablet(table, [{"type": "confirm_award", "seat": 2}],
                                      actor=Actor(name="sup", role="supervisor", user_id=None))
    shown += play_watching_the_tablet(table, [{"type": "settle"}])

    replayed = surveillance.round_replay(Round.objects.get(table=table, number=1))

    assert replayed.problems == []
    assert [s.tablet for s in replayed.steps] == shown
    settle = replayed.steps[-1]
    assert settle.event.command_type == "settle" and settle.fund == {"meter": 1000080, "reserve": 600020}


def _one_shuffled_round_to_replay():
    """A settled round dealt by the software: its recorded start, its events, and the steps
    that play it again (each command, the cards its deal drew)."""
    table = new_table(fee_schedule=FEES)
    run(table, *seated_with_pd([1, 2], pd=1), *shuffled_round([2]), rng=Random(5))
    rnd = Round.objects.get(table=table, number=1)
    start = RoundStart.objects.get(table=table, round_number=1)
    events = surveillance.round_events(rnd, start)
    steps = [{"command": surveillance.engine_command(e), "deck": rebuild.drawn_deck(e.records, "shuffler"), "fund": None}
             for e in events]
    return start, events, steps


def test_a_start_not_what_was_played_is_named_step_by_step():
    start, events, steps = _one_shuffled_round_to_replay()
    true_run = rebuild.replay(start.state, steps)
    assert all(not rebuild.differences(done, e.result, e.records) for done, e in zip(true_run, events))

    doctored = {**start.state, "occupants": {**start.state["occupants"], "2": "P-someone-else"}}
    found = [rebuild.differences(done, e.result, e.records) for done, e in zip(rebuild.replay(doctored, steps), events)]
    # From the bets' close on, the records name the seat's player; the settlement pays them.
    assert [e.command_type for e in events][2] == "no_more_bets" and found[2] == ["its records differ"]
    assert found[-1] == ["its answer differs", "its records differ"]


def test_another_deck_is_a_mismatch_not_a_replay():
    start, events, steps = _one_shuffled_round_to_replay()
    deal = next(i for i, e in enumerate(events) if e.command_type == "deal")
    steps[deal] = {**steps[deal], "deck": list(reversed(steps[deal]["deck"]))}
    done = rebuild.replay(start.state, steps)
    assert rebuild.differences(done[deal], events[deal].result, events[deal].records) == ["its answer differs", "its records differ"]
    steps[deal] = {**steps[deal], "deck": None}
    with pytest.raises(rebuild.ReplayMismatch):
        rebuild.replay(start.state, steps)


def test_a_round_in_progress_has_no_replay_and_its_start_holds_no_card():
    table = new_table(fee_schedule=FEES)
    run(table, *seated_with_pd([1, 2], pd=1), *shuffled_round([2])[:4], rng=Random(1))
    rnd = Round.objects.get(table=table)
    with pytest.raises(surveillance.SurveillanceError) as refused:
        surveillance.round_replay(rnd)
    assert refused.value.code == "wrong_state"
    start = RoundStart.objects.get(table=table, round_number=1)
    assert start.state["round"] is None and start.seq == Round.objects.get(pk=rnd.pk).table.events.get(
        command_type="open_round").seq


def test_the_recorded_start_cannot_be_rewritten_or_removed_by_the_app():
    table = new_table(fee_schedule=FEES)
    run(table, *seated_with_pd([1, 2], pd=1), *shuffled_round([2]), rng=Random(2))
    start = RoundStart.objects.get(table=table)
    for statement in ("UPDATE tables_roundstart SET state = '{}' WHERE id = %s", "DELETE FROM tables_roundstart WHERE id = %s"):
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement, [start.pk])
    assert RoundStart.objects.get(pk=start.pk).state == start.state


# --- The page and the export ------------------------------------------------------------


def _settled_shuffled_round():
    table = new_table(fee_schedule=FEES)
    run(table, *seated_with_pd([1, 2, 3], pd=1), *shuffled_round([2, 3]), rng=Random(11))
    return table, Round.objects.get(table=table, number=1)


def test_the_page_steps_through_the_tablets_screens():
    table, rnd = _settled_shuffled_round()
    sup = Client()
    sup.force_login(person("sup-r", "supervisor"))
    first = sup.get(f"/compliance/rounds/{rnd.pk}/timeline")
    assert first.status_code == 200
    text = first.content.decode()
    assert 'id="replay-verdict"' in text and f"each of its {len(shuffled_round([2, 3]))} commands" in text
    assert 'id="replay-previous"' not in text and 'id="replay-next"' in text
    deal = table.events.get(command_type="deal")
    dealt = sup.get(f"/compliance/rounds/{rnd.pk}/timeline?step={deal.seq}").content.decode()
    holes = {c for r in deal.records if r["kind"] == "CardsDealt" for p, _, c in r["cards"] if p in ("2", "3")}
    seats = dealt[dealt.index('id="replay-seats"'):]
    assert all(card in seats for card in holes) and "the cards the shuffle drew" in dealt
    # The step's three clocks: with a camera offset recorded, the camera's time is shown.
    surveillance.camera_offset_set(actor=Actor.of(person("sup-c", "supervisor")), table_id=table.pk, offset_ms=-2000)
    nav = sup.get(f"/compliance/rounds/{rnd.pk}/timeline?step={deal.seq}").content.decode()
    nav = nav[nav.index('id="replay-nav"'):nav.index('id="replay-screen"')]
    camera = timezone.localtime(deal.created_at - timedelta(seconds=2)).strftime("%H:%M:%S")
    assert " server" in nav and f"{camera}." in nav and " camera" in nav


def test_a_round_played_before_starts_were_kept_shows_its_timeline_and_says_why_no_screens():
    table, rnd = _settled_shuffled_round()
    # A round from before this record: its start is not there (the app itself cannot delete it).
    with as_owner(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("ALTER TABLE tables_roundstart DISABLE TRIGGER USER")
        cursor.execute("DELETE FROM tables_roundstart WHERE table_id = %s", [table.pk])
        cursor.execute("ALTER TABLE tables_roundstart ENABLE TRIGGER USER")
    sup = Client()
    sup.force_login(person("sup-o", "supervisor"))
    page = sup.get(f"/compliance/rounds/{rnd.pk}/timeline").content.decode()
    assert 'id="timeline"' in page and 'id="replay-refused"' in page and "kept their starting state" in page


def _exported(tmp_path, rnd):
    officer = Client()
    officer.force_login(person("officer-r", "compliance"))
    response = officer.get(f"/compliance/rounds/{rnd.pk}/replay.csv")
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    manifest = json.loads(officer.get(f"/compliance/exports/{response['X-Export-Id']}/manifest.json").content)
    csv_path = tmp_path / manifest["file"]["name"]
    csv_path.write_bytes(response.content)
    manifest_path = tmp_path / "round.manifest.json"
    manifest_path.write_text(json.dumps(manifest))
    return csv_path, manifest_path, manifest


def test_the_export_lists_each_command_with_three_times_and_verifies_offline(tmp_path):
    table, rnd = _settled_shuffled_round()
    # Another round's commands on the same gaming day travel as links only.
    run(table, *shuffled_round([2, 3])[:2], rng=Random(12))
    supervisor = Actor.of(person("sup-cam", "supervisor"))
    surveillance.camera_offset_set(actor=supervisor, table_id=table.pk, offset_ms=1500)
    csv_path, manifest_path, manifest = _exported(tmp_path, rnd)
    rows = list(csv.DictReader(io.StringIO(csv_path.read_text(), newline="")))
    events = [r for r in rows if r["row_kind"] == "event"]
    assert [r["command_type"] for r in events] == [c["type"] for c in shuffled_round([2, 3])]
    assert all(r["created_at"] and r["camera_at"] for r in events)
    assert all(r["command"] == "{}" or "P-" not in r["command"] for r in rows if r["row_kind"] == "link")
    links = [r for r in rows if r["row_kind"] == "link"]
    assert links and all(not r["command"] and not r["records"] and not r["actor"] for r in links)
    assert manifest["kind"] == "round_replay" and manifest["checkpoints"]

    code, text = verify(manifest_path)

    assert code == 0 and f"{len(events)} round events checked, 0 problems" in text


def _rewrite(csv_path, manifest_path, manifest, change):
    """An insider's edit of the file, with its manifest's SHA-256 and size made to match."""
    rows = list(csv.DictReader(io.StringIO(csv_path.read_text(), newline="")))
    rows = change(rows)
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    content = out.getvalue().encode()
    csv_path.write_bytes(content)
    manifest["file"] = {**manifest["file"], "sha256": hashlib.sha256(content).hexdigest(), "bytes": len(content)}
    manifest_path.write_text(json.dumps(manifest))


def _unkeyed(rows):
    """Every event of the round re-hashed as an unkeyed (pre-key) row, each linking the one
    before: consistent among themselves, made by someone without the key."""
    from cardroom import hashchain

    previous = None
    for row in rows:
        if row["row_kind"] == "event":
            if previous is not None:
                row["prev_hash"] = previous
            content = {"table": int(row["table_id"]), "seq": int(row["chain_seq"]), "command_type": row["command_type"],
                       "command": json.loads(row["command"]), "command_id": row["command_id"] or None,
                       "result": json.loads(row["result"]), "records": json.loads(row["records"]),
                       "actor": row["actor"], "created_at": row["created_at"], "gaming_day": row["gaming_day"]}
            row["hash_key"] = hashchain.LEGACY
            row["row_hash"] = previous = hashchain.link(row["prev_hash"], content, hashchain.LEGACY)
    return rows


def _edit(rows, command_type, column, edit):
    for row in rows:
        if row["row_kind"] == "event" and row["command_type"] == command_type:
            row[column] = edit(row[column])
    return rows


@pytest.mark.parametrize("what, change, named", [
    ("a dealt card changed in the chain's record",
     lambda rows: _edit(rows, "deal", "records", lambda text: text.replace('"2",0,"', '"2",0,"X', 1)),
     "not what was written"),
    ("the tablet's screen after the showdown changed",
     lambda rows: _edit(rows, "showdown", "state_after", lambda text: text.replace('"phase":"showdown"', '"phase":"river"', 1)),
     "the tablet's screen differs"),
    ("the round's start changed",
     lambda rows: [{**r, "state_after": r["state_after"].replace('"P-2"', '"P-9"')} if r["row_kind"] == "start" else r
                   for r in rows],
     "played again"),
    ("the deck drawn changed",
     lambda rows: _edit(rows, "deal", "deck", lambda text: json.dumps(list(reversed(json.loads(text))))),
     "played again"),
    ("an event of the round cut out",
     lambda rows: [r for r in rows if not (r["row_kind"] == "event" and r["command_type"] == "flop")],
     "not consecutive"),
    ("the round's end made a link",  # the settle's row blanked to a link: counts and gaps hold
     lambda rows: [{**{k: "" for k in r}, **{k: r[k] for k in ("table_id", "gaming_day", "chain_seq", "prev_hash",
                                                               "row_hash", "hash_key")}, "row_kind": "link"}
                   if r["row_kind"] == "event" and r["command_type"] == "settle" else r for r in rows],
     "its end is missing"),
    ("the round's rows re-hashed without the key",
     lambda rows: _unkeyed(rows), "not signed with a ledger key"),
    ("a link row of the day cut out",
     lambda rows: [r for i, r in enumerate(rows) if i != next(j for j, x in enumerate(rows) if x["row_kind"] == "link")],
     "checkpoint"),
    ("the time given to the engine changed",
     lambda rows: _edit(rows, "flop", "engine_at",
                        lambda text: (datetime.fromisoformat(text) + timedelta(seconds=1)).isoformat()),
     "the time the engine was given"),
    ("the round begun after its open_round",
     lambda rows: [r for r in rows if not (r["row_kind"] == "event" and r["command_type"] == "open_round")],
     "begin with its open_round"),
    ("a second start",
     lambda rows: [rows[0], *rows], "no starting state"),
])
def test_an_export_edited_to_match_its_manifest_still_fails_offline(tmp_path, what, change, named):
    _, rnd = _settled_shuffled_round()
    csv_path, manifest_path, manifest = _exported(tmp_path, rnd)
    _rewrite(csv_path, manifest_path, manifest, change)
    code, text = verify(manifest_path)
    assert code == 1 and named in text, (what, text)


def test_only_supervisors_and_compliance_export_a_round_and_never_one_in_progress():
    table = new_table(fee_schedule=FEES)
    run(table, *seated_with_pd([1, 2], pd=1), *shuffled_round([2])[:4], rng=Random(1))
    rnd = Round.objects.get(table=table)
    officer = Client()
    officer.force_login(person("officer-p", "compliance"))
    assert officer.get(f"/compliance/rounds/{rnd.pk}/replay.csv").status_code == 409
    manager = Client()
    manager.force_login(person("manager-p", "manager"))
    assert manager.get(f"/compliance/rounds/{rnd.pk}/replay.csv").status_code == 403
    assert not ExportManifest.objects.filter(kind="round_replay").exists()


@pytest.mark.parametrize("seated_at_showdown", [False, True], ids=["", "a seat taken at the showdown"])
def test_a_withheld_award_replays_with_the_preview_the_tablet_showed(d_table, bob, actors, seated_at_showdown):
    """A listed patron's progressive award is withheld: the command service states the seat
    on the showdown and the settle, and the tablet's preview showed it withheld (also after
    a command between them that states nothing: the page replays the round once, as the
    offline check does, not step by step afresh)."""
    from patrons import identity
    from tests.patron_aml.test_awards import D_UP_TO_SHOWDOWN, SHOWDOWN

    table, dealer = d_table
    shown = play_watching_the_tablet(table, D_UP_TO_SHOWDOWN, actor=dealer)
    identity.state_list_import(actor=actors["compliance"], filename="s.csv", content="name\nBOB STONE\n".encode())
    between = [{"type": "sit", "seat": 6, "player": "P-6"}] if seated_at_showdown else []
    shown += play_watching_the_tablet(table, [SHOWDOWN, *between, {"type": "settle"}], actor=dealer)
    opened = next(i for i, c in enumerate(D_UP_TO_SHOWDOWN) if c["type"] == "open_round")

    replayed = surveillance.round_replay(Round.objects.get(table=table, number=1))

    assert replayed.problems == []
    assert [s.tablet for s in replayed.steps] == shown[opened:]
    preview = replayed.steps[-2].tablet["view"]["settlement_preview"]["progressive"]
    assert [(a["seat"], a.get("withheld")) for a in preview] == [(2, True)]
