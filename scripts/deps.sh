#!/bin/bash
# Install the Debian packages railmpi builds, tests and benchmarks with.
# Idempotent: does nothing when they are all present.
set -euo pipefail
pkgs=(build-essential cmake pkg-config libhwloc-dev libfabric-dev libfabric-bin mpich libmpich-dev openmpi-bin libopenmpi-dev
      netpipe-mpich2 iproute2 iptables ethtool gnuplot-nox procps python3 python3-mpi4py python3-numpy slurm-wlm munge
      libpmix-dev gfortran libhdf5-mpich-dev hdf5-tools
      debhelper dpkg-dev man-db groff-base lmod tcl meson ninja-build autoconf automake libtool scalapack-mpi-test valgrind)
# lmod and environment-modules exclude each other: where Environment Modules
# is installed, tests/scripts/modules.sh uses it and lmod stays out
if dpkg-query -W -f='${Status}' environment-modules 2>/dev/null | grep -q "install ok installed"; then
    pkgs=("${pkgs[@]/lmod}")
fi
missing=()
for p in "${pkgs[@]}"; do
    [ -n "$p" ] || continue
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    if [ "$(id -u)" != 0 ]; then echo "deps.sh: run as root to install packages" >&2; exit 1; fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q "${missing[@]}"
fi
# Environment Modules beside lmod: its package unpacked (not installed) where
# tests/scripts/modules.sh finds its modulecmd.tcl, so both module systems are
# tested on one machine
envmod=/var/cache/railmpi/environment-modules
if [ ! -f "$envmod/usr/lib/x86_64-linux-gnu/modulecmd.tcl" ] && [ ! -f /usr/share/modules/init/bash ] &&
    [ "$(id -u)" = 0 ]; then
    mkdir -p "$envmod"
    if (cd "$envmod" && apt-get download -q environment-modules >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null && apt-get download -q environment-modules >/dev/null 2>&1; }); then
        dpkg-deb -x "$envmod"/environment-modules_*.deb "$envmod" && rm -f "$envmod"/environment-modules_*.deb
    else
        echo "deps.sh: cannot download environment-modules (tests/scripts/modules.sh then checks lmod only)" >&2
    fi
fi
