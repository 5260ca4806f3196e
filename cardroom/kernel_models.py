"""The app models the kernel works on while sitting below their apps: the table row it
locks, the dealer assignments and approvals it reads, the jackpot meter it locks.

The kernel may not import the apps above it (`.importlinter`), so each app hands its
models in from its `AppConfig.ready()` (tables/apps.py, collections_fees/apps.py) and the
kernel reads them here. A model asked for before its app provided it is a wiring mistake,
said as such."""

from __future__ import annotations

from django.db import models

NEEDED = frozenset({"Table", "DealerAssignment", "Approval", "JackpotMeter"})
_provided: dict[str, type[models.Model]] = {}


def provide(**found: type[models.Model]) -> None:
    """An app hands the kernel the models of NEEDED it owns."""
    unknown = set(found) - NEEDED
    if unknown:
        raise ValueError(f"the kernel needs no model named {sorted(unknown)}")
    _provided.update(found)


def model(name: str) -> type[models.Model]:
    try:
        return _provided[name]
    except KeyError:
        raise LookupError(f"{name} was not provided to the kernel: its app's ready() provides it") from None
