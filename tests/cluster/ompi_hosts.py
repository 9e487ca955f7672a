# Debian's mpi4py (built on Open MPI) on railmpi's libmpi.so.40 across
# hosts, for tests/cluster/ompi_hosts.sh, which runs it as
#   /usr/bin/python3 -c "$(cat ompi_hosts.py)" SECONDS
# Rounds until SECONDS have passed (rank 0's clock decides), each with:
# point-to-point NumPy arrays (0 B - 2 MiB, header and contents checked,
# wildcard receives, a sequence number per sender and receiver) and pickled
# objects; collectives on NumPy arrays (allreduce, bcast, allgather,
# alltoall, reduce_scatter_block, exact integers in doubles); one-sided
# (fence epochs with puts and accumulates, a passive-target get). Rank 0
# prints "progress UNIXTIME round R" per round and "OK: ..." at the end;
# every failed check prints a "FAIL:" line.
import sys
import time

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
fails = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL: rank %d: %s" % (rank, msg), flush=True)


def plan(rnd, s, d):
    """How many doubles rank s sends rank d in round rnd (0 B to 2 MiB)."""
    x = (rnd * 7919 + s * 131 + d * 17) % 97
    return (0, 3, 1000, 40000, 262144)[x % 5] + x


def payload(rnd, s, d, n):
    return np.arange(n, dtype=np.float64) * (s + 1) + (rnd * 1000 + d)


def round_p2p(rnd, seq_to, next_from, ocomm):
    """Every rank sends every other rank one array, then one pickled object."""
    reqs, bufs = [], []
    for d in range(size):
        if d == rank:
            continue
        n = plan(rnd, rank, d)
        b = np.empty(n + 4, dtype=np.float64)
        b[:4] = (rank, seq_to[d], n, rnd)
        b[4:] = payload(rnd, rank, d, n)
        seq_to[d] += 1
        bufs.append(b)
        reqs.append(comm.Isend(b, dest=d, tag=rnd % 1000))
    st = MPI.Status()
    for _ in range(size - 1):
        comm.Probe(MPI.ANY_SOURCE, MPI.ANY_TAG, st)
        cnt = st.Get_count(MPI.DOUBLE)
        src = st.Get_source()
        b = np.empty(cnt, dtype=np.float64)
        comm.Recv(b, source=src, tag=st.Get_tag())
        n = cnt - 4
        if cnt < 4 or int(b[0]) != src or int(b[2]) != n or int(b[3]) != rnd or st.Get_tag() != rnd % 1000:
            fail("round %d: header from %d: %s (%d doubles)" % (rnd, src, b[:4], cnt))
            continue
        if int(b[1]) != next_from[src]:
            fail("round %d: message %d from %d where %d was due" % (rnd, int(b[1]), src, next_from[src]))
        next_from[src] = int(b[1]) + 1
        want = payload(rnd, src, rank, n)
        if not np.array_equal(b[4:], want):
            bad = np.flatnonzero(b[4:] != want)
            fail("round %d: %d of %d doubles from %d differ, first at %d" % (rnd, bad.size, n, src, bad[0]))
    MPI.Request.Waitall(reqs)
    # objects (pickled) around the ring, on a communicator of their own: the
    # wildcard probes above must not see them
    right, left = (rank + 1) % size, (rank - 1) % size
    r = ocomm.isend({"from": rank, "round": rnd, "data": list(range(rnd % 50))}, dest=right, tag=7)
    obj = ocomm.recv(source=left, tag=7)
    r.wait()
    if obj != {"from": left, "round": rnd, "data": list(range(rnd % 50))}:
        fail("round %d: object from %d: %r" % (rnd, left, obj))


