# Sourced by the cluster tests: `cluster_up PREFIX HOSTS RAILS [RATE...]` checks
# for root (skip otherwise), builds a virtual cluster named PREFIX<pid> and
# a scratch directory ($tmp), and tears both down on any exit. Sets $name,
# $here, $tmp, $rails (the rails' subnets, comma-separated, for
# RAILMPI_TCP_RAILS) and $mgmt (the management subnet); fail() counts
# failures in $fails. Clusters of concurrent tests get distinct subnets.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cluster_up() {
    [ "$(id -u)" = 0 ] || { echo "SKIP: needs root for network namespaces"; exit 77; }
    command -v ip >/dev/null || { echo "SKIP: iproute2 missing"; exit 77; }
    name="$1$(printf %03d $(($$ % 1000)))"
    name=${name:0:4}
    shift
    tmp=$(mktemp -d)
    trap 'bash "$here/vcluster.sh" down "$name" >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM
    bash "$here/vcluster.sh" up "$name" "$@" || { echo "FAIL: cannot build the virtual cluster"; exit 1; }
    rails=$(bash "$here/vcluster.sh" rails "$name")
    mgmt=$(bash "$here/vcluster.sh" net "$name" m)
}

# The runs of the MPI suite (tests/mpi) across two hosts, "PROGRAM RANKS" a
# line: 2 or 4 ranks where a program's first line allows them (ALL=all: each
# allowed, else the last). Left out, because they check a one-host layout:
# misc_env, mpit, topo_hosts, rma_shared, rma_nofree; and flood, whose memory
# bound is the tcp and shm transports' (tests/cluster/mpi_suite_ofi.sh).
suite_runs() { # [ALL]
    local c t n counts pick
    for c in "$here"/../mpi/*.c; do
        t=$(basename "$c" .c)
        case $t in misc_env|mpit|topo_hosts|rma_shared|rma_nofree|flood) continue ;; esac
        counts=$(head -1 "$c" | sed -n 's|.*ranks:\([ 0-9]*\).*|\1|p')
        [ -n "$counts" ] || counts="1 2 3 4"
        pick=
        for n in $counts; do
            case $n in 2|4) ;; *) continue ;; esac
            if [ "${1:-}" = all ]; then echo "$t $n"; else pick=$n; fi
        done
        [ -n "$pick" ] && echo "$t $pick"
    done
    return 0
}
