"""Small bar charts as inline SVG, drawn on the server from a list of integer cents (or
counts).

Plain SVG rather than a charting library: the charts are a dozen bars with no
interaction, so a library would be a script to pin, serve and keep up to date for what a
few lines of markup do, and the pages would need JavaScript to show them (the closer and
count pages have none). The markup is built with Django's escaping, so a label can never
break out of the SVG.

Scale: a bar's height is proportional to its value's magnitude against the largest
magnitude in the series. Negative values (a short count's variance) hang below a zero
line, positive ones stand above it; a zero is drawn as no bar at all. An empty series
draws an empty frame that says "no data". The <title> and aria-label spell every value
out (in dollars for money), so a screen reader or a hover reads the numbers, not a shape.
"""

from __future__ import annotations

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

WIDTH = 140
HEIGHT = 36
GAP = 1


def dollars(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) / 100:,.2f}"


def bar_geometry(values: list[int], *, width: int = WIDTH, height: int = HEIGHT) -> tuple[float, list[dict]]:
    """Where the zero line sits (y) and each bar's x, y, width and height, in SVG units.

    The zero line is at the bottom when nothing is negative, at the top when nothing is
    positive, else where it splits the height in proportion to the largest rise and fall.
    """
    if not values:
        return float(height), []
    top = max(max(values), 0)
    bottom = min(min(values), 0)
    span = top - bottom
    zero_y = height * top / span if span else float(height)
    slot = width / len(values)
    bars = []
    for index, value in enumerate(values):
        # Proportional to the magnitude: every bar uses the same units per cent.
        extent = height * abs(value) / span if span else 0.0
        bars.append({
            "x": index * slot + GAP / 2,
            "y": zero_y - extent if value > 0 else zero_y,
            "width": max(slot - GAP, 0.5),
            "height": extent,
            "value": value,
        })
    return zero_y, bars


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def bar_chart(values: list[int], labels: list[str], *, title: str, money: bool = True,
              width: int = WIDTH, height: int = HEIGHT, css_class: str = "") -> SafeString:
    """An inline <svg> bar chart of `values` (cents when `money`, else plain counts), one
    bar per value, labelled by `labels` (the same length) in its title and aria-label."""
    if len(labels) != len(values):
        raise ValueError("a chart needs one label per value")
    show = dollars if money else str
    spoken = "; ".join(f"{label}: {show(value)}" for label, value in zip(labels, values)) or "no data"
    text = f"{title}. {spoken}"
    zero_y, bars = bar_geometry(values, width=width, height=height)
    rects = format_html_join(
        "", '<rect class="{}" x="{}" y="{}" width="{}" height="{}"><title>{}: {}</title></rect>',
        (
            ("neg" if bar["value"] < 0 else "pos" if bar["value"] > 0 else "zero", _number(bar["x"]), _number(bar["y"]), _number(bar["width"]),
             _number(bar["height"]), label, show(bar["value"]))
            for bar, label in zip(bars, labels)
        ),
    )
    return format_html(
        '<svg class="chart {}" role="img" aria-label="{}" viewBox="0 0 {} {}" width="{}" height="{}" '
        'xmlns="http://www.w3.org/2000/svg"><title>{}</title>'
        '<line class="zero" x1="0" x2="{}" y1="{}" y2="{}"></line>{}</svg>',
        css_class, text, width, height, width, height, text, width, _number(zero_y), _number(zero_y), rects,
    )
