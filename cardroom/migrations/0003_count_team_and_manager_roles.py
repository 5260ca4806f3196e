from django.db import migrations


def create_roles(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    for role in ("count_team", "manager"):
        Group.objects.get_or_create(name=role)


class Migration(migrations.Migration):
    dependencies = [("cardroom", "0002_roles_and_append_only_audit")]

    operations = [migrations.RunPython(create_roles, migrations.RunPython.noop)]
