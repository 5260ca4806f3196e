"""The tablet's patron lookup and the words of a refusal about a listed patron (issue 34,
items 7 and 8), over HTTP through the real views, as the served database role:

- a dealer finds a patron by part of a name, accents folded ("Maria" finds "María L."),
  by number and card whatever their punctuation ("P1001" finds P-1001);
- the lookup is a POST: what is typed is in no URL, so in no access log; a GET is refused;
- a dealer sees display name and number only, and a dealer's search by legal name finds
  nothing; compliance and supervisors search legal names too;
- results are capped, and a query too short to name anyone finds nobody;
- a refusal about a listed patron says "call a supervisor" on the wire to the tablet, never
  why; the code stays `self_excluded` and the floor has the hit."""

import importlib
import json

import pytest
from django.apps import apps as django_apps
from django.test import Client

from patrons import identity
from patrons.identity import DISCREET_MESSAGE, LOOKUP_LIMIT
from patrons.models import CashTransaction, ExclusionHit, PatronKey
from web.tables.ui_text import DISCREET_CODES, ERROR_TEXT


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def look_up(client, table, q):
    return client.post(f"/api/tables/{table.pk}/patrons", json.dumps({"q": q}), content_type="application/json")


def numbers(response):
    assert response.status_code == 200, response.content
    return [p["number"] for p in response.json()["patrons"]]


@pytest.fixture
def maria(actors):
    return identity.patron_create(
        actor=actors["compliance"], number="P-1001", card="C-9001", display_name="María L.", legal_name="María Luisa Ortega",
        id_type="drivers_license", id_number="D7654321", id_issuer="CA",
    )


@pytest.mark.parametrize("query", ["Maria", "maria", "MARÍA", "mar", "Maria L.", "l maria", "Maria L", "  maría  "])
def test_a_dealer_finds_a_patron_by_part_of_her_name_accents_folded(people, tables, maria, query):
    assert numbers(look_up(logged_in(people["dealer"]), tables[0], query)) == ["P-1001"]


@pytest.mark.parametrize("query", ["P1001", "p 1001", "P_1001", "p-1001", "\u0420-1001", "C9001", "c 9001"])  # \u0420: Cyrillic "Р"
def test_a_dealer_finds_a_patron_by_number_or_card_whatever_its_punctuation(people, tables, maria, query):
    assert numbers(look_up(logged_in(people["dealer"]), tables[0], query)) == ["P-1001"]


@pytest.mark.parametrize("query", ["Mario", "aria", "P-1002", "1001", "C-9002", "Maria X."])
def test_what_does_not_name_her_finds_nobody(people, tables, maria, query):
    # A name matches by the start of its words; a number or card only whole: P-1001 and
    # P-1002 are different people, and "1001" alone is no patron's number.
    assert numbers(look_up(logged_in(people["dealer"]), tables[0], query)) == []


def test_the_lookup_is_a_post_and_a_get_is_refused(people, tables, maria):
    dealer = logged_in(people["dealer"])
    refused = dealer.get(f"/api/tables/{tables[0].pk}/patrons", {"q": "Maria"})
    assert refused.status_code == 405
    assert "P-1001" not in refused.content.decode()
    assert numbers(look_up(dealer, tables[0], "Maria")) == ["P-1001"]


def test_a_dealers_search_by_legal_name_finds_nothing_a_supervisors_does(people, tables, maria, actors):
    dealer, supervisor = logged_in(people["dealer"]), logged_in(people["supervisor"])
    for legal in ("Ortega", "Luisa Ortega", "maria ortega", "D7654321"):
        assert numbers(look_up(dealer, tables[0], legal)) == [], legal
    assert numbers(look_up(supervisor, tables[0], "Ortega")) == ["P-1001"]
    assert numbers(look_up(supervisor, tables[0], "maria ortega")) == ["P-1001"]
    assert [p["number"] for p in identity.patron_lookup("ortega", actor=actors["compliance"])] == ["P-1001"]
    # An ID number is searched by nobody at the table: it is not what a seat's id is.
    assert numbers(look_up(supervisor, tables[0], "D7654321")) == []


