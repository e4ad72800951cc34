#!/usr/bin/env bash
# Runs the Python package's tests for ctest: fails when a test fails, and also when pytest
# collects no test at all (its exit code 5), which would otherwise hide a broken set-up.
# Usage: run_pytest.sh PYTHON TEST_DIR [pytest arguments]
set -uo pipefail
python=$1
tests=$2
shift 2
"$python" -m pytest -q -rs -p no:cacheprovider "$tests" "$@"
rc=$?
if [ $rc -eq 5 ]; then
  echo "run_pytest: pytest collected no tests in $tests"
  exit 1
fi
exit $rc
