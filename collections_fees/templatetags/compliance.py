"""Template filters for the compliance pages: money is stored in integer cents and shown
in dollars with two decimals here only (CSV exports keep cents)."""

from django import template

register = template.Library()


@register.filter
def dollars(cents):
    """12345 -> "$123.45", -500 -> "-$5.00", None -> "" (no count entered)."""
    if cents is None or cents == "":
        return ""
    cents = int(cents)
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}${whole:,}.{part:02d}"


@register.filter
def signed_dollars(cents):
    """A variance: "+$1.00", "-$1.00", "$0.00"."""
    if cents is None or cents == "":
        return ""
    return ("+" if int(cents) > 0 else "") + dollars(cents)


@register.filter
def side_bets_offered(side_bets):
    """A configuration version's side bets (docs/commands.md `side_bets`) in words: "none", or
    each bet's pay table and limits, the progressive's wager and meter."""
    if not side_bets:
        return "none"
    parts = []
    for key, label in (("bad_beat", "Bad Beat"), ("pairs", "Pairs")):
        bet = side_bets.get(key)
        if bet:
            low, high = bet.get("min"), bet.get("max")
            limits = f" ({dollars(low) or 'no minimum'} to {dollars(high) or 'no maximum'})" if low or high else ""
            parts.append(f"{label} {bet['paytable']}{limits}")
    progressive = side_bets.get("progressive")
    if progressive:
        meter = progressive["meter"]
        parts.append(
            f"Progressive {progressive['paytable']}: {dollars(progressive['wager'])} wager, meter {meter['name']} "
            f"({meter['meter_share']}% to the meter, seed {dollars(meter['seed'])})"
        )
    return "; ".join(parts)
