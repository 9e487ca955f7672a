#!/bin/bash
# railmpi's demo: install the Debian packages it needs, build, install in
# /opt/railmpi (RAILMPI_PREFIX overrides), run MPI programs (one built against
# Debian's MPICH, unchanged), a short side-by-side with MPICH and Open MPI,
# then the centrepiece: a live failover. Two virtual hosts joined by two
# 1 Gbit/s rails stream data; 6 s in, one host's NIC on rail 1 goes down, 6 s
# later it comes back. The demo plots bandwidth over time with both moments
# marked (demo-out/failover.png) and sums up what happened
# (demo-out/failover.txt). About two minutes after the build; root only; the
# virtual cluster is removed on any exit, Ctrl-C included.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
[ "$(id -u)" = 0 ] || { echo "demo: run as root (packages, $0 installs in /opt, network namespaces)" >&2; exit 1; }
out=$top/demo-out
mkdir -p "$out"
prefix=${RAILMPI_PREFIX:-/opt/railmpi}
step() { printf '\n== %s\n' "$*"; }
die() { echo "demo: $*" >&2; exit 1; }
quiet() { # LOG CMD...: the command's output goes to LOG, shown only if it fails
    local log=$1; shift
    "$@" > "$log" 2>&1 || { tail -30 "$log"; die "failed: $* (log: $log)"; }
}

step "1/5 packages, build, install in $prefix"
bash scripts/deps.sh || die "cannot install the packages"
quiet "$out/build.log" cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
quiet "$out/build.log" cmake --build build -j"$(nproc)"
quiet "$out/install.log" cmake --install build --prefix "$prefix"
echo "installed: $prefix/bin/{mpicc,mpiexec,railbench}, $prefix/lib/libmpi.so.12"

step "2/5 an MPI program built with railmpi's mpicc, 4 ranks on this host"
"$prefix/bin/mpicc" -O2 examples/ring.c -o "$out/ring" || die "mpicc failed"
echo "\$ mpiexec -n 4 -l demo-out/ring"
"$prefix/bin/mpiexec" -n 4 -l --timeout 60 "$out/ring" || die "ring failed"

step "3/5 the same program built against Debian's MPICH, run on railmpi unchanged"
mpicc.mpich -O2 examples/ring.c -o "$out/ring.mpich" 2>/dev/null || die "mpicc.mpich failed"
echo "\$ LD_LIBRARY_PATH=$prefix/lib mpiexec -n 3 demo-out/ring.mpich"
LD_LIBRARY_PATH=$prefix/lib "$prefix/bin/mpiexec" -n 3 --timeout 60 "$out/ring.mpich" || die "ring.mpich failed"

step "4/5 side by side on this host: railmpi, MPICH, Open MPI (one round; the machine may be busy)"
bash bench/run.sh --quick --rounds 1 --build build || echo "(the side-by-side run failed; going on)"

step "5/5 live failover: 2 hosts x 2 rails at 1 Gbit/s, rail 1 fails mid-stream and comes back"
fault_build=$prefix
. tests/fault/lib.sh
fault_cluster v 1gbit
rail0=$(vc net "$name" 0)
echo "virtual cluster $name: hosts ${name}h1 ${name}h2, rails $rails"
echo "rail 0 alone first (the rate the job should keep while rail 1 is down) ..."
stream_run 4 "$out/one-rail.dat" RAILMPI_TCP_RAILS="$rail0" || die "the one-rail stream failed: $(tail -3 "$out/one-rail.dat.err")"
# the first second warms connections up; the rest is the rail's rate
one=$(awk '!/^#/ && NF == 2 { if (!t0) t0 = $1; if ($1 - t0 > 1) { s += $2; n++ } } END { printf "%.0f", n ? s / n : 0 }' "$out/one-rail.dat")
echo "  rail 0 alone: $one MB/s"
down_at=6 down_for=6 secs=20
echo "both rails, $secs s: railbench -t bw -T $secs -a -c (16 x 1 MiB per iteration, every message verified);"
echo "at ${down_at} s host 1's NIC on rail 1 goes down (vcluster.sh nic-down), at $((down_at + down_for)) s it comes back ..."
fault_start nic "$down_at" "$down_for"
stream_run "$secs" "$out/failover.dat"
stream_rc=$?
fault_wait
eval "$(stream_analyze "$out/failover.dat" "$one" | sed 's/^/f_/')"
[ -z "${f_error:-}" ] || die "the stream printed nothing: $(tail -5 "$out/failover.dat.err")"