@pytest.mark.parametrize("role", ["dealer", "supervisor"])
def test_the_answer_carries_display_name_and_number_only(people, tables, maria, role):
    """Whoever asks at the table: the tablet is in the patron's sight."""
    query = "Ortega" if role == "supervisor" else "Maria"
    response = look_up(logged_in(people[role]), tables[0], query)
    (found,) = response.json()["patrons"]
    assert found == {"patron": maria.pk, "number": "P-1001", "display_name": "María L."}
    body = response.content.decode()
    for secret in ("Ortega", "Luisa", "C-9001", "D7654321", "drivers_license"):
        assert secret not in json.loads(body).__repr__(), secret


def test_results_are_capped_and_a_short_query_finds_nobody(people, tables, actors):
    for n in range(LOOKUP_LIMIT + 3):
        identity.patron_create(actor=actors["compliance"], number=f"P-{2000 + n}", display_name=f"Maria N{n}",
                               legal_name=f"Maria Nunez {n}")
    dealer = logged_in(people["dealer"])
    assert numbers(look_up(dealer, tables[0], "maria")) == [f"P-{2000 + n}" for n in range(LOOKUP_LIMIT)]
    for query in ("", "   ", "m", "M.", "-", "é"):
        assert numbers(look_up(dealer, tables[0], query)) == [], query


@pytest.mark.parametrize("body", ['{"q": 5}', '{"q": ["Maria"]}', '["Maria"]', '{"q": "Ma\\u0000ria"}'])
def test_a_lookup_that_is_not_text_is_refused_with_a_stable_code(people, tables, maria, body):
    response = logged_in(people["dealer"]).post(f"/api/tables/{tables[0].pk}/patrons", body, content_type="application/json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_command"


def test_a_dealer_of_another_table_looks_up_nobody(people, tables, maria):
    from tests.patron_aml.conftest import person

    stranger = logged_in(person("other", "dealer"))
    refused = look_up(stranger, tables[0], "Maria")
    assert refused.status_code == 403 and "P-1001" not in refused.content.decode()


def test_the_migration_fills_the_folded_forms_of_existing_patrons(people, tables, maria):
    PatronKey.objects.update(fold="")
    migration = importlib.import_module("patrons.migrations.0008_patronkey_fold")
    migration.fill(django_apps, None)
    assert numbers(look_up(logged_in(people["dealer"]), tables[0], "maria")) == ["P-1001"]
    assert numbers(look_up(logged_in(people["dealer"]), tables[0], "p1001")) == ["P-1001"]


# --- never tell the patron ------------------------------------------------------------


@pytest.fixture
def listed(actors, maria):
    identity.state_list_import(actor=actors["compliance"], filename="s.csv", content="name\nMaría Luisa Ortega\n".encode())
    return maria


def test_a_refusal_about_a_listed_patron_tells_the_tablet_to_call_a_supervisor_not_why(people, tables, listed):
    dealer = logged_in(people["dealer"])
    cash = dealer.post(f"/api/tables/{tables[0].pk}/cash", json.dumps({"kind": "chip_purchase", "amount": 50000, "player": "P-1001"}),
                       content_type="application/json")
    seat = dealer.post(f"/api/tables/{tables[0].pk}/commands", json.dumps({"type": "sit", "seat": 1, "player": "P-1001"}),
                       content_type="application/json")
    for error in (cash.json()["error"], seat.json()["result"]["error"]):
        assert error == {"code": "self_excluded", "message": DISCREET_MESSAGE}
    for body in (cash.content.decode(), seat.content.decode()):
        assert "exclu" not in body.replace("self_excluded", "").lower() and "list" not in body.lower()
    assert not CashTransaction.objects.exists()
    # The reason goes to the floor: both hits are on its page.
    assert sorted(ExclusionHit.objects.values_list("action", flat=True)) == ["chip_purchase", "seat"]
    floor = logged_in(people["supervisor"]).get("/floor/patrons/").content.decode()
    assert floor.count("P-1001") >= 2


def test_the_tablets_words_for_a_listed_or_held_patron_are_call_a_supervisor():
    assert set(DISCREET_CODES) == {"self_excluded", "check_required"}
    for code in DISCREET_CODES:
        assert ERROR_TEXT[code] == "Call a supervisor before going on."
