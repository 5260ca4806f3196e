"""A progressive award is cashed out once, unless its payout was reversed.

The unique index `cash_award_paid_once` (0009) refused any second cash row naming an
award, so a payout reversed by two people (paid to the wrong person) left the award
unpayable. A unique index cannot see a reversal (another row naming the first in
`reverses`), so the database's word is now a trigger of the same name: a payout naming an
award is refused while an earlier payout of that award stands unreversed. It takes the
cash log's own advisory lock (patrons/cash.py LOCK_KEY) before it looks, so two payouts
written at once, by the app or by hand, are checked one after the other.
"""

from django.db import migrations, models

PAID_ONCE = """
CREATE OR REPLACE FUNCTION patrons_cash_award_paid_once() RETURNS trigger AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('cardroom-cash-chain'));
    IF EXISTS (
        SELECT 1 FROM patrons_cashtransaction paid
        WHERE paid.award_round_id = NEW.award_round_id AND paid.award_seat = NEW.award_seat
          AND paid.reverses_id IS NULL
          AND NOT EXISTS (SELECT 1 FROM patrons_cashtransaction reversal WHERE reversal.reverses_id = paid.id)
    ) THEN
        RAISE EXCEPTION 'cardroom: the award of round % seat % has a payout not reversed', NEW.award_round_id, NEW.award_seat
            USING ERRCODE = 'unique_violation', CONSTRAINT = 'cash_award_paid_once';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
"""
TRIGGER = (
    "CREATE TRIGGER cash_award_paid_once BEFORE INSERT ON patrons_cashtransaction FOR EACH ROW "
    "WHEN (NEW.award_round_id IS NOT NULL AND NEW.reverses_id IS NULL) EXECUTE FUNCTION patrons_cash_award_paid_once()"
)


def install(apps, schema_editor):
    schema_editor.execute(PAID_ONCE, params=None)  # no placeholders: % is PL/pgSQL's
    schema_editor.execute(TRIGGER, params=None)


def remove(apps, schema_editor):
    schema_editor.execute("DROP TRIGGER IF EXISTS cash_award_paid_once ON patrons_cashtransaction")
    schema_editor.execute("DROP FUNCTION IF EXISTS patrons_cash_award_paid_once()")


class Migration(migrations.Migration):

    dependencies = [
        ('patrons', '0013_award_cash_outs'),
    ]

    operations = [
        migrations.RemoveConstraint(model_name='cashtransaction', name='cash_award_paid_once'),
        migrations.RunPython(install, remove),
    ]
