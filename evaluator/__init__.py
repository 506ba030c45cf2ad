"""The evaluator: harness/ (pure torch + triton + stdlib), the runner agent, and the site-side
Chip/Runner/Job models and tasks. Importing this package must not import Django."""
