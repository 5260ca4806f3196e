"""The BSA cash log is a ledger like the others (issue 33): its chain against the head on
its CashLog row, its signed checkpoints and its witnessed head; no row without the ledger
key; the cash alerts recomputed from the log; the optional chained fields; and a
progressive award's payout recorded by someone other than the supervisor who confirmed it.

Each tamper below is what the insider probe did as the tables' owner (triggers off, inside
the test's transaction): `verify_logs` must name it."""

import hashlib
import io

import pytest
from django.core.management import call_command
from django.db import connection

from cardroom import hashchain
from cardroom.access import Actor
from patrons import cash
from patrons.identity import PatronError, patron_create
from patrons.models import CashAlert, CashCheckpoint, CashLog, CashTransaction
from tests.db_access import as_owner
from tests.playing import new_table

PAYOUT = 1_000_800  # a $10,008 cash payout
AWARD = 1_000_080  # the $10,000.80 progressive award of `confirm_an_award` (above the CTR line)
# The last row (the payout) deleted with the alerts that name it.
CUT_THE_PAYOUT = (
    ("DELETE FROM patrons_cashalert WHERE transaction_id IN (SELECT id FROM patrons_cashtransaction WHERE seq = 4)", ()),
    ("DELETE FROM patrons_cashtransaction WHERE seq = 4", ()),
)


def sql(statement, params=()):
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def tamper(*statements):
    """Run the statements as the tables' owner with every patrons ledger's triggers off."""
    tables = ("patrons_cashtransaction", "patrons_cashalert", "patrons_cashcheckpoint")
    with as_owner():
        # The rows this test wrote leave deferred foreign-key checks pending: run them now,
        # or the triggers cannot be switched.
        sql("SET CONSTRAINTS ALL IMMEDIATE")
        for table in tables:
            sql(f"ALTER TABLE {table} DISABLE TRIGGER USER")
        for statement, params in statements:
            sql(statement, params)
        sql("SET CONSTRAINTS ALL IMMEDIATE")
        for table in tables:
            sql(f"ALTER TABLE {table} ENABLE TRIGGER USER")


def verify_logs(*args) -> tuple[int, str]:
    out = io.StringIO()
    try:
        call_command("verify_logs", *args, stdout=out)
        code = 0
    except SystemExit as exit_:
        code = exit_.code
    return code, out.getvalue()


def broken(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("BROKEN")]


@pytest.fixture
def logged(tables, ann, actors, django_capture_on_commit_callbacks):
    """Ann buys in three times at two tables (a warning at $8,000, a CTR above $10,000),
    then is paid $10,008 in cash; every head witnessed as it commits."""
    t1, t2 = tables
    with django_capture_on_commit_callbacks(execute=True):
        for table, amount in ((t1, 350000), (t2, 450000), (t1, 250000)):
            cash.cash_record(table_id=table.pk, kind="chip_purchase", amount=amount, player="P-1001", actor=actors["dealer"])
        cash.cash_record(table_id=t1.pk, kind="cash_payout", amount=PAYOUT, player="P-1001", actor=actors["supervisor"])
    assert sorted(CashAlert.objects.values_list("kind", "direction")) == [
        ("ctr_required", "in"), ("ctr_required", "out"), ("warning", "in"), ("warning", "out")]
    return CashTransaction.objects.order_by("seq").last()


def test_the_untouched_cash_log_verifies_with_its_head_and_witness(logged):
    head = CashLog.objects.get()
    assert (head.seq, head.head) == (4, logged.row_hash)
    code, out = verify_logs()
    assert code == 0 and broken(out) == [], out
    assert cash.verify_alerts() == []


def test_the_last_row_deleted_is_named_at_the_end_of_the_chain(logged):
    tamper(*CUT_THE_PAYOUT)
    code, out = verify_logs()
    assert code == 1
    assert "BROKEN cash log end of chain: chain ends at seq 3, the cash log's head recorded 4" in broken(out), out


def test_the_last_row_deleted_and_the_head_rewound_is_named_by_the_witness(logged):
    third = CashTransaction.objects.get(seq=3)
    tamper(*CUT_THE_PAYOUT)
    CashLog.objects.update(seq=3, head=third.row_hash)  # the app's own role may move the head
    code, out = verify_logs()
    assert code == 1
    assert any(line.startswith("BROKEN cash log: cut tail: the chain ends at seq 3, but seq 4 was witnessed")
               for line in broken(out)), out


