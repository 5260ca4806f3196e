"""The cash log becomes a ledger like the others (issue 33): its head on one CashLog row
(started here at the log's last row, so an existing log continues), its signed
checkpoints (append-only), and the cash row's optional chained fields `reverses`,
`award_round`, `award_seat` (hashed only when set: every existing row keeps its hash)."""

import django.db.models.deletion
from django.db import migrations, models

from cardroom.ledger import refuse_changes


def head_at_the_last_row(apps, schema_editor):
    CashTransaction = apps.get_model("patrons", "CashTransaction")
    CashLog = apps.get_model("patrons", "CashLog")
    last = CashTransaction.objects.order_by("-seq").first()
    if last is not None:
        CashLog.objects.create(pk=1, seq=last.seq, head=last.row_hash, chain_day=last.gaming_day)


class Migration(migrations.Migration):

    dependencies = [
        ('patrons', '0004_exclusion_hit_backline'),
        ('rounds', '0010_round_index_by_table_day_and_time'),
        ('tables', '0025_rotation_entry_gaming_day'),
    ]

    operations = [
        migrations.CreateModel(
            name='CashCheckpoint',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('gaming_day', models.DateField()),
                ('last_seq', models.PositiveBigIntegerField()),
                ('head', models.CharField(max_length=64)),
                ('rows', models.PositiveBigIntegerField(help_text='rows of gaming_day in the chain with seq <= last_seq')),
                ('key_id', models.CharField(max_length=32)),
                ('signature', models.CharField(max_length=64)),
                ('created_at', models.DateTimeField()),
                ('kind', models.CharField(choices=[('day_end', 'day_end'), ('on_demand', 'on_demand')], max_length=12)),
            ],
            options={
                'ordering': ['last_seq', 'id'],
            },
        ),
        migrations.CreateModel(
            name='CashLog',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('seq', models.PositiveBigIntegerField(default=0)),
                ('head', models.CharField(default='0000000000000000000000000000000000000000000000000000000000000000', max_length=64)),
                ('chain_day', models.DateField(blank=True, null=True)),
            ],
        ),
        migrations.AddField(
            model_name='cashtransaction',
            name='award_round',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='rounds.round'),
        ),
        migrations.AddField(
            model_name='cashtransaction',
            name='award_seat',
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='cashtransaction',
            name='reverses',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='patrons.cashtransaction'),
        ),
        migrations.AddConstraint(
            model_name='cashtransaction',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('award_round__isnull', True), ('award_seat__isnull', True)), models.Q(('award_round__isnull', False), ('award_seat__isnull', False), ('kind', 'cash_payout')), _connector='OR'), name='cash_award_is_a_payout_of_a_seat'),
        ),
        migrations.AddField(
            model_name='cashcheckpoint',
            name='ledger',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='checkpoints', to='patrons.cashlog'),
        ),
        migrations.RunPython(*refuse_changes("patrons_cashcheckpoint")),
        migrations.RunPython(head_at_the_last_row, migrations.RunPython.noop),
    ]
