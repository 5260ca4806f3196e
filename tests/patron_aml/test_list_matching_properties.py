"""Property (issue 37): the seat's self-exclusion questions, now fixed statements
(patrons/identity.py `_seat_keys_sql`, `_listed_sql`), answer what the ORM queries they
replaced answered, for any patrons, list entries and seat ids. The oracle below is those
queries, written with the ORM as they were: whom a seat id names, and the first entry in
force that names the seat or its patrons (names paired with each patron's date of birth)."""

from datetime import date

import pytest
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from patrons import identity
from patrons.folding import fold_name, fold_number
from patrons.models import ExclusionEntry, PatronKey
from rounds.engine.persons import person_keys, printed
from tests.hypothesis_profiles import examples

NAMES = ["Ann Lee", "ann lee", "Lee, Ann", "Ánn Lee", "Bo Park", "B0 Park", "Cy Diaz", ""]
BORN = [None, date(1980, 1, 1), date(1990, 2, 2)]
ID_NUMBERS = ["", "D123", "d-123", "D999"]
SEAT_IDS = ["P-1", "p_1", "P-2", "P-3", "C-1", "c1", "C-2", "Ann Lee", "Lee Ann", "Bo Park", "D123", "d 123", "X"]

PATRON = st.tuples(st.sampled_from(NAMES[:-1]), st.sampled_from(BORN), st.sampled_from(ID_NUMBERS))
ENTRY = st.tuples(st.sampled_from(NAMES), st.sampled_from(BORN), st.sampled_from(ID_NUMBERS),
                  st.one_of(st.none(), st.integers(0, 2)))


class Rollback(Exception):
    """Ends an example: its rows are rolled back."""


def _oracle_matches(prefix: str, value: str) -> Q:
    folded, skel, fold_skel = person_keys(value)
    match = Q(**{f"{prefix}_folded": folded}) | Q(**{f"{prefix}_skeleton": skel}) | Q(**{f"{prefix}_fold_skeleton": fold_skel})
    fold = fold_name(value) if prefix == "name" else fold_number(value)
    if fold:
        match |= Q(**{f"{prefix}_fold": fold})
    return match


def oracle_seat(player: str):
    """Whom the seat id names (candidates by id, the one patron or None), by the ORM."""
    player = printed(player)
    folded = fold_number(player)
    if not folded:
        return [], None
    as_typed = person_keys(player)
    typed_q = Q(folded=as_typed[0]) | Q(skeleton=as_typed[1]) | Q(fold_skeleton=as_typed[2])
    exact, everyone = set(), {}
    for key in PatronKey.objects.select_related("patron").filter(typed_q | Q(fold=folded), field__in=("number", "card")):
        everyone.setdefault(key.patron_id, key.patron)
        if key.folded == as_typed[0] or key.skeleton == as_typed[1] or key.fold_skeleton == as_typed[2]:
            exact.add(key.patron_id)
    candidates = sorted(everyone)
    one = candidates[0] if len(everyone) == 1 else (exact.pop() if len(exact) == 1 else None)
    return candidates, one


def oracle_listed(player: str, people: list) -> int | None:
    match = Q()
    texts = [printed(player or "")]
    for person in {p.pk: p for p in people if p is not None}.values():
        match |= Q(patron=person)
        name = _oracle_matches("name", person.legal_name)
        if person.date_of_birth is not None:
            name &= Q(date_of_birth__isnull=True) | Q(date_of_birth=person.date_of_birth)
        match |= name
        if person.id_number:
            match |= _oracle_matches("number", person.id_number)
        texts += [person.number, person.card]
    for text in filter(None, texts):
        match |= _oracle_matches("name", text) | _oracle_matches("number", text)
    found = identity.entries_in_force().filter(match).order_by("id").first()
    return found.pk if found else None


def _entry(name: str, born, id_number: str, patron):
    """An entry with its name and id number keys made as the lists' own imports make them."""
    keys = identity._entry_keys("name", name) | identity._entry_keys("number", id_number)
    return ExclusionEntry.objects.create(
        source="house", patron=patron, name=name, date_of_birth=born, id_number=id_number, added_at=timezone.now(),
        added_by="test", **keys,
    )


@pytest.mark.django_db
@settings(max_examples=examples(100), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(patrons=st.lists(PATRON, min_size=1, max_size=3), entries=st.lists(ENTRY, min_size=1, max_size=3),
       seat_ids=st.lists(st.sampled_from(SEAT_IDS), min_size=1, max_size=4))
def test_the_fixed_statements_answer_what_the_orm_queries_answered(actors, patrons, entries, seat_ids):
    try:
        with transaction.atomic():
            made = []
            for n, (legal_name, born, id_number) in enumerate(patrons, start=1):
                try:
                    made.append(identity.patron_create(
                        actor=actors["supervisor"], number=f"P-{n}", card=f"C-{n}", display_name=f"N{n}",
                        legal_name=legal_name, date_of_birth=born, id_number=id_number, confirm=True,
                    ))
                except identity.PatronError:
                    pass  # an id number another patron holds: refused, as on the page
            for name, born, id_number, which in entries:
                _entry(name, born, id_number, made[which] if which is not None and which < len(made) else None)
            for player in seat_ids:
                seat = identity.SeatIdentity(player)
                candidates, one = oracle_seat(player)
                assert [p.pk for p in seat.candidates] == candidates, player
                assert (seat.patron.pk if seat.patron else None) == one, player
                # The seat's patron, all it may name, every patron made, and each patron alone
                # (one entry found first cannot hide another's answer).
                for people in ([seat.patron], [seat.patron, *seat.candidates], made, *([p] for p in made)):
                    found = identity.listed_entry(player, people[0] if people else None, also=people[1:])
                    assert (found.pk if found else None) == oracle_listed(player, people), (player, people)
            raise Rollback
    except Rollback:
        pass
