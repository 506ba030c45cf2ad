"""Settings for the test suite: the ordinary settings with KGB_TESTING on (dev secret key,
localhost hosts, plain static storage). Everything else still comes from the environment, so
CI can point the same suite at PostgreSQL and Redis."""

import os

os.environ.setdefault("KGB_TESTING", "1")

from kgsite.settings import *  # noqa: F403
