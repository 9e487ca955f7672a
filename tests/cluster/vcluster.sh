#!/bin/bash
# A virtual cluster on one machine: hosts are network namespaces, a
# management network carries the launcher, and each data rail is its own
# switch (a bridge) with one veth per host. Addresses come from 198.18.0.0/15
# only. Every command is bounded in time; `down` removes everything.
#
#   vcluster.sh up NAME HOSTS RAILS [RATE ...]   create (RATE per rail, e.g. 2gbit 500mbit)
#   vcluster.sh down NAME                        remove everything of NAME
#   vcluster.sh hosts NAME                       list host namespaces
#   vcluster.sh addr NAME HOST RAIL              print the host's address on a rail (mgmt = m)
#   vcluster.sh net NAME RAIL                    print a rail's subnet (mgmt = m), e.g. 198.18.10.0/24
#   vcluster.sh rails NAME                       every rail's subnet, comma-separated
#   vcluster.sh nic-down|nic-up NAME HOST RAIL   the host's NIC on that rail (admin down)
#   vcluster.sh cable-cut|cable-fix NAME HOST RAIL  silent failure: the switch side of the link
#   vcluster.sh switch-down|switch-up NAME RAIL  a whole rail
#   vcluster.sh netem NAME HOST RAIL ARGS...     e.g. "loss 1%" or "delay 100ms"; "clear" removes
#   vcluster.sh drop NAME HOST RAIL PERCENT|clear   drop that share of the host's egress on the
#                                                rail at random (iptables; needs no sch_netem)
#   vcluster.sh delay NAME HOST RAIL MS|clear    hold every frame between the host and the rail's
#                                                switch MS ms, both ways (a relay, delayd.c, with
#                                                the rail's offloads off; needs no sch_netem)
#   vcluster.sh rate NAME HOST RAIL RATE         shape the host's egress on a rail
#   vcluster.sh mtu NAME RAIL MTU                every link of a rail (e.g. 9000: jumbo frames)
#   vcluster.sh exec NAME HOST CMD...            run a command on a host
#
# NAME is at most 4 characters (it prefixes interface names, 15 bytes max).
# Several clusters may exist at once: each takes a free slot s (0..11) when it
# comes up. Management is 198.18.(20s).0/24 (the root namespace's bridge is .1),
# rail r is 198.18.(20s+10+r).0/24; host i is .(10+i) on each. Slot 0 is
# 198.18.0.0/24 and 198.18.10.0/24, 198.18.11.0/24, ...
set -euo pipefail

die() { echo "vcluster: $*" >&2; exit 2; }
t() { timeout 10 "$@"; }

[ "$(id -u)" = 0 ] || die "must run as root (network namespaces)"
cmd=${1:-}; shift || true

host_ns() { echo "${1}h${2}"; }
mgmt_br() { echo "${1}mbr"; }
rail_br() { echo "${1}r${2}br"; }
slots=/run/railmpi-vcluster
slot_of() { # NAME -> its slot (the cluster must be up)
    cat "$slots/name-$1" 2>/dev/null || die "no virtual cluster named $1"
}
# Take the first free slot: mkdir is atomic, so concurrent clusters never
# share one. A slot whose cluster is gone (its bridge no longer exists) is
# taken back.
slot_take() { # NAME
    mkdir -p "$slots"
    local s
    for ((s = 0; s < 12; s++)); do
        if mkdir "$slots/slot-$s" 2>/dev/null; then
            echo "$1" > "$slots/slot-$s/owner"
            echo $s > "$slots/name-$1"
            return 0
        fi
        local owner; owner=$(cat "$slots/slot-$s/owner" 2>/dev/null || true)
        if [ -n "$owner" ] && ! ip link show "$(mgmt_br "$owner")" >/dev/null 2>&1 &&
            [ "$(find "$slots/slot-$s" -maxdepth 0 -mmin +1 2>/dev/null)" ]; then
            rm -rf "$slots/slot-$s" "$slots/name-$owner"
            ((s--))
        fi
    done
    die "no free slot (12 virtual clusters exist)"
}
slot_free() { # NAME
    local s; s=$(cat "$slots/name-$1" 2>/dev/null) || return 0
    rm -rf "$slots/slot-$s" "$slots/name-$1"
}
subnet3() { # NAME RAIL|m -> first three octets
    local s; s=$(slot_of "$1")
    if [ "$2" = m ]; then echo "198.18.$((20 * s))"; else echo "198.18.$((20 * s + 10 + $2))"; fi
}
host_ip() { # NAME HOST RAIL|m
    echo "$(subnet3 "$1" "$3").$((10 + $2))"
}
nrails() { # NAME: rails of a cluster that is up
    ip -o link show | awk -F': ' '{print $2}' | grep -cE "^${1}r[0-9]+br$" || true
}

