"""The size limit of a multipart request, enforced while it streams in.

Django bounds the non-file fields of a request (DATA_UPLOAD_MAX_MEMORY_SIZE) but not its files: a
file part goes to the upload handlers, which by default keep it in memory up to
FILE_UPLOAD_MAX_MEMORY_SIZE and spool the rest to disk, however large. A 150 MiB body was read whole
(into a temporary file) before the upload form or serializer said it was too large.

`RequestSizeLimitHandler` comes first in settings.FILE_UPLOAD_HANDLERS. It refuses a body whose
declared Content-Length is over settings.KGB_MAX_UPLOAD_REQUEST_BYTES before a byte of it is read,
and counts the file bytes as they arrive, refusing as soon as they pass the limit (a body without a
trustworthy length). The refusal is `RequestTooLarge`, a RequestDataTooBig: Django answers it with
400 wherever the body is first read (the CSRF check of a form, a view), the APIs with 413 and the
error body of every API refusal (kgsite.error_handlers).
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.files.uploadhandler import FileUploadHandler


class RequestTooLarge(RequestDataTooBig):
    """The request body is over settings.KGB_MAX_UPLOAD_REQUEST_BYTES."""


def upload_limit_bytes() -> int:
    return settings.KGB_MAX_UPLOAD_REQUEST_BYTES


def too_large_message() -> str:
    return f"The request is larger than {upload_limit_bytes() // (1024 * 1024)} MiB, the limit of an upload."


class RequestSizeLimitHandler(FileUploadHandler):
    """Refuses a multipart body over the limit, by its declared length or while its files stream in."""

    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None):
        if content_length > upload_limit_bytes():
            raise RequestTooLarge(too_large_message())
        self.received = 0
        return None  # the other handlers parse it

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self.received = getattr(self, "received", 0) + len(raw_data)
        if self.received > upload_limit_bytes():
            raise RequestTooLarge(too_large_message())
        return raw_data  # on to the next handler, which keeps it

    def file_complete(self, file_size: int) -> None:
        return None  # the next handler returns the file
