# Sourced by the Slurm tests (tests/scripts/slurm.sh, ulfm_slurm.sh) after
# lib.sh, with $build set: skips (77) without root, then starts a private
# one-node Slurm: its own munge key and socket, slurm.conf, ports, pid files,
# state and spool in a scratch directory ($tmp), so a system Slurm on this
# host is left alone. On any exit the jobs, the daemons and everything they
# started are stopped by pid, and the directory removed. Gives ${sl[@]} (the
# prefix of every Slurm command), $budget (seconds the caller has in all;
# set it before sourcing, default 140), die, free_port and stop_pids.
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to run Slurm's daemons"; exit 77; }
for c in munged mungekey slurmctld slurmd srun sinfo squeue scancel; do
    command -v $c >/dev/null || { echo "FAIL: $c missing (scripts/deps.sh installs slurm-wlm munge)"; exit 1; }
done

# ctest gives a script 180 s and then kills it outright, which would leave
# the daemons behind: finish (or give up) well before, cleanup included
budget=${budget:-140}
tmp=$(mktemp -d /tmp/railmpi-slurm.XXXXXX)
conf=$tmp/slurm.conf
daemons=() # pids, started last first stopped first
sl=(env SLURM_CONF="$conf") # every Slurm command talks to our controller only

# Every process this test started has our slurm.conf path in its initial
# environment (the daemons, slurmstepd, srun, the ranks); this shell and its
# subshells do not, since the path was made after it started.
ours() {
    grep -lzxF "SLURM_CONF=$conf" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | grep -vx "$$"
}
stop_pids() { # stop_pids SECONDS PID...: TERM, wait, then KILL
    local t=$1 p left
    shift
    [ $# -gt 0 ] || return 0
    kill -TERM "$@" 2>/dev/null
    for _ in $(seq $((t * 10))); do
        left=
        for p in "$@"; do kill -0 "$p" 2>/dev/null && left=1; done
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    kill -KILL "$@" 2>/dev/null
}
cleanup() {
    trap - EXIT INT TERM
    if [ -f "$conf" ] && kill -0 "${daemons[1]:-0}" 2>/dev/null; then
        timeout 10 "${sl[@]}" scancel --quiet --user=root >/dev/null 2>&1
        for _ in $(seq 20); do
            [ -z "$(timeout 5 "${sl[@]}" squeue -h 2>/dev/null)" ] && break
            sleep 0.5
        done
    fi
    # the daemons last started first (slurmctld's helper slurmscriptd must
    # still be there when slurmctld stops), then whatever of ours is left:
    # steps and ranks that outlived their job
    for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
        stop_pids 10 "${daemons[i]}"
    done
    wait 2>/dev/null
    stop_pids 5 $(ours)
    local left
    left=$(ours)
    [ -z "$left" ] || { echo "cleanup: processes $left would not stop"; kill -KILL $left 2>/dev/null; }
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
die() { echo "FAIL: $*"; for f in "$tmp"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -15 "$f"; }; done; exit 1; }

# ports that nobody listens on, away from Slurm's defaults (6817, 6818)
free_port() {
    local p
    for _ in $(seq 50); do
        p=$((20000 + RANDOM % 20000))
        [ -z "$(ss -Hltn "sport = :$p" 2>/dev/null)" ] && { echo $p; return; }
    done
    echo 0
}
ctl_port=$(free_port)
node_port=$(free_port)
[ "$ctl_port" != 0 ] && [ "$node_port" != 0 ] && [ "$ctl_port" != "$node_port" ] || die "no free ports"
host=$(hostname -s)

# munge: own key, socket and pid file
mkdir -p "$tmp/state" "$tmp/spool" && chmod 700 "$tmp"
timeout 10 mungekey -c -k "$tmp/munge.key" >/dev/null 2>&1 || die "mungekey failed"
munged -F --force --key-file="$tmp/munge.key" --socket="$tmp/munge.sock" --pid-file="$tmp/munged.pid" \
    --seed-file="$tmp/munge.seed" --log-file="$tmp/munged.log" >/dev/null 2>&1 &
daemons+=($!)
for _ in $(seq 50); do [ -S "$tmp/munge.sock" ] && break; sleep 0.1; done
[ -S "$tmp/munge.sock" ] || die "munged did not start"

cat >"$conf" <<EOF
ClusterName=railmpitest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$node_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
PlugStackConfig=$tmp/plugstack.conf
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=5
MinJobAge=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=railmpi Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
: >"$tmp/plugstack.conf"

"${sl[@]}" slurmctld -D -c -f "$conf" >"$tmp/slurmctld.out.log" 2>&1 &
daemons+=($!)
"${sl[@]}" slurmd -D -N "$host" -f "$conf" >"$tmp/slurmd.out.log" 2>&1 &
daemons+=($!)
state=
for _ in $(seq 60); do
    state=$(timeout 5 "${sl[@]}" sinfo -h -N -o %t 2>"$tmp/sinfo.log" | head -1)
    [ "$state" = idle ] && break
    sleep 0.5
done
[ "$state" = idle ] || die "the node did not become idle within 30 s (state '$state')"
echo "Slurm up in $SECONDS s (node $host, ports $ctl_port and $node_port)"

# railmpi settings of the caller must not leak into the jobs, nor a launcher's
unset RAILMPI_JOB_SECRET RAILMPI_HOST_ID RAILMPI_LAUNCH_ADDR RAILMPI_CTL_FD PMI_FD PMI_PORT PMI_ID PMI_RANK \
    PMI_SIZE PMI_JOBID MPI_LOCALNRANKS PMIX_NAMESPACE PMIX_RANK
for v in $(compgen -e | grep '^PMIX_SERVER_URI'); do unset "$v"; done
