#!/usr/bin/env bash
# Boot the site as production does (README, "Production settings"): DEBUG=0, a real SECRET_KEY, PostgreSQL,
# the README's deploy steps, gunicorn serving the static files through whitenoise behind a TLS-terminating
# proxy (KGB_HTTPS=1, KGB_BEHIND_PROXY=1); then fetch every public page (.ci/prod_smoke.py) and read
# gunicorn's log for server errors. Everything it makes is thrown away: a database of its own on the
# PostgreSQL at 127.0.0.1:5432 (user postgres, trust auth), a temporary var/ and the gunicorn it started.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PY:-.venv/bin/python}"
GUNICORN="${GUNICORN:-.venv/bin/gunicorn}"
DB="kgb_boot_$$_${RANDOM}"
WORK="$(mktemp -d)"
GUNICORN_PID=""

cleanup() {
    if [[ -n "$GUNICORN_PID" ]] && kill -0 "$GUNICORN_PID" 2>/dev/null; then
        kill -INT "$GUNICORN_PID" 2>/dev/null || true  # gunicorn's quick shutdown: the master stops its workers
        for _ in $(seq 1 100); do kill -0 "$GUNICORN_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$GUNICORN_PID" 2>/dev/null || true
        wait "$GUNICORN_PID" 2>/dev/null || true
    fi
    psql -h 127.0.0.1 -U postgres -q -c "DROP DATABASE IF EXISTS \"$DB\" WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# only what production sets: nothing of the test suite's environment (.ci/run exports its own)
unset KGB_TESTING DJANGO_SETTINGS_MODULE CELERY_BROKER_URL KGB_TEST_REDIS_URL CELERY_TASK_ALWAYS_EAGER
export DEBUG=0
export SECRET_KEY="$("$PY" -c 'import secrets; print(secrets.token_urlsafe(50))')"
export ALLOWED_HOSTS=127.0.0.1
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$DB"
export KGB_VAR_DIR="$WORK/var"
export KGB_HTTPS=1 KGB_BEHIND_PROXY=1
export LOG_LEVEL=WARNING

psql -h 127.0.0.1 -U postgres -q -c "CREATE DATABASE \"$DB\"" >/dev/null
mkdir -p "$KGB_VAR_DIR"

step() { printf '[prod boot %3ds] %s\n' "$SECONDS" "$*"; }
SECONDS=0
# the README's deploy steps (one command a line: under `set -e` a failure inside an && list would not stop us)
step "migrate, sync_operators, seed_chips"
"$PY" manage.py migrate --verbosity 0
"$PY" manage.py sync_operators
"$PY" manage.py seed_chips
step "collectstatic"
"$PY" manage.py collectstatic --noinput --verbosity 1
step "check --deploy"
"$PY" manage.py check --deploy --fail-level WARNING
# pages of every kind need rows: the labelled demo data (submissions, attempts, evaluations, paper figures)
step "seed_demo"
"$PY" manage.py seed_demo

step "gunicorn"
PORT="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$GUNICORN" kgsite.wsgi --bind "127.0.0.1:$PORT" \
    --error-logfile "$WORK/gunicorn.log" --capture-output >/dev/null 2>&1 &
GUNICORN_PID=$!
for _ in $(seq 1 100); do
    curl -fsS -o /dev/null -H 'X-Forwarded-Proto: https' "http://127.0.0.1:$PORT/accounts/login/" 2>/dev/null && break
    kill -0 "$GUNICORN_PID" 2>/dev/null || { cat "$WORK/gunicorn.log"; echo "gunicorn exited"; exit 1; }
    sleep 0.2
done

step "fetching every public page"
status=0
"$PY" .ci/prod_smoke.py "http://127.0.0.1:$PORT" || status=$?
if grep -E "Internal Server Error|Traceback" "$WORK/gunicorn.log" >/dev/null; then
    echo "gunicorn logged server errors:"
    cat "$WORK/gunicorn.log"
    status=1
fi
step "done (status $status)"
exit "$status"
