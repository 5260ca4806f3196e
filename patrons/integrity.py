"""Offline check of a cash-log export (`verify_logs --checkpoints FILE.manifest.json`):
with the ledger key and no database, every row's hash is recomputed from its columns and
the row before (cardroom/hashchain.py), as `verify_logs` does in the database; a row
without the key (hash_key '') is refused, and the rows are held against the signed cash
checkpoints the manifest carries (a cut tail, a deleted or rewritten row)."""

from __future__ import annotations

from datetime import datetime

from cardroom import checkpoints, hashchain, spreadsheet

from .selectors import CASH_COLUMNS

# Exports that are reports drawn from the logs, not a chain: checked by their SHA-256.
DOCUMENT_KINDS = frozenset({"mtl", "ctr", "self_exclusion", "patron_history"})
# The columns the export escapes so that a spreadsheet reads them as text (the player,
# the employee, the note ...): a row is re-hashed from the values stored, escape taken off.
ESCAPED_COLUMNS = spreadsheet.escaped_headers(CASH_COLUMNS)


def _int_or_none(text: str):
    return int(text) if text not in ("", None) else None


# The optional chained fields, by their export column: in the content only when set.
OPTIONAL_COLUMNS = (("reverses", "reverses_id"), ("award_round", "award_round_id"), ("award_seat", "award_seat"))


def row_content(record: dict) -> dict:
    """The chain content (patrons.models.CashTransaction.chain_content) of an exported row."""
    record = {name: spreadsheet.unescape(value) if name in ESCAPED_COLUMNS and value else value
              for name, value in record.items()}
    content = {
        "seq": int(record["chain_seq"]),
        "kind": record["kind"],
        "direction": record["direction"],
        "amount": int(record["amount_cents"]),
        "patron": _int_or_none(record["patron_id"]),
        "unidentified": _int_or_none(record["unidentified_id"]),
        "player": record["player"],
        "table": int(record["table_id"]),
        "employee": record["employee"],
        "employee_role": record["employee_role"],
        "note": record["note"],
        "mtl": record["mtl"] == "t",
        "created_at": datetime.fromisoformat(record["created_at_utc_iso"]).isoformat(),
        "gaming_day": record["gaming_day"],
        "shift": record["shift"],
    }
    for name, column in OPTIONAL_COLUMNS:
        value = _int_or_none(record.get(column, ""))
        if value is not None:
            content[name] = value
    return content


def verify_cash_export(manifest: dict, records) -> tuple[int, list[str]]:
    """(rows checked, problems): each row re-hashed with the key it names; consecutive
    rows linked; an export of the whole log (no day filter) starting at the chain's
    first row with no seq missing."""
    problems, checked, previous = [], 0, None
    whole = not any(manifest.get("filters", {}).get(k) for k in ("day_from", "day_to"))
    by_day, hashes = {}, {}
    for record in records:
        if record.get("hash_key") == hashchain.LEGACY:
            # The cash log never had rows hashed without the key: this one was re-hashed
            # by someone who does not hold it.
            problems.append(
                f"cash row seq {record.get('chain_seq')}: hashed without the ledger key (plain SHA-256), but the cash "
                "log never had unkeyed rows: re-hashed by someone without the key"
            )
            checked += 1
            continue
        try:
            content = row_content(record)
            computed = hashchain.link(record["prev_hash"], content, record["hash_key"])
        except (KeyError, ValueError) as exc:  # UnknownKey is a KeyError
            problems.append(f"cash row {record.get('chain_seq')}: cannot be checked ({exc!r})")
            continue
        seq = content["seq"]
        if computed != record["row_hash"]:
            problems.append(f"cash row seq {seq}: its hash does not verify (altered, or not signed by this key)")
        if previous is None and whole and (seq != 1 or record["prev_hash"] != hashchain.GENESIS):
            problems.append(f"cash log: the export starts at seq {seq}, not at the chain's first row")
        if previous is not None:
            if whole and seq != previous[0] + 1:
                problems.append(f"cash log: rows missing between seq {previous[0]} and {seq}")
            elif seq == previous[0] + 1 and record["prev_hash"] != previous[1]:
                problems.append(f"cash row seq {seq}: does not follow the row before it")
        previous = (seq, record["row_hash"])
        by_day.setdefault(record["gaming_day"], []).append(seq)
        hashes[seq] = record["row_hash"]
        checked += 1
    return checked, problems + _against_checkpoints(manifest, by_day, hashes)


def _against_checkpoints(manifest: dict, by_day: dict, hashes: dict) -> list[str]:
    """The export against the signed cash checkpoints in its manifest (gaming day D, last
    seq M, head H, rows R): exactly R rows of D up to M, and row M with hash H."""
    problems = []
    for doc in manifest.get("checkpoints", []):
        where = f"cash log gaming day {doc.get('gaming_day')} seq {doc.get('last_seq')}"
        if doc.get("log") != "cash" or not checkpoints.document_signature_valid(doc):
            problems.append(f"checkpoint of the {where}: its signature does not verify (forged, altered, or another key)")
            continue
        last_seq, day = doc["last_seq"], doc["gaming_day"]
        held = sum(1 for seq in by_day.get(day, ()) if seq <= last_seq)
        if held != doc["rows"]:
            problems.append(f"{where}: the export holds {held} rows up to seq {last_seq}, the checkpoint signed {doc['rows']}")
        elif doc["rows"] and hashes.get(last_seq) != doc["head"]:
            problems.append(f"{where}: row seq {last_seq} is not the row the checkpoint signed (rewritten after it)")
    return problems
