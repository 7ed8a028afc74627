#!/usr/bin/env bash
# The results store's tests against a real PostgreSQL server that this test
# starts itself: Debian's postgresql (initdb + pg_ctl in a temporary folder,
# run as the unprivileged user nobody, listening on a Unix socket only). The
# core tests of the store then run with MILABENCH_TEST_PG set (each in its own
# schema) and must all run, none skipped. Exit 77 (skipped) only when not root.
set -euo pipefail
MILARUN=$1; SRC=$2
CORE_TESTS=$(dirname "$MILARUN")/core_tests
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: not root: cannot start a PostgreSQL server as another user"; exit 77; }
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] && [ -x "$bin/initdb" ] || fail "Debian's postgresql is not installed (scripts/install-deps.sh test)"
[ -x "$CORE_TESTS" ] || fail "$CORE_TESTS is missing (cmake --build build --target core_tests)"
work=$(mktemp -d)
as_pg() { runuser -u nobody -- "$@"; }
cleanup() {
  as_pg "$bin/pg_ctl" -D "$work/data" -m immediate stop > /dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
mkdir -p "$work/data" "$work/sock"
chown nobody "$work/data" "$work/sock"
as_pg "$bin/initdb" -D "$work/data" -A trust -U nobody > "$work/initdb.log" 2>&1 || { cat "$work/initdb.log"; fail "initdb"; }
as_pg "$bin/pg_ctl" -D "$work/data" -l "$work/sock/server.log" -w -t 60 \
  -o "-k $work/sock -c listen_addresses= -c fsync=off" start > /dev/null || { cat "$work/sock/server.log"; fail "pg_ctl start"; }

export MILABENCH_TEST_PG="postgresql:///postgres?host=$work/sock&user=nobody"
out=$("$CORE_TESTS" --gtest_filter='*/postgresql' 2>&1) || { echo "$out"; fail "store tests against PostgreSQL"; }
echo "$out" | grep -E "^\[       OK \]"
ran=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')
[ "${ran:-0}" -ge 8 ] || fail "expected the store's fault tests to run against PostgreSQL, got ${ran:-0}"
! echo "$out" | grep -q "SKIPPED" || fail "a PostgreSQL test was skipped with the server up"
echo "PASS: store tests against PostgreSQL ($ran)"
