# Sourced by the cluster tests: `cluster_up PREFIX HOSTS RAILS [RATE...]` checks
# for root (skip otherwise), builds a virtual cluster named PREFIX<pid> and
# a scratch directory ($tmp), and tears both down on any exit. Sets $name,
# $here, $tmp, $rails (the rails' subnets, comma-separated, for
# RAILMPI_TCP_RAILS) and $mgmt (the management subnet); fail() counts
# failures in $fails. Clusters of concurrent tests get distinct subnets.
#
# A rank the kernel holds: on some machines a kernel thread can keep a
# process waiting in the kernel for tens of seconds (seen here: DAMON's
# access sampling, kdamond, walking a sanitized rank's reverse maps while the
# rank's mmap() waits, uninterruptible, for the same lock). The job stops
# while it lasts, and no timing bound of a test survives it; railmpi rides
# it out (the peers see a partition that ends when the rank runs again).
# cluster_up starts a watcher that notes in $tmp/kstall every process of the
# cluster's hosts held in uninterruptible sleep for 2 s or more; a test that
# fails after such a stall exits 75 instead of 1, and tests/cluster/rerun.sh
# (through which ctest runs these tests) runs it once more.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# The sanitizer BUILD's library carries: "tsan", "asan" or nothing.
sanitizer() {
    local syms
    syms=$(nm -D "$1/lib/libmpi.so.12" 2>/dev/null)
    if grep -q "__tsan_init" <<< "$syms"; then echo tsan
    elif grep -q "__asan_init" <<< "$syms"; then echo asan; fi
}
cluster_up() {
    [ "$(id -u)" = 0 ] || { echo "SKIP: needs root for network namespaces"; exit 77; }
    command -v ip >/dev/null || { echo "SKIP: iproute2 missing"; exit 77; }
    name="$1$(printf %03d $(($$ % 1000)))"
    name=${name:0:4}
    shift
    tmp=$(mktemp -d)
    trap 'cluster_exit $?; bash "$here/vcluster.sh" down "$name" >/dev/null 2>&1; rm -rf "$tmp"; exit $cluster_rc' EXIT
    trap 'exit 130' INT TERM
    bash "$here/vcluster.sh" up "$name" "$@" || { echo "FAIL: cannot build the virtual cluster"; exit 1; }
    rails=$(bash "$here/vcluster.sh" rails "$name")
    mgmt=$(bash "$here/vcluster.sh" net "$name" m)
    kstall_watch &
    kstall_pid=$!
}

# Twice a second, every thread of every process in the cluster's hosts:
# one in uninterruptible sleep (state D) for 2 s is noted in $tmp/kstall
# with where the kernel holds it, and again with the whole time once it runs.
kstall_watch() {
    local -A since noted
    local h p t st now ms key nap= hosts
    trap '[ -z "$nap" ] || kill $nap 2>/dev/null; exit 0' TERM
    hosts=$(bash "$here/vcluster.sh" hosts "$name")
    while kill -0 $$ 2>/dev/null; do
        now=${EPOCHREALTIME/./}
        now=$((now / 1000))
        for h in $hosts; do
            for p in $(ip netns pids "$h" 2>/dev/null); do
                for t in /proc/$p/task/*; do
                    st=$(cat "$t/stat" 2>/dev/null) || continue
                    st=${st##*) }
                    key=${t#/proc/}
                    if [ "${st%% *}" = D ]; then
                        since[$key]=${since[$key]:-$now}
                        ms=$((now - since[$key]))
                        if [ $ms -ge 2000 ] && [ -z "${noted[$key]:-}" ]; then
                            noted[$key]=1
                            echo "kernel stall: $h pid $p thread ${t##*/} ($(cat "$t/comm" 2>/dev/null)) held uninterruptible for $ms ms so far, in $(cat "$t/wchan" 2>/dev/null) (syscall $(cut -d' ' -f1 "$t/syscall" 2>/dev/null))" >> "$tmp/kstall"
                        fi
                    elif [ -n "${since[$key]:-}" ]; then
                        [ -z "${noted[$key]:-}" ] ||
                            echo "kernel stall: $h pid $p thread ${t##*/} ran again after $((now - since[$key])) ms" >> "$tmp/kstall"
                        unset "since[$key]" "noted[$key]"
                    fi
                done
            done
        done
        sleep 0.5 &
        nap=$!
        wait $nap
    done
}

# The EXIT trap's verdict (STATUS: the script's): the watcher stops; a
# failure after a kernel stall becomes 75, the stall shown. Sets $cluster_rc.
cluster_exit() { # STATUS
    cluster_rc=$1
    # TERM ends the watcher through its trap; once (CI, a ThreadSanitizer run)
    # bash failed to parse that trap ("unexpected EOF while looking for
    # matching `)'") and the watcher went on, so the test hung until ctest's
    # timeout: after 2 s it is killed
    if [ -n "${kstall_pid:-}" ]; then
        kill "$kstall_pid" 2>/dev/null
        local i
        for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$kstall_pid" 2>/dev/null || break; sleep 0.2; done
        kill -9 "$kstall_pid" 2>/dev/null
        wait "$kstall_pid" 2>/dev/null
    fi
    if [ "$cluster_rc" != 0 ] && [ "$cluster_rc" != 77 ] && [ -s "$tmp/kstall" ]; then
        echo "--- the kernel held ranks of this run, or the machine its timers (the failure above may be their doing):"
        cat "$tmp/kstall"
        cluster_rc=75
    fi
}

# The runs of the MPI suite (tests/mpi) across two hosts, "PROGRAM RANKS" a
# line: 2 or 4 ranks where a program's first line allows them (ALL=all: each
# allowed, else the last). Left out, because they check a one-host layout:
# misc_env, mpit, topo_hosts, rma_shared, rma_nofree; flood, whose memory
# bound is the tcp and shm transports' (tests/cluster/mpi_suite_ofi.sh); and
# coll_nb_progress, whose 0.5 s bound holds where the computing rank's core
# is its own (one host): the virtual hosts' launchers bind their ranks to the
# same cores of this machine, so another host's rank and both ranks' progress
# threads share that core (over ofi, whose provider moves a message's bytes
# only in progress passes, the ranks then waited 0.8-1.2 s). Progress across
# hosts while ranks compute: cluster.coll_vhosts, cluster.rma_hosts.
suite_runs() { # [ALL]
    local c t n counts pick
    for c in "$here"/../mpi/*.c; do
        t=$(basename "$c" .c)
        case $t in misc_env|mpit|topo_hosts|rma_shared|rma_nofree|flood|coll_nb_progress) continue ;; esac
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