def test_every_row_deleted_is_named_an_emptied_log(logged):
    tamper(("DELETE FROM patrons_cashalert", ()), ("DELETE FROM patrons_cashtransaction", ()))
    code, out = verify_logs()
    assert code == 1
    assert "BROKEN cash log: emptied: it holds no row, but its head records seq 4" in broken(out), out


def test_every_row_and_the_head_deleted_is_named_by_the_witness(logged):
    tamper(("DELETE FROM patrons_cashalert", ()), ("DELETE FROM patrons_cashtransaction", ()),
           ("DELETE FROM patrons_cashlog", ()))
    code, out = verify_logs()
    assert code == 1
    assert any(line.startswith("BROKEN cash log: witnessed at seq 4") and "not in the database" in line
               for line in broken(out)), out


def rehash_plain(row: CashTransaction, amount: int) -> str:
    """The probe's rewrite: the amount changed and the row re-hashed with plain SHA-256,
    as a row hashed before the chains were keyed would be (hash_key '')."""
    row.amount = amount
    new_hash = hashchain.link(row.prev_hash, row.chain_content(), hashchain.LEGACY)
    tamper(("UPDATE patrons_cashtransaction SET amount = %s, hash_key = '', row_hash = %s WHERE seq = %s",
            (amount, new_hash, row.seq)))
    return new_hash


def test_the_payout_rewritten_to_8_dollars_and_rehashed_without_the_key_is_named(logged):
    new_hash = rehash_plain(logged, 800)
    CashLog.objects.update(head=new_hash)  # and the head made to agree
    code, out = verify_logs()
    assert code == 1
    assert ("BROKEN cash log seq 4: hashed without the ledger key (plain SHA-256), but this log never had "
            "unkeyed rows: re-hashed by someone without the key") in broken(out), out
    # The witness saw the row as it was written, too.
    assert any(line.startswith("BROKEN cash log seq 4: not the row witnessed") for line in broken(out)), out


def test_a_tail_cut_after_a_checkpoint_is_named_without_the_witness(logged, witness_dir):
    code, out = verify_logs("--checkpoint")
    assert code == 0, out
    assert CashCheckpoint.objects.filter(kind="on_demand", last_seq=4, rows=4).exists()
    third = CashTransaction.objects.get(seq=3)
    tamper(*CUT_THE_PAYOUT)
    CashLog.objects.update(seq=3, head=third.row_hash)
    for path in witness_dir.iterdir():  # the witness gone as well: the checkpoint still says
        path.unlink()
    assert any("chain ends at seq 3, but the checkpoint of gaming day" in p and "signed seq 4" in p
               for p in cash.verify_chain()), cash.verify_chain()


def test_the_first_transaction_of_a_later_gaming_day_signs_the_day_before(tables, ann):
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    system, zone = Actor.system("test"), ZoneInfo("America/Los_Angeles")
    day_one = datetime(2026, 3, 10, 12, 0, tzinfo=zone)
    for hours in (0, 1):
        cash.cash_record(table_id=tables[0].pk, kind="chip_purchase", amount=1000, player="P-1001", actor=system,
                         at=day_one + timedelta(hours=hours))
    assert not CashCheckpoint.objects.exists()
    cash.cash_record(table_id=tables[0].pk, kind="chip_purchase", amount=1000, player="P-1001", actor=system,
                     at=day_one + timedelta(days=1))
    (signed,) = CashCheckpoint.objects.all()
    assert (signed.kind, signed.gaming_day.isoformat(), signed.last_seq, signed.rows) == ("day_end", "2026-03-10", 2, 2)
    assert hashchain.signature_valid(signed.signed_content(), signed.key_id, signed.signature)
    assert cash.verify_chain() == []


# --- The alerts against the log -----------------------------------------------------------


def test_a_deleted_ctr_alert_is_named_missing(logged):
    tamper(("DELETE FROM patrons_cashalert WHERE kind = 'ctr_required'", ()))
    code, out = verify_logs()
    assert code == 1
    assert any(line.startswith("BROKEN cash alert missing: ctr_required for patron:") for line in broken(out)), out


def test_a_forged_alert_is_named(logged, ann):
    payout = logged
    tamper(("INSERT INTO patrons_cashalert (kind, subject, patron_id, direction, gaming_day, total, transaction_id, "
            "table_id, created_at) VALUES ('warning', %s, %s, 'in', %s, 100, %s, %s, now())",
            (f"patron:{ann.pk}", ann.pk, payout.gaming_day + __import__("datetime").timedelta(days=1), payout.pk,
             payout.table_id)),)
    code, out = verify_logs()
    assert code == 1
    assert any("crosses no such line under the thresholds in force: forged or altered" in line
               for line in broken(out)), out