check_name() {
    [[ "$1" =~ ^[a-z][a-z0-9]{0,3}$ ]] || die "NAME must be 1-4 lowercase letters/digits, starting with a letter"
}

shape() { # NAME HOST RAIL RATE
    local ns; ns=$(host_ns "$1" "$2")
    t ip netns exec "$ns" tc qdisc replace dev "rail$3" root tbf rate "$4" burst 512kb latency 50ms
}

up() {
    local name=$1 nh=$2 nr=$3; shift 3
    check_name "$name"
    [ "$nh" -ge 1 ] && [ "$nh" -le 64 ] || die "HOSTS must be 1..64"
    [ "$nr" -ge 0 ] && [ "$nr" -le 8 ] || die "RAILS must be 0..8"
    local rates=("$@")
    down "$name" 2>/dev/null || true
    slot_take "$name"
    t ip link add "$(mgmt_br "$name")" type bridge
    t ip addr add "$(subnet3 "$name" m).1/24" dev "$(mgmt_br "$name")"
    t ip link set "$(mgmt_br "$name")" up
    for ((r = 0; r < nr; r++)); do
        t ip link add "$(rail_br "$name" $r)" type bridge
        t ip link set "$(rail_br "$name" $r)" up
    done
    for ((h = 1; h <= nh; h++)); do
        local ns; ns=$(host_ns "$name" $h)
        t ip netns add "$ns"
        t ip netns exec "$ns" ip link set lo up
        t ip link add "${ns}m" type veth peer name eth-m netns "$ns"
        t ip link set "${ns}m" master "$(mgmt_br "$name")" up
        t ip netns exec "$ns" ip addr add "$(host_ip "$name" $h m)/24" dev eth-m
        t ip netns exec "$ns" ip link set eth-m up
        for ((r = 0; r < nr; r++)); do
            t ip link add "${ns}r$r" type veth peer name "rail$r" netns "$ns"
            t ip link set "${ns}r$r" master "$(rail_br "$name" $r)" up
            t ip netns exec "$ns" ip addr add "$(host_ip "$name" $h $r)/24" dev "rail$r"
            t ip netns exec "$ns" ip link set "rail$r" up
            if [ -n "${rates[$r]:-}" ]; then shape "$name" $h $r "${rates[$r]}"; fi
        done
        # a dead link must not keep a connection retransmitting for 15 minutes
        t ip netns exec "$ns" sysctl -qw net.ipv4.tcp_retries2=5 || true
    done
}

down() {
    local name=$1
    check_name "$name"
    for f in "$slots"/delay-"$name"-*; do
        [ -e "$f" ] && { kill "$(cat "$f")" 2>/dev/null || true; rm -f "$f"; }
    done
    for ns in $(ip netns list | awk '{print $1}' | grep -E "^${name}h[0-9]+$" || true); do
        # end whatever still runs inside, then remove the namespace
        for pid in $(ip netns pids "$ns" 2>/dev/null || true); do kill -KILL "$pid" 2>/dev/null || true; done
        t ip netns del "$ns" || true
    done
    for dev in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^${name}(h[0-9]+(m|[rde][0-9]+)|mbr|r[0-9]+br)$" || true); do
        t ip link del "$dev" 2>/dev/null || true
    done
    slot_free "$name"
}

case "$cmd" in
up) [ $# -ge 3 ] || die "usage: up NAME HOSTS RAILS [RATE ...]"; up "$@" ;;
down) [ $# -eq 1 ] || die "usage: down NAME"; down "$1" ;;
hosts) ip netns list | awk '{print $1}' | grep -E "^${1}h[0-9]+$" | sort -V ;;
addr) host_ip "$1" "$2" "$3" ;;
net) echo "$(subnet3 "$1" "$2").0/24" ;;
rails)
    n=$(nrails "$1"); out=""
    for ((r = 0; r < n; r++)); do out+="${out:+,}$(subnet3 "$1" $r).0/24"; done
    echo "$out" ;;
