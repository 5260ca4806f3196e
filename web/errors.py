"""The site's 500 page (config/urls.py `handler500`): kernel, not a table or staff screen,
since every page of every app may end here."""

from django.http import HttpResponse
from django.shortcuts import render

from cardroom.errors import reference_of


def server_error(request):
    """The 500 page with the site's navigation and the failure's reference, which the log
    line of its traceback carries too (cardroom.errors); without the navigation when even
    that fails (the database gone: the navigation asks for the person's role)."""
    reference = reference_of(request)
    try:
        return render(request, "500.html", {"reference": reference}, status=500)
    except Exception:
        return HttpResponse(
            "<h1>Server error</h1><p>The server failed. Try again in a moment.</p>"
            f'<p>Error reference <code class="error-reference">{reference}</code></p>',
            status=500,
        )
