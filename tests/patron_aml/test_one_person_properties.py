"""Property (issue 34): whatever sequence of patron records, links of unidentified
patrons, merges of two records, cash entries and their reversals, every person's daily
total of each direction is the sum of the cash rows of their records and linked
unidentified patrons less the reversals,
whichever seat id (number, card, case) each entry was typed under; the CTR candidates are
exactly the persons above the line, and the alerts are those the log calls for
(`verify_alerts`). The oracle below keeps its own account of who is whom."""

import pytest
from django.db import transaction
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cardroom.access import Actor
from patrons import cash, identity
from patrons.identity import PatronError
from tests.hypothesis_profiles import examples
from tests.patron_aml.conftest import person

AMOUNTS = st.sampled_from([50000, 290000, 450000, 600000, 900000])
CREATE = st.tuples(st.just("create"), st.integers(0, 2))  # which of three legal names
CASH = st.tuples(st.just("cash"), st.integers(0, 9), st.sampled_from(["chip_purchase", "cash_payout"]), AMOUNTS,
                 st.sampled_from(["number", "card", "lower"]))
MERGE = st.tuples(st.just("merge"), st.integers(0, 9), st.integers(0, 9))
STEP = st.one_of(
    CREATE, CASH, CASH, CASH, CASH, CASH, MERGE, MERGE,
    st.tuples(st.just("unidentified"), st.integers(0, 1)),
    st.tuples(st.just("unidentified_cash"), st.integers(0, 9), AMOUNTS),
    st.tuples(st.just("link"), st.integers(0, 9), st.integers(0, 9)),
    st.tuples(st.just("reverse"), st.integers(0, 20)),
)
# A few records first, so cash and merges have someone to name; more may come later.
STEPS = st.tuples(st.lists(CREATE, min_size=2, max_size=4), st.lists(STEP, min_size=8, max_size=14)).map(
    lambda parts: parts[0] + parts[1])


class Rollback(Exception):
    """Ends an example: its rows are rolled back, so each example starts from nothing."""


@pytest.fixture
def second_officer(actors):
    return actors["compliance2"]  # the second compliance officer (tests/patron_aml/conftest.py)


@pytest.mark.django_db
@settings(max_examples=examples(15), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=STEPS)
def test_every_persons_daily_totals_are_the_sum_of_their_cash_rows(tables, actors, second_officer, steps):
    try:
        with transaction.atomic():
            _play(tables, actors, second_officer, steps)
            raise Rollback
    except Rollback:
        pass


