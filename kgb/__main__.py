import sys

from kgb.cli import main

sys.exit(main())
