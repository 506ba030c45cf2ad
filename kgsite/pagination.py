"""The REST APIs' pagination: DRF's limit/offset, with a largest page.

Without `max_limit`, `?limit=99999999999999999999999` went straight into the SQL LIMIT and overflowed
the database's integer (a 500); a larger limit now gives the largest page, with a `next` link. A huge
`?offset=` needs nothing: DRF answers an offset past the count with an empty page before it queries.
"""

from __future__ import annotations

from rest_framework.pagination import LimitOffsetPagination

MAX_PAGE_SIZE = 1000


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    max_limit = MAX_PAGE_SIZE
