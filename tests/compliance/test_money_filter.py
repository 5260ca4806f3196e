"""The pages write money with the engine's formatter (rounds.engine.money), so an amount
reads the same in a floor alert and on a compliance page."""

from django.template import Context, Template

from rounds.engine import money


def test_the_dollars_filter_is_the_engines_formatter():
    rendered = Template("{% load compliance %}{{ a|dollars }}|{{ b|dollars }}|{{ c|dollars }}").render(
        Context({"a": 123456, "b": -5, "c": None})
    )
    assert rendered == "|".join(money.dollars(x) for x in (123456, -5, None))
    from collections_fees.templatetags import compliance

    assert compliance.dollars is money.dollars
