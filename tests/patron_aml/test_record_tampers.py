"""The self-exclusion lists and hits and the export manifests, changed by someone who can
write the tables but does not hold the ledger key, are named by `verify_logs`
(tables/record_checks.py): the list in force against its import's sealed count and
digest, each hit and manifest against its seal, a seat's hit against its refusal."""

import uuid

import pytest
from django.utils import timezone

from collections_fees.services import export_manifest_record
from patrons import identity
from patrons.models import ExclusionEntry, ExclusionHit
from tables.services import command_execute
from tests.compliance.test_tamper import sql, tamper as tamper_written, verify_logs

from .test_identity import STATE_LIST

pytestmark = pytest.mark.django_db


def tamper(table, statement, params=()):
    """test_tamper.tamper, after the test's own writes' deferred checks have run (a table
    with pending trigger events cannot be altered)."""
    sql("SET CONSTRAINTS ALL IMMEDIATE")
    tamper_written(table, statement, params)


@pytest.fixture
def state_list(actors):
    return identity.state_list_import(actor=actors["compliance"], filename="state.csv", content=STATE_LIST)


@pytest.fixture
def refused_seat(tables, actors, state_list):
    """Bob Stone, on the state's list, refused a seat at T1: one refusal, one hit."""
    bob = identity.patron_create(
        actor=actors["compliance"], number="P-2002", display_name="Bob S.", legal_name="Bob Stone", id_number="X7654321",
    )
    result = command_execute(
        table_id=tables[0].pk, command={"type": "sit", "player": bob.number, "seat": 1}, actor=actors["dealer"],
    ).result
    assert result["error"]["code"] == "self_excluded"
    return ExclusionHit.objects.get()


def test_the_untouched_lists_hits_and_manifests_verify(refused_seat, manifest):
    code, out = verify_logs()
    assert code == 0, out
    assert refused_seat.key_id and manifest.key_id


def test_an_entry_deleted_from_the_state_list_in_force_is_named(state_list):
    carla = ExclusionEntry.objects.get(list_import=state_list, name="Carla Ruiz")
    tamper("patrons_exclusionentry", "DELETE FROM patrons_exclusionentry WHERE id = %s", [carla.pk])
    code, out = verify_logs()
    assert code == 1
    assert (
        f"BROKEN self-exclusion list in force (import {state_list.pk}, state.csv): 1 entries, the import listed 2: "
        "entries deleted or added"
    ) in out, out


def test_the_imports_count_lowered_to_match_is_named(state_list):
    carla = ExclusionEntry.objects.get(list_import=state_list, name="Carla Ruiz")
    tamper("patrons_exclusionentry", "DELETE FROM patrons_exclusionentry WHERE id = %s", [carla.pk])
    tamper("patrons_exclusionimport", "UPDATE patrons_exclusionimport SET rows = 1 WHERE id = %s", [state_list.pk])
    code, out = verify_logs()
    assert code == 1
    assert (
        f"BROKEN self-exclusion import {state_list.pk} (state.csv): not what was written (its seal under key "
        f"{state_list.key_id!r} does not match): altered or forged"
    ) in out, out


def test_an_entry_of_the_list_in_force_altered_is_named(state_list):
    bob = ExclusionEntry.objects.get(list_import=state_list, name="Bob Stone")
    tamper(
        "patrons_exclusionentry",
        "UPDATE patrons_exclusionentry SET number_folded = 'none', number_skeleton = 'none', "
        "number_fold_skeleton = 'none', id_number = 'none' WHERE id = %s",
        [bob.pk],
    )
    code, out = verify_logs()
    assert code == 1
    assert (
        f"BROKEN self-exclusion list in force (import {state_list.pk}, state.csv): its entries are not the ones "
        "imported (their SHA-256 differs from the import's): altered"
    ) in out, out


def test_a_deleted_hit_is_named_by_its_refusal(refused_seat):
    tamper("patrons_exclusionhit", "DELETE FROM patrons_exclusionhit WHERE id = %s", [refused_seat.pk])
    code, out = verify_logs()
    assert code == 1
    assert (
        f"BROKEN table {refused_seat.table_id}: 1 seats and backline wagers refused self_excluded, 0 self-exclusion "
        "hits of them: hits deleted or added"
    ) in out, out


def test_an_altered_hit_is_named_by_its_seal(refused_seat):
    tamper("patrons_exclusionhit", "UPDATE patrons_exclusionhit SET player = 'P-1' WHERE id = %s", [refused_seat.pk])
    code, out = verify_logs()
    assert code == 1
    assert (
        f"BROKEN self-exclusion hit {refused_seat.pk} (seat at table {refused_seat.table_id}, player 'P-1'): not what "
        f"was written (its seal under key {refused_seat.key_id!r} does not match): altered or forged"
    ) in out, out


@pytest.fixture
def manifest(db):
    return export_manifest_record(
        export_id=uuid.uuid4(), kind="cash", media_type="text/csv", filename="cash.csv", filters={"day_from": "2026-03-02"},
        columns=["player", "amount_cents"], rows=3, size=120, sha256="a" * 64, requested_by="cora", source="http",
        started_at=timezone.now(),
    )


def test_a_manifests_sha256_changed_is_named(manifest):
    tamper("collections_fees_exportmanifest", "UPDATE collections_fees_exportmanifest SET sha256 = %s WHERE id = %s",
           ["b" * 64, manifest.pk])
    code, out = verify_logs()
    assert code == 1
    assert (
        f"BROKEN export manifest {manifest.pk} (cash, cash.csv, sha256 bbbbbbbbbbbb…): not what was written (its seal "
        f"under key {manifest.key_id!r} does not match): altered or forged"
    ) in out, out


def test_a_manifests_seal_removed_is_named(manifest):
    later = export_manifest_record(
        export_id=uuid.uuid4(), kind="mtl", media_type="text/csv", filename="mtl.csv", filters={}, columns=["player"],
        rows=0, size=7, sha256="c" * 64, requested_by="cora", source="http", started_at=timezone.now(),
    )
    tamper("collections_fees_exportmanifest",
           "UPDATE collections_fees_exportmanifest SET sha256 = %s, key_id = '', signature = '' WHERE id = %s",
           ["d" * 64, later.pk])
    code, out = verify_logs()
    assert code == 1
    assert (
        f"BROKEN export manifest {later.pk} (mtl, mtl.csv, sha256 dddddddddddd…): written after the rows were sealed, "
        "but carries no seal: its seal removed"
    ) in out, out
