#!/bin/bash
# Debian packages (scripts/package.sh, debian/): built from this build
# directory, they hold no file another installed package owns, install with
# dpkg beside Debian's MPICH and Open MPI without taking over the mpi, mpirun
# and mpi-<multiarch> alternatives, register the same slaves those packages do,
# and once selected make plain mpicc, mpifort, mpiexec and pkg-config mpi-c
# railmpi's: a C and a Fortran program build and run. Then the selections go
# back, and remove and purge leave nothing behind. Whatever happens, the
# system ends as it was: the packages purged, the selections restored (also
# those a killed earlier run left, from its state file).
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: dpkg -i needs root"; exit 77; }
skip_if_sanitized "$build" "packages are built from a plain build"
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
P=/usr/lib/$ma/railmpi
pkgs=(librailmpi-dev railmpi-bin railmpi-doc librailmpi12)
groups=(mpi mpirun "mpi-$ma")
state=/var/tmp/railmpi-debian-packages-test.state

# dpkg, waiting up to a minute while another dpkg or apt holds the lock
dpkgw() {
    local i out
    for i in $(seq 30); do
        out=$(dpkg "$@" 2>&1) && return 0
        echo "$out" | grep -qi "lock" || { echo "$out"; return 1; }
        sleep 2
    done
    echo "$out"
    return 1
}
installed() { dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | grep -q '^[ic]'; }
# the group's selection: "auto", "manual PATH", or "none"
selection() {
    local q
    q=$(update-alternatives --query "$1" 2>/dev/null) || { echo none; return; }
    echo "$(echo "$q" | sed -n 's/^Status: //p') $(echo "$q" | sed -n 's/^Value: //p')"
}
restore_selections() {
    local g s v
    while read -r g s v; do
        case $s in
            manual) update-alternatives --quiet --set "$g" "$v" ;;
            auto) update-alternatives --quiet --auto "$g" ;;
            none) update-alternatives --quiet --auto "$g" 2>/dev/null ;;  # railmpi's own group, if any
        esac
    done <"$state"
}
cleanup() {
    local p rm=()
    for p in "${pkgs[@]}"; do installed "$p" && rm+=("$p"); done
    [ ${#rm[@]} = 0 ] || dpkgw --purge "${rm[@]}" >/dev/null || echo "cleanup: dpkg --purge ${rm[*]} failed"
    [ -f "$state" ] && restore_selections && rm -f "$state"
    rm -rf "$tmp"
}
tmp=$(mktemp -d)
if [ -f "$state" ]; then
    echo "an earlier run left its packages or selections: cleaning up first"
    cleanup
    tmp=$(mktemp -d)
fi
for p in "${pkgs[@]}"; do
    installed "$p" && { echo "SKIP: $p is installed on this system (not by this test)"; rm -rf "$tmp"; exit 77; }
done
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
for g in "${groups[@]}"; do echo "$g $(selection "$g")"; done >"$state"

bash "$here/../../scripts/package.sh" --from-build "$build" --out "$tmp/debs" >"$tmp/package.log" 2>&1 ||
    { cat "$tmp/package.log"; fail "scripts/package.sh"; exit 1; }
debs=()
for p in "${pkgs[@]}"; do debs+=("$(ls "$tmp/debs/${p}"_*.deb)") || fail "no $p package"; done
[ $fails = 0 ] || exit 1

# every file and link of the packages is new to the system
for d in "${debs[@]}"; do dpkg-deb -c "$d"; done | awk '$1 !~ /^d/ {print substr($6, 2)}' >"$tmp/files"
[ "$(wc -l <"$tmp/files")" -gt 30 ] || fail "the packages hold $(wc -l <"$tmp/files") files"
owned=$(xargs dpkg -S <"$tmp/files" 2>/dev/null)
[ -z "$owned" ] || fail "files other packages own: $owned"
while read -r f; do [ -e "$f" ] || [ -L "$f" ] && fail "$f exists before install"; done <"$tmp/files"

dpkgw -i "${debs[@]}" >"$tmp/dpkg.log" || { cat "$tmp/dpkg.log"; fail "dpkg -i"; exit 1; }
# installed, nothing switched: every group keeps its selection (a group
# railmpi alone makes, with neither MPICH nor Open MPI installed, is automatic)
saved() {
    local before
    before=$(grep "^$1 " "$state")
    [ "$before" = "$1 none" ] && before="$1 auto $(update-alternatives --list "$1" | grep railmpi)"
    echo "$before"
}
for g in "${groups[@]}"; do
    [ "$g $(selection "$g")" = "$(saved "$g")" ] || fail "installing changed $g: $(selection "$g")"
done
# registered at 10, below the others, with every slave they have (the C++
# libraries and hdf5's pkg-config name excepted: railmpi has no C++ library
# and is not hdf5)
for g in "${groups[@]}"; do
    q=$(update-alternatives --query "$g")
    ours=$(echo "$q" | awk -v RS= '/Alternative: [^\n]*railmpi/')
    [ -n "$ours" ] || { fail "no railmpi alternative in $g"; continue; }
    echo "$ours" | grep -qx "Priority: 10" || fail "$g: priority $(echo "$ours" | sed -n 's/Priority: //p')"
    prio=$(echo "$q" | awk -v RS= '!/railmpi/ && /Priority/' | sed -n 's/^Priority: //p' | sort -n | head -1)
    [ -z "$prio" ] || [ "$prio" -gt 10 ] || fail "$g: another alternative has priority $prio"
    theirs=$(echo "$q" | awk -v RS= '!/railmpi/ && /Alternative/' | awk '/^Slaves:/ {s=1; next} /^[A-Z]/ {s=0} s {print $1}' | sort -u)
    for s in $theirs; do
        case $s in hdf5-mpi.pc|libmpi++.so-*|libmpicxx.so-*) continue ;; esac
        echo "$ours" | awk '{print $1}' | grep -qxF "$s" || fail "$g: railmpi's alternative lacks the slave $s"
    done
done

# selected: plain mpicc, mpifort, mpiexec and pkg-config are railmpi's
update-alternatives --quiet --set mpi /usr/bin/mpicc.railmpi || fail "--set mpi"
update-alternatives --quiet --set mpirun /usr/bin/mpirun.railmpi || fail "--set mpirun"
update-alternatives --quiet --set "mpi-$ma" "$P/include" || fail "--set mpi-$ma"
for t in mpicc mpicxx mpifort mpif90 mpiexec mpirun; do
    case $(readlink -f "/usr/bin/$t") in "$P"/bin/*) ;; *) fail "/usr/bin/$t is $(readlink -f "/usr/bin/$t")" ;; esac
done
[ "$(readlink -f "/usr/include/$ma/mpi")" = "$P/include" ] || fail "/usr/include/$ma/mpi"
cat >"$tmp/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int r, n, len; char v[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Init(&argc, &argv); MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Get_library_version(v, &len);
    int s = r, t = 0; MPI_Allreduce(&s, &t, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (r == 0) printf("%d ranks, sum %d, %.7s\n", n, t, v);
    MPI_Finalize(); return 0; }
C
cat >"$tmp/hello.f90" <<'F'
program hello
  use mpi_f08
  implicit none
  integer :: r, n, t
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, r)
  call MPI_Comm_size(MPI_COMM_WORLD, n)
  call MPI_Allreduce(r + 1, t, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (r == 0) print '(I0," ranks, sum ",I0)', n, t
  call MPI_Finalize()
end program hello
F
cd "$tmp"
# a clean environment: only what the system's paths give
run() { env -i PATH=/usr/bin:/bin HOME="$tmp" "$@"; }
run mpicc hello.c -o hello_c 2>"$tmp/err" || fail "mpicc: $(cat "$tmp/err")"
run mpifort hello.f90 -o hello_f 2>"$tmp/err" || fail "mpifort: $(cat "$tmp/err")"
run mpicc -show | grep -q -- "-I$P/include" || fail "mpicc -show: $(run mpicc -show)"
out=$(run timeout 60 mpiexec -n 3 --timeout 50 ./hello_c 2>&1)
[ "$out" = "3 ranks, sum 3, railmpi" ] || fail "mpiexec hello_c: $out"
out=$(run timeout 60 mpirun -n 2 --timeout 50 ./hello_f 2>&1)
[ "$out" = "2 ranks, sum 3" ] || fail "mpirun hello_f: $out"
ldd hello_c | grep -q "libmpi.so.12 => $P/lib/libmpi.so.12" || fail "hello_c: $(ldd hello_c | grep mpi)"
[ "$(run pkg-config --modversion mpi-c)" = "$(dpkg-query -W -f='${Version}' librailmpi-dev | sed 's/-[^-]*$//')" ] ||
    fail "pkg-config mpi-c: $(run pkg-config --modversion mpi-c 2>&1)"
run pkg-config --libs mpi-fort | grep -q -- "-L$P/lib" || fail "pkg-config mpi-fort"
for t in mpiexec mpirun mpicc mpicxx mpifort mpif77; do
    case $(readlink -f "$(man -w "$t")") in *railmpi*) ;; *) fail "man $t: $(readlink -f "$(man -w "$t")")" ;; esac
done
# the packaged modulefile names the packages' prefix
if [ -f /usr/share/lmod/lmod/init/bash ]; then
    m=$(run bash -c ". /usr/share/lmod/lmod/init/bash; module use $P/share/modulefiles; module load railmpi; command -v mpicc" 2>&1)
    [ "$m" = "$P/bin/mpicc" ] || fail "module load railmpi (packaged): $m"
fi
# man-db's trigger indexed the pages: apropos finds them
apropos railbench | grep -q "^railbench (1) *- latency" || fail "apropos railbench: $(apropos railbench 2>&1)"
for pg in /usr/share/man/man1/{mpicc,mpifort,mpiexec}.railmpi.1.gz /usr/share/man/man1/rail{bench,stat}.1.gz \
          /usr/share/man/man3/{MPI_Send,MPI_File_open,MPIX_Rail_migrate}.railmpi.3.gz; do
    w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$pg" 2>&1 >/dev/null)
    [ -z "$w" ] || fail "$pg: $w"
done
# the MPI functions' pages: all of the prefix's (module users' MANPATH) also
# as MPI_Name.railmpi.3 in the system's man3, found by man and apropos
n3=$(ls "$P/share/man/man3" | wc -l)
[ "$n3" -gt 400 ] || fail "$P/share/man/man3 holds $n3 pages"
[ "$(ls /usr/share/man/man3/*.railmpi.3.gz | wc -l)" = "$n3" ] || fail "not all $n3 pages in /usr/share/man/man3"
[ "$(man -w MPI_Win_fence.railmpi)" = /usr/share/man/man3/MPI_Win_fence.railmpi.3.gz ] ||
    fail "man -w MPI_Win_fence.railmpi: $(man -w MPI_Win_fence.railmpi 2>&1)"
apropos -e MPI_Allreduce.railmpi | grep -q "^MPI_Allreduce.railmpi (3) *- Combines" ||
    fail "apropos MPI_Allreduce.railmpi: $(apropos -e MPI_Allreduce.railmpi 2>&1)"
cd /

# the selections back as they were
restore_selections
for g in "${groups[@]}"; do
    [ "$g $(selection "$g")" = "$(saved "$g")" ] || fail "restoring $g: $(selection "$g")"
done

# remove: out of every group, its files gone; purge: nothing left at all
dpkgw -r "${pkgs[@]}" >"$tmp/dpkg.log" || { cat "$tmp/dpkg.log"; fail "dpkg -r"; }
for g in "${groups[@]}"; do
    update-alternatives --list "$g" 2>/dev/null | grep -q railmpi && fail "removed, still in $g"
done
while read -r f; do [ -e "$f" ] || [ -L "$f" ] && fail "removed, $f is left"; done <"$tmp/files"
dpkgw --purge "${pkgs[@]}" >"$tmp/dpkg.log" || { cat "$tmp/dpkg.log"; fail "dpkg --purge"; }
for p in "${pkgs[@]}"; do
    [ -z "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" ] || fail "purged, dpkg still knows $p"
    ls /var/lib/dpkg/info/"$p".* /var/lib/dpkg/info/"$p":* >/dev/null 2>&1 && fail "purged, $p's dpkg files are left"
done
[ -e "$P" ] && fail "purged, $P is left"
ls -d /usr/share/doc/{librailmpi12,librailmpi-dev,railmpi-bin,railmpi-doc} >/dev/null 2>&1 && fail "purged, documentation is left"
grep -rl railmpi /var/lib/dpkg/alternatives/ && fail "purged, alternatives name railmpi"
find /etc/alternatives /usr/bin /usr/include /usr/lib/"$ma" /usr/share/man -maxdepth 2 -lname '*railmpi*' | grep . && fail "purged, links to railmpi are left"
[ $fails = 0 ] && echo "OK: Debian packages" || exit 1