nic-down) t ip netns exec "$(host_ns "$1" "$2")" ip link set "rail$3" down ;;
nic-up) t ip netns exec "$(host_ns "$1" "$2")" ip link set "rail$3" up ;;
cable-cut) t ip link set "$(host_ns "$1" "$2")r$3" down ;;
cable-fix) t ip link set "$(host_ns "$1" "$2")r$3" up ;;
switch-down) t ip link set "$(rail_br "$1" "$2")" down ;;
switch-up) t ip link set "$(rail_br "$1" "$2")" up ;;
netem)
    name=$1 h=$2 r=$3; shift 3
    ns=$(host_ns "$name" "$h")
    if [ "${1:-}" = clear ]; then
        t ip netns exec "$ns" tc qdisc del dev "rail$r" root 2>/dev/null || true
    else
        t ip netns exec "$ns" tc qdisc replace dev "rail$r" root netem $*
    fi ;;
drop)
    ns=$(host_ns "$1" "$2")
    # remove any earlier rule of ours on this rail first, so "clear" and a new rate both work
    while t ip netns exec "$ns" iptables -S OUTPUT | grep -q -- "-o rail$3 .*vcluster-drop"; do
        rule=$(t ip netns exec "$ns" iptables -S OUTPUT | grep -m1 -- "-o rail$3 .*vcluster-drop" | sed 's/^-A //')
        t ip netns exec "$ns" iptables -D $rule
    done
    if [ "$4" != clear ]; then
        p=$(awk -v p="${4%\%}" 'BEGIN { printf "%.6f", p / 100 }')
        t ip netns exec "$ns" iptables -A OUTPUT -o "rail$3" -m statistic --mode random --probability "$p" \
            -m comment --comment vcluster-drop -j DROP
    fi ;;
rate) shape "$1" "$2" "$3" "$4" ;;
delay)
    name=$1 h=$2 r=$3 ms=$4
    ns=$(host_ns "$name" "$h") port="$(host_ns "$name" "$h")r$r"
    relay="${ns}d$r" pidf="$slots/delay-$name-$h-$r"
    if [ -e "$pidf" ]; then # take the relay out, the host's link back onto the switch
        kill "$(cat "$pidf")" 2>/dev/null || true
        rm -f "$pidf"
        t ip link del "$relay" 2>/dev/null || true
        t ip link set "$port" master "$(rail_br "$name" "$r")"
    fi
    [ "$ms" = clear ] && exit 0
    [[ "$ms" =~ ^[0-9]+$ ]] || die "delay: expected milliseconds or clear, not '$ms'"
    command -v ethtool >/dev/null || die "delay: needs ethtool (frames must be whole and checksummed)"
    src=$(dirname "$0")/delayd.c bin=$slots/delayd
    if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
        cc -O2 -o "$bin.$$" "$src" && mv "$bin.$$" "$bin" || die "delay: cannot build delayd"
    fi
    # offloads off on every link of the rail: delayd sees whole, checksummed frames
    for hn in $(ip netns list | awk -v p="^${name}h[0-9]+$" '$1 ~ p { print $1 }'); do
        t ip netns exec "$hn" ethtool -K "rail$r" tso off gso off gro off tx off rx off >/dev/null 2>&1 || true
        t ethtool -K "${hn}r$r" tso off gso off gro off tx off rx off >/dev/null 2>&1 || true
    done
    t ip link add "$relay" type veth peer name "${ns}e$r"
    for d in "$relay" "${ns}e$r"; do
        t ip link set "$d" mtu "$(cat /sys/class/net/$port/mtu)"
        t ethtool -K "$d" tso off gso off gro off tx off rx off >/dev/null 2>&1 || true
    done
    t ip link set "${ns}e$r" master "$(rail_br "$name" "$r")" up
    t ip link set "$relay" up
    t ip link set "$port" nomaster
    "$bin" "$port" "$relay" "$ms" >/dev/null 2>&1 &
    echo $! > "$pidf" ;;
mtu)
    [[ "$3" =~ ^[0-9]+$ ]] || die "mtu: expected a number, not '$3'"
    for ns in $(ip netns list | awk -v p="^${1}h[0-9]+$" '$1 ~ p { print $1 }'); do
        t ip link set "${ns}r$2" mtu "$3"
        t ip netns exec "$ns" ip link set "rail$2" mtu "$3"
    done
    t ip link set "$(rail_br "$1" "$2")" mtu "$3" ;;
exec) name=$1 h=$2; shift 2; exec ip netns exec "$(host_ns "$name" "$h")" "$@" ;;
*) sed -n '2,28p' "$0"; exit 2 ;;
esac
