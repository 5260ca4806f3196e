import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from cardroom.ledger import refuse_changes


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0015_config_version_backline'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='WaitlistEvent',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('game', models.CharField(help_text='the list: the game and limit (tables.waitlist.game_of)', max_length=80)),
                ('kind', models.CharField(choices=[('added', 'added'), ('called', 'called'), ('seated', 'seated'), ('removed', 'removed')], max_length=8)),
                ('player', models.CharField(blank=True, help_text='the player\'s id or name (on `added`)', max_length=64)),
                ('tppp', models.JSONField(blank=True, null=True)),
                ('seat', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('reason', models.CharField(blank=True, max_length=200)),
                ('by', models.CharField(help_text="the supervisor's username", max_length=150)),
                ('at', models.DateTimeField()),
                ('by_user', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('entry', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='steps', to='tables.waitlistevent')),
                ('table', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tables.table')),
            ],
            options={
                'ordering': ['at', 'id'],
                'indexes': [models.Index(fields=['game', 'at'], name='waitlist_game_at')],
            },
        ),
        migrations.RunPython(*refuse_changes("tables_waitlistevent")),
    ]