def _play(tables, actors, second_officer, steps):
    patrons, unidentified = [], []  # the records made, the unidentified patrons made
    merged_into: dict[int, int] = {}  # the oracle's merges: record -> the record it went into
    linked: dict[int, int] = {}  # unidentified id -> patron id
    rows = []  # (patron id or None, unidentified id or None, gaming day, direction, amount)
    written = []  # (cash row, its index in rows): the entries a reversal may name
    reversed_rows = set()

    def root(patron_id):
        while patron_id in merged_into:
            patron_id = merged_into[patron_id]
        return patron_id

    for step in steps:
        kind = step[0]
        if kind == "create":
            n = len(patrons) + 1
            patrons.append(identity.patron_create(
                actor=actors["supervisor"], number=f"P-{n}", card=f"C-{n}", display_name=f"N{n}",
                legal_name=("Ann Lee", "Bo Park", "Cy Diaz")[step[1]], id_number=f"ID{n}", confirm=True,
            ))
        elif kind == "cash" and patrons:
            _, which, cash_kind, amount, spelled = step
            patron = patrons[which % len(patrons)]
            seat_id = {"number": patron.number, "card": patron.card, "lower": patron.number.lower()}[spelled]
            # Equal entries in a row are meant: confirmed, not double taps (possible_duplicate).
            row = cash.cash_record(table_id=tables[which % 2].pk, kind=cash_kind, amount=amount, player=seat_id,
                                   actor=actors["dealer"], confirm=True)
            written.append((row, len(rows)))
            assert row.patron_id == patron.pk  # the row keeps the record it was written under
            rows.append((patron.pk, None, row.gaming_day, row.direction, amount))
        elif kind == "unidentified":
            unidentified.append(identity.unidentified_create(
                table_id=tables[step[1]].pk, description="woman, 30s, green scarf", actor=actors["dealer"]))
        elif kind == "unidentified_cash" and unidentified:
            stranger = unidentified[step[1] % len(unidentified)]
            row = cash.cash_record(table_id=tables[0].pk, kind="chip_purchase", amount=step[2],
                                   player=stranger.player_id, actor=actors["dealer"], confirm=True)
            written.append((row, len(rows)))
            rows.append((None, stranger.pk, row.gaming_day, row.direction, step[2]))
        elif kind == "link" and unidentified and patrons:
            stranger, patron = unidentified[step[1] % len(unidentified)], patrons[step[2] % len(patrons)]
            try:
                cash.patron_link(unidentified_id=stranger.pk, patron_id=patron.pk, actor=actors["compliance"])
                linked[stranger.pk] = patron.pk
            except PatronError as refused:
                assert refused.code == "already_linked" and stranger.pk in linked
        elif kind == "reverse" and written:
            # Asked by compliance, approved by a supervisor (neither recorded it): a new row
            # that counts against the original's person, once.
            row, index = written[step[1] % len(written)]
            request = None
            try:
                request = cash.cash_reversal_request(seq=row.seq, reason="entered twice", actor=actors["compliance"])
                cash.cash_reversal_decide(request_id=request.pk, approve=True, actor=actors["supervisor"])
                assert row.pk not in reversed_rows
                reversed_rows.add(row.pk)
                patron_id, unidentified_id, day, direction, amount = rows[index]
                rows.append((patron_id, unidentified_id, day, direction, -amount))
            except PatronError as refused:
                assert row.pk in reversed_rows and refused.code == "already_reversed", refused
        elif kind == "merge" and len(patrons) > 1:
            survivor, merged = patrons[step[1] % len(patrons)], patrons[step[2] % len(patrons)]
            allowed = survivor.pk != merged.pk and survivor.pk not in merged_into and merged.pk not in merged_into
            try:
                request = cash.merge_request(survivor_id=survivor.pk, merged_id=merged.pk, reason="one person",
                                             actor=actors["compliance"])
                with pytest.raises(PatronError, match="second_person_required"):
                    cash.merge_approve(request_id=request.pk, actor=actors["compliance"])
                cash.merge_approve(request_id=request.pk, actor=second_officer)
                merged_into[merged.pk] = survivor.pk
                assert allowed
            except PatronError as refused:
                assert not allowed and refused.code in ("already_merged", "invalid_patron"), refused
        _check(patrons, rows, linked, root)
    assert cash.verify_alerts() == []
    event(f"merges made: {min(len(merged_into), 2)}+, cash rows: {min(len(rows), 4)}+")


def _check(patrons, rows, linked, root):
    expected: dict[tuple, int] = {}  # (subject, day, direction) -> the oracle's total
    for patron_id, unidentified_id, day, direction, amount in rows:
        owner = patron_id if patron_id is not None else linked.get(unidentified_id)
        subject = f"patron:{root(owner)}" if owner is not None else f"unidentified:{unidentified_id}"
        expected[(subject, day, direction)] = expected.get((subject, day, direction), 0) + amount
    for patron in patrons:  # each record names its person
        assert identity.person_of(patron.pk).subject == f"patron:{root(patron.pk)}"
    for (subject, day, direction), total in expected.items():
        assert cash.day_total(subject, day, direction) == total, (subject, direction)
    days = {day for _, _, day, _, _ in rows}
    above = cash.thresholds()[2]
    for day in days:
        found = {(c["subject"], c["direction"]): c["total"] for c in cash.ctr_candidates(day)}
        assert found == {(s, d): t for (s, dd, d), t in expected.items() if dd == day and t > above}
