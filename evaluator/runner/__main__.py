import sys

from evaluator.runner.agent import main

sys.exit(main())
