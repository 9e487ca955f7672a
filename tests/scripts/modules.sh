#!/bin/bash
# Environment modules (tools/modules, docs/install.md): `cmake --install`
# writes share/modulefiles/railmpi/VERSION.lua and VERSION (Tcl) for its
# prefix. With Debian's lmod (both files: the Lua one; the Tcl one alone) and,
# where it is installed, Environment Modules (Tcl): `module load railmpi` in a
# clean shell sets PATH, LD_LIBRARY_PATH, MANPATH (system pages still found),
# PKG_CONFIG_PATH, CMAKE_PREFIX_PATH and MPI_HOME, mpicc and mpiexec build and
# run a program, loading it beside another MPI's module fails, and unloading
# takes it all back. lmod and environment-modules exclude each other in
# Debian: scripts/deps.sh unpacks Environment Modules' package (without
# installing it) under /var/cache/railmpi, and its modulecmd.tcl checks the
# Tcl file beside lmod; RAILMPI_TEST_MODULECMD may name another.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
install_to_tmp "$build"
p=$tmp/p
ver=$(sed -n 's/^Version: //p' "$p/lib/pkgconfig/mpi.pc")
for f in "$ver.lua" "$ver"; do [ -f "$p/share/modulefiles/railmpi/$f" ] || fail "no modulefile $f"; done
grep -q "\"$p\"" "$p/share/modulefiles/railmpi/$ver.lua" || fail "the Lua modulefile does not name $p"
mkdir -p "$tmp/tcl/railmpi" "$tmp/others/openmpi"
cp "$p/share/modulefiles/railmpi/$ver" "$tmp/tcl/railmpi/"
# another MPI's module (both forms: Lmod prefers the Lua one)
echo 'setenv("OTHER_MPI", "1")' >"$tmp/others/openmpi/4.1.lua"
printf '#%%Module\nsetenv OTHER_MPI 1\n' >"$tmp/others/openmpi/4.1"
cat >"$tmp/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) { int r; MPI_Init(&argc, &argv); MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (r == 1) printf("hello\n"); MPI_Finalize(); return 0; }
C
# check INIT MODULEPATH-DIR NAME: in a clean shell that sources INIT
check() {
    local out
    out=$(cd "$tmp" && env -i PATH=/usr/bin:/bin HOME="$tmp" P="$p" INIT="$1" DIR="$2" OTHERS="$tmp/others" bash -c '
        . "$INIT" >/dev/null 2>&1 || { echo "cannot source $INIT"; exit 1; }
        unset MANPATH
        module use "$DIR"
        module load railmpi >/dev/null 2>&1 || { echo "module load railmpi failed"; exit 1; }
        [ "$(command -v mpicc)" = "$P/bin/mpicc" ] || echo "mpicc is $(command -v mpicc)"
        [ "$(command -v mpiexec)" = "$P/bin/mpiexec" ] || echo "mpiexec is $(command -v mpiexec)"
        [ "$MPI_HOME" = "$P" ] || echo "MPI_HOME=$MPI_HOME"
        [ "${CMAKE_PREFIX_PATH%%:*}" = "$P" ] || echo "CMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH"
        [ "${PKG_CONFIG_PATH%%:*}" = "$P/lib/pkgconfig" ] || echo "PKG_CONFIG_PATH=$PKG_CONFIG_PATH"
        [ "${LD_LIBRARY_PATH%%:*}" = "$P/lib" ] || echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
        case $MANPATH in "$P/share/man":*:|"$P/share/man":) ;; *) echo "MANPATH=$MANPATH (no empty entry for the system pages)" ;; esac
        [ "$(man -w mpiexec 2>&1)" = "$P/share/man/man1/mpiexec.1" ] || echo "man -w mpiexec: $(man -w mpiexec 2>&1)"
        mpicc hello.c -o hello 2>&1 || echo "mpicc failed"
        out=$(timeout 60 mpiexec -n 2 --timeout 50 ./hello 2>&1)
        [ "$out" = hello ] || echo "mpiexec: $out"
        module unload railmpi >/dev/null 2>&1
        case ":$PATH:$MANPATH:${LD_LIBRARY_PATH-}:" in *"$P"*) echo "unload left $P in a path" ;; esac
        [ -z "${MPI_HOME+x}" ] || echo "unload left MPI_HOME"
        module use "$OTHERS"
        module load openmpi >/dev/null 2>&1 || echo "the other MPI module does not load"
        if module load railmpi >/dev/null 2>&1 && [ "$(command -v mpicc)" = "$P/bin/mpicc" ]; then
            echo "railmpi loaded beside another MPI module"
        fi
    ' 2>&1)
    [ -z "$out" ] && echo "checked: $3" || fail "$3: $out"
}
lmod=/usr/share/lmod/lmod/init/bash
envmod=/usr/share/modules/init/bash
modulecmd=${RAILMPI_TEST_MODULECMD:-/var/cache/railmpi/environment-modules/usr/lib/x86_64-linux-gnu/modulecmd.tcl}
if [ -f "$lmod" ]; then
    check "$lmod" "$p/share/modulefiles" "lmod, Lua modulefile"
    check "$lmod" "$tmp/tcl" "lmod, Tcl modulefile"
elif [ -f "$envmod" ]; then
    echo "NOTE: lmod not checked: Debian's lmod cannot be installed beside the installed environment-modules"
else
    fail "lmod is not installed (scripts/deps.sh installs it where Environment Modules is not)"
fi
if [ -f "$envmod" ]; then
    check "$envmod" "$tmp/tcl" "environment-modules"
elif [ -f "$modulecmd" ]; then
    printf 'module() { eval "$(tclsh %s bash "$@")"; }\n' "$modulecmd" >"$tmp/envmod-init"
    check "$tmp/envmod-init" "$tmp/tcl" "environment-modules ($modulecmd)"
else
    fail "no Environment Modules: neither installed nor unpacked at $modulecmd (scripts/deps.sh unpacks it)"
fi
[ $fails = 0 ] && echo "OK: environment modules" || exit 1
