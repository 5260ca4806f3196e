"""Template filters for the compliance pages: money is stored in integer cents and shown
in dollars with two decimals on the pages only (CSV exports keep cents)."""

from django import template

from rounds import labels
from rounds.engine import money

register = template.Library()


# The engine's formatter itself: one way to write money, for the engine's texts and the pages.
dollars = register.filter("dollars", money.dollars)


@register.filter("words")
def code_words(code):
    """A code field (status, action, kind) as words (rounds/labels.py)."""
    return labels.words(code)


@register.filter("words_in")
def codes_to_words(text):
    """A recorded sentence with its codes as words (rounds/labels.py)."""
    return labels.words_in(text)


@register.filter
def label(key):
    """An engine key (`one_pair`, `bad_beat`, `royal_first_five`) in words (rounds/labels.py);
    the exports keep the keys."""
    from rounds.labels import label as words

    return words(key)


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


def _words(key) -> str:
    return str(key).replace("_", " ")


def _value_text(value) -> str:
    if isinstance(value, dict):
        shown = [f"{_words(k)} {_value_text(v)}" for k, v in value.items() if v not in (None, "", [], {})]
        unset = [_words(k) for k, v in value.items() if v in (None, "", [], {})]
        return ", ".join(shown + ([f"{' and '.join(unset)} not set"] if unset else [])) or "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(_value_text(v) for v in value) or "none"
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return str(value)


@register.filter
def filters_text(filters) -> str:
    """An export's filters as a person reads them: {"day_from": "2026-03-02", "closes":
    {"day": None, "swing": 3}} -> "day from 2026-03-02; closes: swing 3, day not set".
    Empty filters are left out; no filter at all reads "none"."""
    if not filters:
        return "none"
    parts = []
    for key, value in filters.items():
        if value in (None, "", [], {}):
            continue
        parts.append(f"{_words(key)}: {_value_text(value)}" if isinstance(value, dict) else f"{_words(key)} {_value_text(value)}")
    return "; ".join(parts) or "none"
