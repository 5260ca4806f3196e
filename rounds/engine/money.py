"""Money as people read it. Amounts are integer cents everywhere in the engine, the
ledgers and the exports; this is the one place they are written in dollars, for the
engine's own texts (the floor's alerts) and, through the compliance template filter
`dollars`, for the pages."""


def dollars(cents) -> str:
    """12345 -> "$123.45", -500 -> "-$5.00", None or "" -> "" (no amount, e.g. no count
    entered yet)."""
    if cents is None or cents == "":
        return ""
    cents = int(cents)
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}${whole:,}.{part:02d}"
