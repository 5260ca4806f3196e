"""A server error's reference: the short code its page shows and its log line carries.

The 500 page (web.errors.server_error) tells the person no more than that the
server failed, with DEBUG off as `make run` and production serve: no traceback, no
settings. Its reference lets support find the one log line, with the traceback under it,
that belongs to that page, among the others of the same minute.

Django renders the 500 page (handler500) before it logs the failure
(django.core.handlers.exception.response_for_exception), so the view sets the
reference on the request and this filter adds it to the `django.request` record, which
carries the request.
"""

import logging
import secrets

# Eight characters: digits and capitals without look-alikes (no 0/O, 1/I/L), read aloud
# over the phone or typed from a photo of the screen. About 40 bits: a clash within one
# cardroom's logs is not a practical concern.
_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"


def new_reference() -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(8))


def reference_of(request) -> str:
    """The request's error reference, made once (the page and the log share it)."""
    reference = getattr(request, "error_reference", None)
    if reference is None:
        reference = request.error_reference = new_reference()
    return reference


class ErrorReferenceFilter(logging.Filter):
    """Appends "[error reference X]" to a django.request record whose request has one."""

    def filter(self, record):
        reference = getattr(getattr(record, "request", None), "error_reference", None)
        # (log_response's arguments are a tuple; a mapping would take no positional one)
        if reference and isinstance(record.args, tuple) and not getattr(record, "error_reference", None):
            record.error_reference = reference
            record.msg = f"{record.msg} [error reference %s]"
            record.args = (*record.args, reference)
        return True