# The plot: seconds since the stream began; the rail's downtime shaded.
awk -v t0="$f_t0" '!/^#/ && NF == 2 { printf "%.3f %s\n", $1 - t0, $2 }' "$out/failover.dat" > "$tmp/plot.dat"
# the whole stream, also when a stall made it overrun its $secs s
xmax=$(awk -v s=$secs '{ x = $1 } END { x = int(x) + 1; print (x > s ? x : s) }' "$tmp/plot.dat")
marks=""
[ "$f_failover" = - ] || marks+="set arrow from $f_fault + $f_failover, graph 0.80 to $f_fault + $f_failover, graph 0.70 lc rgb 'dark-green' lw 2
set label \"traffic on rail 0 alone\\n+$f_failover s\" at $f_fault + $f_failover + 0.2, graph 0.84 left tc rgb 'dark-green' boxed front
"
[ "$f_back" = - ] || marks+="set arrow from $f_restore + $f_back, graph 0.80 to $f_restore + $f_back, graph 0.70 lc rgb 'dark-green' lw 2
set label \"both rails again\\n+$f_back s\" at $f_restore + $f_back + 0.2, graph 0.84 left tc rgb 'dark-green' boxed front
"
gnuplot > "$tmp/gnuplot.log" 2>&1 <<GP || echo "(gnuplot failed: $(tail -2 "$tmp/gnuplot.log"))"
set terminal pngcairo size 1100,520 font "sans,11"
set output "$out/failover.png"
set title "railmpi: bandwidth between 2 hosts over 2 rails of 1 Gbit/s while rail 1 fails and comes back"
set xlabel "time since the stream began (s)"
set ylabel "MB/s (one point per 16 MiB iteration)"
set xrange [0:$xmax]
set yrange [0:300]
set grid ytics lc rgb "#dddddd"
set style textbox opaque noborder
set key below horizontal
set object 1 rect from $f_fault, graph 0 to $f_restore, graph 1 fc rgb "#fbe3e3" fs solid 1.0 noborder behind
set arrow from $f_fault, graph 0 to $f_fault, graph 1 nohead lc rgb "red" lw 2
set arrow from $f_restore, graph 0 to $f_restore, graph 1 nohead lc rgb "blue" lw 2
set label "rail 1 down\n(host 1's NIC)" at $f_fault + 0.15, graph 0.93 left tc rgb "red"
set label "rail 1 back" at $f_restore + 0.15, graph 0.93 left tc rgb "blue"
$marks
plot 250 with lines dt 2 lc rgb "gray40" title "line rate, 2 rails (250 MB/s)", \
     125 with lines dt 3 lc rgb "gray40" title "line rate, 1 rail (125 MB/s)", \
     "$tmp/plot.dat" using 1:2 with fsteps lw 2 lc rgb "#1f5fbf" title "railbench -t bw"
GP

{
    echo "Live failover: 2 hosts x 2 rails at 1 Gbit/s (line rate 125 MB/s each), railbench bandwidth stream"
    echo "rail 1 (host 1's NIC) down at ${f_fault} s, back at ${f_restore} s"
    printf '  %-40s %s\n' "bandwidth before the fault" "$f_before MB/s (both rails)"
    printf '  %-40s %s\n' "while rail 1 was down" "$f_during MB/s (rail 0 alone measured $one MB/s)"
    if [ "$f_failover" != - ]; then
        printf '  %-40s %s\n' "time to fail over (traffic on rail 0)" "$f_failover s"
        printf '  %-40s %s\n' "rate on rail 0 alone after failover" "$f_single MB/s"
    else
        printf '  %-40s %s\n' "time to fail over (traffic on rail 0)" "none: traffic stood still for $f_stall s"
    fi
    printf '  %-40s %s\n' "rail 1 failure detected (rail event)" "$( [ "$f_detected" = - ] && echo "not reported" || echo "+$f_detected s")"
    printf '  %-40s %s\n' "time to get both rails back" "$( [ "$f_back" = - ] && echo "not within the run" || echo "$f_back s after the NIC came back")"
    printf '  %-40s %s\n' "bandwidth after" "${f_after} MB/s"
    printf '  %-40s %s\n' "messages verified (1 MiB each)" "$f_verified intact, in place; $f_bad bad"
    [ "$stream_rc" = 0 ] || echo "  the stream ended with exit status $stream_rc ($( [ "$stream_rc" = 124 ] && echo "hung, killed" || echo error))"
    echo "what the library reported (RAILMPI_VERBOSE=1):"
    grep -E " rail event | rail: path " "$out/failover.dat.err" | head -8 | sed 's/^/  /'
    grep -qE " rail event | rail: path " "$out/failover.dat.err" || echo "  (no rail events)"
} | tee "$out/failover.txt"
echo "plot: $out/failover.png   summary: $out/failover.txt   data: $out/failover.dat"
echo "more: bench/fault.sh (failover figures, MPICH and Open MPI under the same fault), ctest -L fault"
