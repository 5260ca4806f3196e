"""Bad input at the patron endpoints and pages (issue 33, finding 9): each answered with a
stable code, over HTTP through the real views, and nothing stored. Lengths come from the
models' own columns (max_length), so a column made longer or shorter moves the test."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from cardroom.models import AuditEntry
from patrons.models import CashTransaction, ExclusionEntry, ExclusionImport, Patron, PatronKey, UnidentifiedPatron


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def answer_code(response) -> str:
    return response.json()["error"]["code"]


# --- cash amounts ----------------------------------------------------------------------


def post_cash(client, table, amount, player="P-1001", note=""):
    body = json.dumps({"kind": "chip_purchase", "amount": amount, "player": player, "note": note})
    return client.post(f"/api/tables/{table.pk}/cash", body, content_type="application/json")


@pytest.mark.parametrize("amount", [2**63, 10**30, "max+1"], ids=["2^63", "10^30", "one cent over the maximum"])
def test_a_cash_amount_over_the_business_maximum_is_refused_and_nothing_is_stored(
    people, tables, ann, settings, amount
):
    amount = settings.CARDROOM_CASH_MAX_CENTS + 1 if amount == "max+1" else amount
    response = post_cash(logged_in(people["dealer"]), tables[0], amount)
    assert response.status_code == 400 and answer_code(response) == "invalid_amount"
    assert not CashTransaction.objects.exists() and not AuditEntry.objects.filter(action="cash").exists()


def test_the_business_maximum_itself_is_recorded(people, tables, ann, settings):
    response = post_cash(logged_in(people["dealer"]), tables[0], settings.CARDROOM_CASH_MAX_CENTS)
    assert response.status_code == 200, response.content
    assert CashTransaction.objects.get().amount == settings.CARDROOM_CASH_MAX_CENTS


# --- NUL and lone surrogates in JSON bodies -----------------------------------------------

UNSTORABLE = {"NUL": "\\u0000", "lone surrogate": "\\ud800"}


@pytest.mark.parametrize("escape", UNSTORABLE.values(), ids=UNSTORABLE.keys())
@pytest.mark.parametrize("field", ["player", "note"])
def test_a_nul_or_lone_surrogate_in_a_cash_player_or_note_is_refused_and_nothing_is_stored(
    people, tables, ann, field, escape
):
    fields = {"kind": '"chip_purchase"', "amount": "5000", "player": '"P-1001"', "note": '"at seat 2"'}
    fields[field] = f'"P-1001{escape}"'
    body = "{" + ", ".join(f'"{name}": {value}' for name, value in fields.items()) + "}"
    response = logged_in(people["dealer"]).post(f"/api/tables/{tables[0].pk}/cash", body.encode(),
                                                content_type="application/json")
    assert response.status_code == 400 and answer_code(response) == "invalid_command"
    assert not CashTransaction.objects.exists() and not AuditEntry.objects.filter(action="cash").exists()


@pytest.mark.parametrize("escape", UNSTORABLE.values(), ids=UNSTORABLE.keys())
def test_a_nul_or_lone_surrogate_in_an_unidentified_patrons_description_is_refused(people, tables, escape):
    body = f'{{"description": "male, 40s, red cap{escape}"}}'.encode()
    response = logged_in(people["dealer"]).post(f"/api/tables/{tables[0].pk}/patrons/unidentified", body,
                                                content_type="application/json")
    assert response.status_code == 400 and answer_code(response) == "invalid_command"
    assert not UnidentifiedPatron.objects.exists()


# --- the patron form: every text against its column -----------------------------------------

GOOD_PATRON = {
    "number": "P-2001", "card": "CC-2001", "display_name": "Bob S.", "legal_name": "Bob Stone",
    "date_of_birth": "1970-01-02", "id_type": "passport", "id_number": "X123", "id_issuer": "US",
    "address": "1 Main St", "tppp_company": "", "tppp_badge": "",
}
# The form's text fields, with their columns' lengths as the model declares them.
FORM_COLUMNS = {name: Patron._meta.get_field(name).max_length for name in GOOD_PATRON if name != "date_of_birth"}


def post_patron(people, **changes):
    return logged_in(people["compliance"]).post("/compliance/patrons/", {**GOOD_PATRON, **changes})


@pytest.mark.parametrize("field", sorted(FORM_COLUMNS))
def test_a_patron_field_over_its_column_is_refused_and_nothing_is_stored(people, field):
    longest = FORM_COLUMNS[field]
    over = {field: "A" * (longest + 1)}
    if field.startswith("tppp_"):  # a TPPP link names both
        over = {"tppp_company": "Acme Props", "tppp_badge": "B-1", **over}
    response = post_patron(people, **over)
    page = response.content.decode()
    assert response.status_code == 400 and "invalid_patron" in page and field in page
    assert f"at most {longest} characters" in page
    assert not Patron.objects.exists() and not PatronKey.objects.exists()


def test_a_patron_with_every_field_at_its_columns_length_is_recorded(people):
    full = {field: "A" * longest for field, longest in FORM_COLUMNS.items()}
    response = post_patron(people, **full)
    assert response.status_code == 302, response.content.decode()[:500]
    patron = Patron.objects.get()
    assert all(len(getattr(patron, field)) == longest for field, longest in FORM_COLUMNS.items())


def test_a_name_that_grows_past_its_key_when_compared_is_refused_not_a_500(people):
    # 150 characters fit legal_name; folded for comparison (ß is ss) they are 300.
    name = "ß" * Patron._meta.get_field("legal_name").max_length
    response = post_patron(people, legal_name=name)
    assert response.status_code == 400 and "invalid_patron" in response.content.decode()
    assert not Patron.objects.exists() and not PatronKey.objects.exists()


@pytest.mark.parametrize("field", ["number", "legal_name", "address"])
def test_a_nul_in_a_patron_form_field_is_refused_and_nothing_is_stored(people, field):
    response = post_patron(people, **{field: GOOD_PATRON[field] + "\x00"})
    page = response.content.decode()
    assert response.status_code == 400 and "invalid_patron" in page and "NUL" in page
    assert not Patron.objects.exists()


# --- the state's self-exclusion list ------------------------------------------------------


def upload(people, content: bytes):
    file = SimpleUploadedFile("state.csv", content, content_type="text/csv")
    return logged_in(people["compliance"]).post("/compliance/self-exclusion/state-list/", {"list": file})


LONGEST_NAME = ExclusionEntry._meta.get_field("name").max_length
LONGEST_ID = ExclusionEntry._meta.get_field("id_number").max_length


@pytest.mark.parametrize(
    "content, named",
    [
        (b"name,id_number\nBob Stone,X1\nCarla\x00 Ruiz,X2\n", "NUL"),
        (b"name\nBob Stone\n" + b"A" * 5000 + b"\n", f"line 3: name: Ensure this value has at most {LONGEST_NAME}"),
        (b"name,id_number\nBob Stone," + b"9" * 500 + b"\n", f"line 2: id_number: Ensure this value has at most {LONGEST_ID}"),
        (b"name,state_ref\nBob Stone," + b"R" * 65 + b"\n", "line 2: state_ref"),
    ],
    ids=["NUL", "5,000-character name", "500-digit id", "state ref over its column"],
)
def test_a_state_list_that_does_not_fit_is_refused_whole_and_nothing_is_stored(people, content, named):
    response = upload(people, content)
    page = response.content.decode()
    assert response.status_code == 400 and "invalid_list" in page and named in page
    assert not ExclusionImport.objects.exists() and not ExclusionEntry.objects.exists()


def test_a_state_list_at_its_columns_lengths_is_imported(people):
    content = f"name,id_number\n{'A' * LONGEST_NAME},{'9' * LONGEST_ID}\n".encode()
    assert upload(people, content).status_code == 302
    entry = ExclusionEntry.objects.get()
    assert len(entry.name) == LONGEST_NAME and len(entry.id_number) == LONGEST_ID
