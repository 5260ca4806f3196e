"""Dealer assignments, written here and nowhere else: the assignments page
(web/staff/views.py) reads the form and calls `assignment_create`."""

from __future__ import annotations

from datetime import date, datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from cardroom.access import Actor
from cardroom.audit import audit_record

from .models import DealerAssignment, Table


def assignment_text(*, dealer: AbstractBaseUser, table: Table, gaming_day: date, shift: str) -> str:
    """The assignment in words: the audit entry's summary and the page's message."""
    return f"{dealer.get_username()} assigned to {table.name} for {gaming_day} {shift}"


def assignment_create(
    *, actor: Actor, dealer: AbstractBaseUser, table: Table, gaming_day: date, shift: str, at: datetime
) -> tuple[DealerAssignment, bool]:
    """The dealer assigned to the table for the shift by `actor`, and audited, in one
    transaction (an assignment is never left without its audit entry). An assignment that
    already stands is returned as it is, `created` False: neither made again nor audited
    again."""
    with transaction.atomic():
        assignment, created = DealerAssignment.objects.get_or_create(
            dealer=dealer, table=table, gaming_day=gaming_day, shift=shift, ended_at=None,
            defaults={"assigned_by_id": actor.user_id, "assigned_at": at},
        )
        if created:
            audit_record(
                actor=actor, action="assignment", table_id=table.pk,
                summary=assignment_text(dealer=dealer, table=table, gaming_day=gaming_day, shift=shift),
            )
    return assignment, created
