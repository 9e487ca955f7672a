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
c.Barrier()
if r == 0:
    print("OK")
