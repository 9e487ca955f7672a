"""Debian's mpi4py (built on Open MPI) on railmpi's libmpi.so.40
(tests/abi/ompi_mpi4py.sh runs it at 2 ranks under mpiexec -abi openmpi)."""
import array
import os
import tempfile
from mpi4py import MPI

c = MPI.COMM_WORLD
r, n = c.Get_rank(), c.Get_size()
assert n == 2, n
peer = 1 - r
# pickled objects: point-to-point with a status, collectives
if r == 0:
    c.send([1, 2, 3], dest=1, tag=5)
else:
    st = MPI.Status()
    assert c.recv(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=st) == [1, 2, 3]
    assert st.Get_source() == 0 and st.Get_tag() == 5 and st.Get_count(MPI.BYTE) > 0
assert c.allreduce(r, op=MPI.SUM) == 1
assert c.bcast({"a": 1} if r == 0 else None, root=0) == {"a": 1}
req = c.isend(("x", r), dest=peer, tag=3)
assert c.recv(source=peer, tag=3) == ("x", peer)
req.wait()
# buffers with predefined datatypes and MPI_IN_PLACE
a = array.array('d', [r + 1.0] * 4)
b = array.array('d', [0.0] * 4)
c.Allreduce([a, MPI.DOUBLE], [b, MPI.DOUBLE], op=MPI.SUM)
assert list(b) == [3.0] * 4, b
c.Allreduce(MPI.IN_PLACE, [a, MPI.DOUBLE], op=MPI.MAX)
assert list(a) == [2.0] * 4, a
# communicators, groups, datatypes, info, attributes
d = c.Dup()
assert MPI.Comm.Compare(d, c) == MPI.CONGRUENT and d != c
g = d.Get_group()
assert g.Get_size() == 2 and MPI.Group.Compare(g, c.Get_group()) == MPI.IDENT
g.Free()
d.Free()
assert d == MPI.COMM_NULL
s = c.Split(r, 0)
assert s.Get_size() == 1
s.Free()
t = MPI.INT.Create_vector(2, 1, 2)
t.Commit()
assert t.Get_size() == 8 and t.Get_extent() == (0, 12)
t.Free()
info = MPI.Info.Create()
info.Set("k", "v")
assert info.Get("k") == "v"
info.Free()
assert c.Get_attr(MPI.TAG_UB) >= 32767
# a user operation (mpi4py's callback receives Open MPI's datatype handle)
op = MPI.Op.Create(lambda x, y, dt: y, commute=True)
op.Free()
# errors come back as Open MPI's classes
c.Set_errhandler(MPI.ERRORS_RETURN)
try:
    c.Send([a, MPI.DOUBLE], dest=7)
    raise SystemExit("send to rank 7 succeeded")
except MPI.Exception as e:
    assert e.Get_error_class() == MPI.ERR_RANK, e.Get_error_class()
# one-sided
w = MPI.Win.Allocate(8, comm=c)
w.Fence()
w.Put([array.array('i', [10 + r]), MPI.INT], peer)
w.Fence()
w.Free()
# MPI-IO
path = os.path.join(tempfile.gettempdir(), "railmpi_mpi4py_%d_%d.dat" % (os.getpid(), r))
fh = MPI.File.Open(MPI.COMM_SELF, path, MPI.MODE_CREATE | MPI.MODE_RDWR)
fh.Write_at(0, a)
out = array.array('d', [0.0] * 4)
fh.Read_at(0, out)
assert list(out) == list(a)
fh.Close()
MPI.File.Delete(path)
# attribute copy callbacks, statuses of Waitall, probes, alltoallw, topologies
k = MPI.Comm.Create_keyval(copy_fn=lambda o, kv, v: v * 2)
c.Set_attr(k, 21)
d = c.Dup()
assert d.Get_attr(k) == 42, d.Get_attr(k)
d.Free()
c.Delete_attr(k)
MPI.Comm.Free_keyval(k)
s = c.Split_type(MPI.COMM_TYPE_SHARED)
assert s.Get_size() == 2
s.Free()
sends = [c.Isend([array.array('i', [r] * 3), MPI.INT], peer, tag=t) for t in range(3)]
bufs = [array.array('i', [0] * 3) for _ in range(3)]
recvs = [c.Irecv([bufs[t], MPI.INT], MPI.ANY_SOURCE, tag=t) for t in range(3)]
sts = [MPI.Status() for _ in range(3)]
MPI.Request.Waitall(recvs, sts)
MPI.Request.Waitall(sends)
assert [(st.Get_source(), st.Get_tag(), st.Get_count(MPI.INT)) for st in sts] == [(peer, t, 3) for t in range(3)]
if r == 0:
    c.send("m", dest=1, tag=9)
else:
    st = MPI.Status()
    c.Probe(MPI.ANY_SOURCE, MPI.ANY_TAG, st)
    assert st.Get_tag() == 9
    assert c.mprobe(source=0, tag=9).recv() == "m"
sb = array.array('d', [r] * 4)
rb = array.array('d', [0] * 4)
c.Alltoallw([sb, [2, 2], [0, 16], [MPI.DOUBLE] * 2], [rb, [2, 2], [0, 16], [MPI.DOUBLE] * 2])
assert list(rb) == [0, 0, 1, 1], rb
cart = c.Create_cart([2], periods=[True])
assert cart.Shift(0, 1) == (peer, peer)
cart.Free()
t = MPI.Datatype.Create_struct([1, 2], [0, 8], [MPI.INT, MPI.DOUBLE]).Commit()
assert t.Get_envelope()[3] == MPI.COMBINER_STRUCT and t.Get_contents()[2][0] == MPI.INT
t.Free()
g = c.Get_group().Excl([0])
assert MPI.Group.Translate_ranks(g, [0], c.Get_group()) == [1]
g.Free()
c.Barrier()
if r == 0:
    print("OK")