def test_a_changed_alert_total_is_named(logged):
    tamper(("UPDATE patrons_cashalert SET total = 1 WHERE kind = 'warning'", ()))
    code, out = verify_logs()
    assert code == 1
    assert any("altered: total 1 (the log gives 800000)" in line for line in broken(out)), out


def test_a_payout_over_the_ctr_line_calls_for_its_own_alert(logged):
    """The $10,008 payout is cash out: its own CTR line, crossed by itself. Deleting the
    alert the log wrote for it is named as well."""
    out_alert = CashAlert.objects.get(direction="out", kind="ctr_required")
    assert (out_alert.kind, out_alert.total) == ("ctr_required", PAYOUT)
    tamper(("DELETE FROM patrons_cashalert WHERE id = %s", (out_alert.pk,)))
    problems = cash.verify_alerts()
    assert len(problems) == 1 and "ctr_required" in problems[0] and ", out," in problems[0], problems


def test_alerts_raised_by_a_link_are_recomputed_from_the_log(tables, ann, actors):
    from patrons.identity import unidentified_create

    stranger = unidentified_create(table_id=tables[0].pk, description="man, 40s, red cap", actor=actors["dealer"])
    cash.cash_record(table_id=tables[0].pk, kind="chip_purchase", amount=500000, player=stranger.player_id,
                     actor=actors["dealer"])
    cash.cash_record(table_id=tables[1].pk, kind="chip_purchase", amount=400000, player="P-1001", actor=actors["dealer"])
    assert not CashAlert.objects.exists()
    cash.patron_link(unidentified_id=stranger.pk, patron_id=ann.pk, actor=actors["compliance"])
    (warning,) = CashAlert.objects.all()
    assert warning.link_id is not None
    assert cash.verify_alerts() == []
    tamper(("DELETE FROM patrons_cashalert", ()))
    assert any(p.startswith("cash alert missing: warning for patron:") for p in cash.verify_alerts())


# --- The optional chained fields and the award payout rule ---------------------------------


def test_the_optional_fields_are_chained_only_when_set(logged):
    content = logged.chain_content()
    assert not {"reverses", "award_round", "award_seat"} & set(content)
    logged.reverses_id = 1
    assert logged.chain_content()["reverses"] == 1
    # Set, they change the hash: a reversal cannot be pointed at another row unseen.
    assert hashchain.link(logged.prev_hash, logged.chain_content(), logged.hash_key) != logged.row_hash


def test_a_reverses_field_set_after_the_fact_is_named(logged):
    tamper(("UPDATE patrons_cashtransaction SET reverses_id = (SELECT id FROM patrons_cashtransaction WHERE seq = 1) "
            "WHERE seq = 4", ()))
    assert any(p.startswith("cash log seq 4: content altered") for p in cash.verify_chain()), cash.verify_chain()


