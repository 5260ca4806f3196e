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
