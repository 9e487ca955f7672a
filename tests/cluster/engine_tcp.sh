#!/bin/bash
# The point-to-point engine between two virtual hosts over TCP: two network
# namespaces with a management network and two rails (tests/cluster/vcluster.sh),
# the engine test's protocols over them (large payloads must be received
# straight into the receive buffer: the test checks the counters, and the
# finalize statistics must show them), then a stray connection carrying
# garbage that must be refused without disturbing anything. Root only;
# everything is torn down on exit, also on failure.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
cluster_up e 2 2
# no RAILMPI_JOB_SECRET, as under srun or Hydra: rank 0 draws the secret and
# publishes it through the (stand-in) launcher; launch_hosts.sh covers the
# one mpiexec issues
unset RAILMPI_JOB_SECRET
# only the data rails: the management network is the launcher's
export RAILMPI_TCP_RAILS=$rails
out=$(RAILMPI_VERBOSE=1 RAILMPI_STATS=1 RM_TEST_STEPS=1 timeout 120 "$build/bin/test_proto" "${name}h1" "${name}h2" 2>&1)
rc=$?
# the whole log on failure: a hang here must be explainable afterwards
[ $rc = 0 ] && echo "$out" | tail -3 || echo "$out" | tail -40
[ $rc = 0 ] && echo "$out" | grep -q "^OK" || { echo "FAIL: engine over tcp (rc $rc)"; exit 1; }
echo "$out" | grep -q "refused a connection .*not a railmpi peer" || { echo "FAIL: garbage connection not refused"; exit 1; }
echo "$out" | grep -q "refused a connection .*wrong job secret" || { echo "FAIL: wrong secret not refused"; exit 1; }
echo "$out" | grep -qE "stats: peer 0 rail [0-9]+ \(tcp\): sent .*; zero-copy received [1-9][0-9]* bytes" ||
    { echo "FAIL: no zero-copy receive in the statistics"; exit 1; }
echo "OK: engine over tcp"
