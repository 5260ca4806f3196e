"""Reads: what clients are shown. Writes are in tables/services.py."""

from .models import Table


def table_snapshot(table: Table) -> dict:
    """What a client needs to draw the table, with the version (event seq) it shows."""
    return {"table": table.pk, "name": table.name, "version": table.version, "game": table.state}
