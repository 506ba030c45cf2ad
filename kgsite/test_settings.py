"""Settings for the test suite: the ordinary settings with KGB_TESTING on (dev secret key,
localhost hosts, plain static storage). Everything else still comes from the environment, so
CI can point the same suite at PostgreSQL and Redis."""

import os

os.environ.setdefault("KGB_TESTING", "1")

from kgsite.settings import *  # noqa: F403

if DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    # A file, not Django's in-memory default: with an in-memory database the live server thread and
    # the test thread share ONE connection, and their overlapping statements fail at random
    # ("cannot release savepoint - SQL statements in progress"). With a file each thread has its
    # own connection and SQLite's busy timeout serialises them. pytest-django adds a suffix per
    # xdist worker; Django deletes the file when the run ends.
    import tempfile

    DATABASES["default"]["TEST"] = {"NAME": os.path.join(tempfile.gettempdir(), f"kgb-test-{os.getpid()}")}  # noqa: F405
