"""The runner agent: `python -m evaluator.runner --site URL --token-file FILE`.

Runs on the accelerator machine with only the harness, Celery and requests: it never imports
Django and holds no database credentials. It fetches its chip's queue from the site, runs one
Celery worker per accelerator consuming `chip.<slug>`, claims each job over HTTP, evaluates it
with the harness and posts the result, and sends heartbeats with an environment fingerprint.
"""

AGENT_VERSION = "2"  # 2: claim leases (renewed while a job runs, sent with its result)
