"""A table's drop boxes placed for the shift running now, as a supervisor does at the start
of each shift: a person's open_round is refused `box_missing` without them
(tables.services._require_boxes)."""
from cardroom.access import Actor
from collections_fees import counts

FLOOR_MAN = Actor(name="box-keeper", role="supervisor")


def place_boxes(table) -> None:
    """Place the table's fee box, and its jackpot box where it offers a progressive
    (FEES-<id>, JACKPOT-<id>, registered on first use), unless one is on already."""
    now, cal = counts.timezone.now(), counts.calendar()
    slots = ["fees"]
    if ((table.state.get("config") or {}).get("side_bets") or {}).get("progressive"):
        slots.append("jackpot")
    for slot in slots:
        if counts.placement_in_force(table_id=table.pk, gaming_day=cal.gaming_day(now), shift=cal.shift(now), slot=slot):
            continue
        identifier = f"{'FEES' if slot == 'fees' else 'JACKPOT'}-{table.pk}"
        box = counts.DropBox.objects.filter(identifier=identifier).first() or counts.box_register(
            identifier=identifier, kind=slot, table_id=table.pk, actor=FLOOR_MAN)
        counts.box_place(table_id=table.pk, box_id=box.pk, actor=FLOOR_MAN)
    table.refresh_from_db()
