"""The drop boxes on a table, kept on its row (Table.boxes_placed) so that a command and a
snapshot read them with no query. Filled here from each table's latest placements, so a
shift already under way keeps its boxes across the upgrade."""

from django.db import migrations, models


def boxes_from_placements(apps, schema_editor):
    Table = apps.get_model("tables", "Table")
    BoxPlacement = apps.get_model("collections_fees", "BoxPlacement")
    for table in Table.objects.all():
        latest = BoxPlacement.objects.filter(table=table).order_by("-gaming_day", "-placed_at", "-id").first()
        if latest is None:
            continue
        boxes = {"gaming_day": latest.gaming_day.isoformat(), "shift": latest.shift, "fees": None, "jackpot": None}
        for slot in ("fees", "jackpot"):
            placement = (
                BoxPlacement.objects.filter(table=table, gaming_day=latest.gaming_day, shift=latest.shift, slot=slot)
                .select_related("box").order_by("-placed_at", "-id").first()
            )
            if placement is not None:
                boxes[slot] = {"id": placement.box_id, "identifier": placement.box.identifier}
        table.boxes_placed = boxes
        table.save(update_fields=["boxes_placed"])


class Migration(migrations.Migration):

    dependencies = [
        ("tables", "0010_config_version_side_bets"),
        ("collections_fees", "0009_jackpot_entry_box"),
    ]

    operations = [
        migrations.AddField(model_name="table", name="boxes_placed", field=models.JSONField(blank=True, default=dict)),
        migrations.RunPython(boxes_from_placements, migrations.RunPython.noop),
    ]
