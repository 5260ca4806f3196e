"""The database's identity (cardroom.models.DatabaseIdentity, cardroom/witness.py): made
with the schema, read by the served role, changed by no one, and made again when a test
runner's flush empties it, so the witness never names a database that is gone."""

import uuid

import pytest
from django.core.management import call_command
from django.db import ProgrammingError, transaction

from cardroom import witness
from cardroom.models import DatabaseIdentity
from tests.db_access import as_owner, assert_refused_to_both


@pytest.mark.django_db
def test_the_schema_has_one_identity_the_served_role_reads_and_cannot_change():
    (row,) = DatabaseIdentity.objects.all()  # read as the served role
    assert isinstance(row.uuid, uuid.UUID)
    assert witness.database_identity().uuid == str(row.uuid)
    assert_refused_to_both(lambda: DatabaseIdentity.objects.filter(pk=1).update(uuid=uuid.uuid4()))
    assert_refused_to_both(lambda: DatabaseIdentity.objects.filter(pk=1).delete())
    with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
        DatabaseIdentity.objects.create(pk=2, uuid=uuid.uuid4(), created_at=row.created_at)


@pytest.mark.django_db(transaction=True)
def test_a_flushed_database_gets_a_new_identity_and_the_witness_names_it():
    before = witness.database_identity()
    with as_owner():
        call_command("flush", interactive=False, verbosity=0)
    (row,) = DatabaseIdentity.objects.all()
    assert str(row.uuid) != before.uuid
    assert witness.database_identity().uuid == str(row.uuid)  # the kept identity was forgotten
