# Sourced by the cluster benchmarks: how each MPI starts 2 ranks, one on each
# of two virtual hosts, over the cluster's data rails (see
# /work/shared/PEERS.md). Needs $name, $rails (the rails' subnets, as
# `vcluster.sh rails` prints them), $mgmt (the virtual cluster), $tmp and
# $build. Every MPI runs unbound: both virtual hosts share this machine's
# cores, and each launcher would bind its host's first rank to core 0.
#   peers_init                        write the ssh look-alike the peers' launchers
#                                     use, and the pinning wrapper
#   peer_run IMPL SECONDS [--pin] PROG ARGS
#                                     run PROG under IMPL (railmpi, mpich, openmpi),
#                                     killed after SECONDS (exit 124); --pin: each
#                                     rank on its own core (rank mod cores), for
#                                     latency and rates, where both ranks on one
#                                     core would measure the scheduler
peers_init() {
    # the peers' launchers ssh to a host; this runs the command inside its namespace
    cat > "$tmp/ns-ssh" <<'SH'
#!/bin/sh
while [ $# -gt 0 ]; do case "$1" in -*) shift;; *) break;; esac; done
host=$1; shift
exec ip netns exec $host sh -c "$*"
SH
    cat > "$tmp/pin" <<'SH'
#!/bin/sh
r=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-0}}
exec taskset -c $((r % $(nproc --all))) "$@"
SH
    chmod +x "$tmp/ns-ssh" "$tmp/pin"
}
peer_run() { # IMPL SECONDS [--pin] PROG ARGS...
    local impl=$1 secs=$2 pin=() devs
    shift 2
    if [ "${1:-}" = --pin ]; then pin=("$tmp/pin"); shift; fi
    # UCX names the rails by their interfaces: rail0, rail1, ... (one per subnet)
    devs=$(awk -F, '{ for (i = 0; i < NF; i++) printf "%srail%d", i ? "," : "", i }' <<< "$rails")
    case $impl in
        railmpi)
            timeout -k 5 "$secs" "$build/bin/mpiexec" -hosts "${name}h1,${name}h2" -launcher-exec "ip netns exec" \
                -iface "${name}mbr" -bind-to none -genv RAILMPI_TCP_RAILS "$rails" "${pin[@]}" "$@" ;;
        mpich)
            timeout -k 5 "$secs" mpiexec.mpich -hosts "${name}h1,${name}h2" -n 2 -launcher ssh \
                -launcher-exec "$tmp/ns-ssh" -iface "${name}mbr" -bind-to none -genv UCX_TLS tcp,self \
                -genv UCX_NET_DEVICES "$devs" "${pin[@]}" "$@" ;;
        openmpi)
            timeout -k 5 "$secs" mpirun.openmpi --allow-run-as-root -np 2 --host "${name}h1,${name}h2" \
                --mca routed direct --mca plm_rsh_agent "$tmp/ns-ssh" --mca oob_tcp_if_include "$mgmt" \
                --mca btl tcp,self --mca btl_tcp_if_include "$rails" --bind-to none "${pin[@]}" "$@" ;;
    esac
}
