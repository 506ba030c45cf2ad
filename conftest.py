import os

# The suite runs with test settings: a fixed dev secret, localhost hosts, eager nothing.
os.environ.setdefault("KGB_TESTING", "1")
os.environ.setdefault("DEBUG", "0")