def confirm_an_award(winner_id: dict):
    """A table where seat 2's royal flush won a percentage of the progressive meter (a
    $10,000.80 award, above the CTR line), the award confirmed by supervisor sam and the
    round settled; dan deals it. The winner P-2's record holds `winner_id`."""
    from rounds.models import Round
    from tables.services import command_execute
    from tests.engine.test_sidebets import PROGRESSIVE
    from tests.playing import run_ok
    from tests.service.test_access import assign, person

    table = new_table("R", side_bets={"progressive": PROGRESSIVE}, boxes=False)
    sam, sue, dan = person("sam", "supervisor"), person("sue", "supervisor"), person("dan", "dealer")
    assign(dan, table, sam)
    patron_create(actor=Actor.of(sam), number="P-2", display_name="Winner", legal_name="Win Ner", **winner_id)
    run_ok(
        table,
        *({"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)),
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1},
        {"type": "open_round", "bank": 1000}, {"type": "wager", "seat": 2, "ante": 100, "progressive": True},
        {"type": "no_more_bets"}, {"type": "check", "seat": 2}, {"type": "flop", "cards": ["Qs", "Js", "Ts"]},
        {"type": "check", "seat": 2}, {"type": "turn_river", "cards": ["2c", "3d"]}, {"type": "play", "seat": 2, "multiple": 1},
        {"type": "showdown", "player_dealer": ["4c", "5d"], "hands": {"2": ["As", "Ks"]}},
    )
    confirmed = command_execute(table_id=table.pk, command={"type": "confirm_award", "seat": 2}, actor=Actor.of(sam))
    assert confirmed.result["ok"], confirmed.result
    settled = command_execute(table_id=table.pk, command={"type": "settle"}, actor=Actor.of(dan))
    assert settled.result["ok"], settled.result
    rnd = Round.objects.get(table=table)
    return table, rnd, {"sam": Actor.of(sam), "sue": Actor.of(sue), "dan": Actor.of(dan)}


# The winner's identification on record: the award above the CTR line is due at once.
WINNER_ID = {"id_type": "drivers_license", "id_number": "D2000002", "id_issuer": "CA"}


@pytest.fixture
def confirmed_award(db):
    """The award confirmed, its winner identified on record: due, paid by another person."""
    return confirm_an_award(WINNER_ID)


@pytest.fixture
def owed_award(db):
    """The award confirmed, its winner's record without identification: owed."""
    return confirm_an_award({})


def pay_award(table, rnd, actor, seat=2):
    return cash.cash_record(table_id=table.pk, kind="cash_payout", amount=AWARD, player="P-2", actor=actor,
                            award_round=rnd.pk, award_seat=seat)


def test_the_supervisor_who_confirmed_an_award_cannot_record_its_payout(confirmed_award):
    table, rnd, people = confirmed_award
    assert cash.award_confirmer(rnd, 2) == "sam"
    with pytest.raises(PatronError) as refused:
        pay_award(table, rnd, people["sam"])
    assert refused.value.code == "second_person_required"
    assert not CashTransaction.objects.exists()  # nothing written
    paid = pay_award(table, rnd, people["sue"])  # another supervisor records it
    assert (paid.award_round_id, paid.award_seat, paid.employee) == (rnd.pk, 2, "sue")
    assert paid.chain_content()["award_round"] == rnd.pk and paid.chain_content()["award_seat"] == 2
    assert cash.verify_chain() == []


def test_the_tables_dealer_may_record_the_payout_a_supervisor_confirmed(confirmed_award):
    table, rnd, people = confirmed_award
    assert pay_award(table, rnd, people["dan"]).employee == "dan"


@pytest.mark.parametrize("fields, code", [
    ({"award_round": None, "award_seat": 2}, "invalid_command"),
    ({"award_seat": "2"}, "invalid_command"),
    ({"award_round": 999999}, "unknown_award"),
    ({"kind": "chip_purchase"}, "invalid_command"),
])
def test_an_award_named_wrongly_is_refused_and_writes_nothing(confirmed_award, fields, code):
    table, rnd, people = confirmed_award
    args = {"table_id": table.pk, "kind": "cash_payout", "amount": AWARD, "player": "P-2", "actor": people["sue"],
            "award_round": rnd.pk, "award_seat": 2, **fields}
    with pytest.raises(PatronError) as refused:
        cash.cash_record(**args)
    assert refused.value.code == code
    assert not CashTransaction.objects.exists()


@pytest.mark.parametrize("optional", [{}, {"award_round_id": 7, "award_seat": 2}, {"reverses_id": 3}])
def test_the_offline_check_hashes_the_optional_fields_as_the_database_does(optional):
    """An exported row (its CSV columns) gives the chain content the row gives: the
    optional fields in it only when set, so rows with and without them re-hash offline."""
    from datetime import UTC, date, datetime

    from patrons.integrity import row_content

    row = CashTransaction(
        seq=5, kind="cash_payout", direction="out", amount=PAYOUT, patron_id=1, player="P-1", table_id=3,
        employee="sue", employee_role="supervisor", note="", mtl=True, created_at=datetime(2026, 3, 10, 20, 0, tzinfo=UTC),
        gaming_day=date(2026, 3, 10), shift="swing", **optional,
    )
    record = {
        "chain_seq": "5", "kind": "cash_payout", "direction": "out", "amount_cents": str(PAYOUT), "patron_id": "1",
        "unidentified_id": "", "player": "P-1", "table_id": "3", "employee": "sue", "employee_role": "supervisor",
        "note": "", "mtl": "t", "created_at_utc_iso": "2026-03-10T20:00:00.000000+00:00", "gaming_day": "2026-03-10",
        "shift": "swing", "reverses_id": "", "award_round_id": "", "award_seat": "",
        **{name: str(value) for name, value in optional.items()},
    }
    assert row_content(record) == row.chain_content()
    assert set(row.chain_content()) & {"reverses", "award_round", "award_seat"} == {
        name.removesuffix("_id") for name in optional}
