#!/usr/bin/env bash
# Build what one lent-GPU device call needs, on this machine: a scratch site with the reference
# solutions submitted for CHIP, a registered runner, the exported job bundle split into chunks
# (bench/split_jobs.py) and the runner's token, all under DEST (a folder that .git/info/exclude
# ignores and the device call carries), plus a clean copy of HEAD to run from.
#   bench/prepare_h200_bundle.sh DEST [CHIP=h200] [split_jobs options...]
# Then: device run with carry [DEST], command
#   cd DEST/src && KGB_RUNNER_TOKEN=$(cat ../token) bash bench/h200_call.sh ../chunks $OUT 450 3 0.2
# and back here: python manage.py import_results RESULTS.json (DATABASE_URL=sqlite:///DEST/site.sqlite3).
set -eu
dest=$1; chip=${2:-h200}; shift $(( $# < 2 ? $# : 2 ))
python=${PYTHON:-.venv/bin/python}
mkdir -p "$dest"
git check-ignore -q "$dest" || echo "/${dest#./}/" >> .git/info/exclude   # never committed, carried by the call
rm -rf "$dest/src" "$dest/chunks"; mkdir -p "$dest/src"
git archive HEAD | tar -x -C "$dest/src"
export DEBUG=1 DATABASE_URL="sqlite:///$(cd "$dest" && pwd)/site.sqlite3"
"$python" manage.py bootstrap > /dev/null
"$python" manage.py submit_reference_solutions --chip "$chip"
"$python" manage.py shell -c "
from django.contrib.auth import get_user_model
from evaluator.models import Chip, Runner
from evaluator.services import register_runner
staff, _ = get_user_model().objects.get_or_create(username='bench-ops', defaults={'is_staff': True})
name = 'lent-$chip-' + str(Runner.objects.count() + 1)
runner, token = register_runner(chip=Chip.objects.get(slug='$chip'), name=name, user=staff)
open('$dest/token', 'w').write(token)
print('runner', runner)
"
"$python" manage.py export_jobs --chip "$chip" > "$dest/jobs.json"
"$python" bench/split_jobs.py "$dest/jobs.json" --out-dir "$dest/chunks" "$@"
du -sh "$dest"
