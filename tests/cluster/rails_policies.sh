#!/bin/bash
# Every scheduling policy over 2 hosts x 2 rails with 2 ranks per host, and
# adaptive over 3 hosts: a stress mix of checksummed messages (0 B - 8 MiB,
# wildcards, Ssend, collectives) must arrive intact exactly once, striping
# policies must put bytes on both rails (first and failover on rail 0 only,
# failover's rail 1 a quiet standby), and large messages must be received
# straight into the receive buffer (zero copy). Root only; torn down on exit.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
cluster_up p 3 2
"$build/bin/mpicc" -O2 "$here/stress.c" -o "$tmp/stress" || { echo "FAIL: cannot build stress"; exit 1; }
run() { # hosts policy rounds [mpiexec options...]
    timeout 150 "$build/bin/mpiexec" -hosts "$1" -ppn 2 -launcher-exec "ip netns exec" -iface "${name}mbr" \
        -genv RAILMPI_TCP_RAILS "$rails" -genv RAILMPI_RAIL_POLICY "$2" \
        -genv RAILMPI_STATS 1 -genv RAILMPI_VERBOSE 1 "${@:4}" "$tmp/stress" "$3" 7 >"$tmp/out" 2>&1
}
for pol in first round-robin binding even weighted adaptive failover; do
    run "${name}h1,${name}h2" $pol 6 || fail "$pol: $(grep -m3 -E 'FAIL|mpiexec' "$tmp/out")"
    grep -q "^OK" "$tmp/out" || fail "$pol: no OK"
    # bytes a rank sent to a remote peer on rail 1
    r1=$(grep -E "stats: peer [0-9]+ rail 1 \(tcp\)" "$tmp/out" | sed -E 's/.*sent [0-9]+ frames ([0-9]+) bytes.*/\1/' | awk '{s += $1} END {print s + 0}')
    zc=$(grep -E "stats: peer [0-9]+ rail [0-9]+ \(tcp\)" "$tmp/out" | sed -nE 's/.*zero-copy received ([0-9]+) bytes.*/\1/p' | awk '{s += $1} END {print s + 0}')
    [ "$zc" -gt 0 ] || fail "$pol: no payload received in place"
    case $pol in
        first) [ "$r1" = 0 ] || fail "first policy used rail 1 ($r1 bytes)" ;;
        failover) # all data on rail 0 unless a heartbeat came late (a loaded machine,
                  # a sanitizer build): then a rail may be suspected or failed, and
                  # the standby take over, which is right
                  grep -qE "rail event .* rail 1: armed \(connected and probed, standing by\)" "$tmp/out" ||
                      fail "failover: rail 1 was not reported as an armed standby"
                  if grep -qE "rail event .* rails? [0-9,]+: (suspect|failed)" "$tmp/out"; then
                      echo "failover: a late heartbeat under load: $(grep -m1 -E 'rail event .*(suspect|failed)' "$tmp/out")"
                  else
                      [ "$r1" = 0 ] || fail "failover policy sent data on its standby rail 1 ($r1 bytes)"
                      grep -qE "rail event .* rail 1: (suspect|failed|migrated)" "$tmp/out" &&
                          fail "failover: rail 1 changed state without a fault: $(grep -m3 'rail event' "$tmp/out")"
                  fi ;;
        even|weighted|adaptive|round-robin) [ "$r1" -gt 0 ] || fail "$pol never used rail 1" ;;
    esac
done
run "${name}h1,${name}h2,${name}h3" adaptive 4 || fail "3 hosts: $(grep -m3 -E 'FAIL|mpiexec' "$tmp/out")"
grep -q "^OK" "$tmp/out" || fail "3 hosts: no OK"
# the same mix with placement off: the staging path stays correct
run "${name}h1,${name}h2" adaptive 3 -genv RAILMPI_ZCOPY_RECV 0 || fail "staged: $(grep -m3 -E 'FAIL|mpiexec' "$tmp/out")"
grep -q "^OK" "$tmp/out" || fail "staged: no OK"
grep -qE "zero-copy received [1-9]" "$tmp/out" && fail "staged: a payload was placed with RAILMPI_ZCOPY_RECV=0"
[ $fails = 0 ] && echo "OK: every policy over 2 and 3 hosts" || exit 1