def round_coll(rnd):
    n = 131072 + rnd % 7
    base = np.arange(n, dtype=np.float64)
    out = np.empty(n, dtype=np.float64)
    comm.Allreduce(base + rank + rnd, out, op=MPI.SUM)
    if not np.array_equal(out, base * size + size * rnd + size * (size - 1) // 2):
        fail("round %d: allreduce" % rnd)
    root = rnd % size
    b = base * 3 + rnd if rank == root else np.zeros(n)
    comm.Bcast(b, root=root)
    if not np.array_equal(b, base * 3 + rnd):
        fail("round %d: bcast from %d" % (rnd, root))
    m = 4096
    g = np.empty(m * size, dtype=np.int64)
    comm.Allgather(np.full(m, rank * 100 + rnd, dtype=np.int64), g)
    if not np.array_equal(g, np.repeat(np.arange(size, dtype=np.int64) * 100 + rnd, m)):
        fail("round %d: allgather" % rnd)
    # alltoall: block d of rank s holds s * size + d
    a = np.repeat(np.arange(size, dtype=np.int32) + rank * size, m)
    t = np.empty_like(a)
    comm.Alltoall(a, t)
    if not np.array_equal(t, np.repeat(np.arange(size, dtype=np.int32) * size + rank, m)):
        fail("round %d: alltoall" % rnd)
    rs = np.empty(m, dtype=np.float64)
    comm.Reduce_scatter_block(np.tile(np.arange(m, dtype=np.float64), size) + rank, rs, op=MPI.SUM)
    if not np.array_equal(rs, np.arange(m, dtype=np.float64) * size + size * (size - 1) // 2):
        fail("round %d: reduce_scatter_block" % rnd)


WN = 65536  # doubles a region: 512 KiB, bulk puts across hosts


def round_rma(rnd, win, mem):
    """Region 0: the left neighbour's put; region 1: everyone's accumulate."""
    right, left = (rank + 1) % size, (rank - 1) % size
    src = np.arange(WN, dtype=np.float64) + rank * 10 + rnd
    mem[WN:] = 0
    win.Fence(MPI.MODE_NOPRECEDE)
    win.Put(src, right, target=0)
    win.Accumulate(np.full(WN, rank + 1.0), rnd % size, target=WN, op=MPI.SUM)
    win.Fence(MPI.MODE_NOSUCCEED)
    if not np.array_equal(mem[:WN], np.arange(WN, dtype=np.float64) + left * 10 + rnd):
        fail("round %d: put from %d" % (rnd, left))
    want = size * (size + 1) // 2 if rank == rnd % size else 0
    if not np.all(mem[WN:] == want):
        fail("round %d: accumulate: %s, not %d" % (rnd, mem[WN:WN + 4], want))
    # passive target: the right neighbour's region 0 holds what this rank put there
    got = np.empty(WN, dtype=np.float64)
    win.Lock(right, MPI.LOCK_SHARED)
    win.Get(got, right, target=0)
    win.Unlock(right)
    if not np.array_equal(got, src):
        fail("round %d: get from %d" % (rnd, right))


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5
    if rank == 0:
        print("library: %s" % MPI.Get_library_version().splitlines()[0], flush=True)
    ocomm = comm.Dup()
    win = MPI.Win.Allocate(2 * WN * 8, 8, comm=comm)
    mem = np.frombuffer(win.tomemory(), dtype=np.float64)
    seq_to, next_from = [0] * size, [0] * size
    start = MPI.Wtime()
    rnd = 0
    while comm.bcast(MPI.Wtime() - start < seconds if rank == 0 else None, root=0):
        round_p2p(rnd, seq_to, next_from, ocomm)
        round_coll(rnd)
        round_rma(rnd, win, mem)
        if rank == 0:
            print("progress %.6f round %d" % (time.time(), rnd), flush=True)
        rnd += 1
    win.Free()
    ocomm.Free()
    # exactly once: what each peer sent me is what I received, and nothing is left
    sent_me = comm.alltoall(seq_to)
    for s in range(size):
        if sent_me[s] != next_from[s]:
            fail("%d messages from %d sent, %d received" % (sent_me[s], s, next_from[s]))
    comm.Barrier()
    if comm.Iprobe(MPI.ANY_SOURCE, MPI.ANY_TAG):
        fail("a message left over after the last round")
    total = comm.allreduce(fails, op=MPI.SUM)
    msgs = comm.reduce(sum(next_from), op=MPI.SUM, root=0)
    if rank == 0 and total == 0:
        print("OK: mpi4py %d rounds on %d ranks, %d arrays verified exactly once, collectives and "
              "one-sided exact" % (rnd, size, msgs), flush=True)
    return 1 if total else 0


try:
    rc = main()
except Exception as e:  # one rank's exception must end the job, not hang it
    print("FAIL: rank %d: %s: %s" % (rank, type(e).__name__, e), flush=True)
    comm.Abort(1)
sys.exit(rc)
