#!/usr/bin/env python3
"""Open MPI's Fortran bindings (libmpi_mpifh.so.40, libmpi_usempif08.so.40)
from tools/api/mpi_api.txt.

  ompi_fgen.py --api tools/api/mpi_api.txt --map libmpi_ompi.map --c ompi_fbind.c
               [--c-f08 ompi_f08bind.c] [--list]

The wrappers of gen.py (same kinds, same bodies) over Open MPI's C ABI, which
railmpi's libmpi.so.40 provides (tools/abi/ompi_gen.py): a handle argument is
Open MPI's Fortran integer, turned into its C handle by MPI_<T>_f2c and back
by MPI_<T>_c2f; statuses, sentinels and constants are Open MPI's
(src/abi/ompi_fortran.h). One body per function, pmpi_send_, with the names
Open MPI's libmpi_mpifh.so.40 exports as aliases (mpi_send, mpi_send_,
mpi_send__, MPI_SEND, pmpi_send, pmpi_send__, PMPI_SEND); with --c-f08 the
same bodies under the names of Open MPI's mpi_f08 module (mpi_send_f08_,
pmpi_send_f08_), its handles' == and /= and MPI_SIZEOF's specifics. A
function is bound when libmpi.so.40 exports it (--map) and every argument
kind has a translation here; those that take procedures, MPI_Comm_idup and
MPI_Register_datarep are written by hand (src/abi/ompi_fcallbacks.c);
--list prints what is not generated, with the reason.
"""
import argparse
import copy
import re
import sys

sys.dont_write_bytecode = True
import gen

# MPI_<T>_f2c/_c2f of each handle class
F2C = {"comm": "Comm", "datatype": "Type", "group": "Group", "op": "Op", "errhandler": "Errhandler",
       "request": "Request", "message": "Message", "info": "Info", "win": "Win", "file": "File"}
# handle classes whose arrays src/abi/ompi_fortran.c converts
ARR_CLASS = {"comm": "F_COMM", "datatype": "F_DATATYPE", "info": "F_INFO", "request": "F_REQUEST"}
# kinds with no translation here: procedures (they would see C handles; the
# calls that take them are written by hand), railmpi's mpi_f08 statuses
UNSUPPORTED = ("fn:", "copy_fn", "delete_fn", "grequest_fn", "f08status", "fstatus", "h.session")


# written by hand (src/abi/ompi_fcallbacks.c): their procedures need
# trampolines, or (MPI_Comm_idup) their communicator comes at completion
HAND = {"MPI_Op_create", "MPI_Comm_create_errhandler", "MPI_Win_create_errhandler",
        "MPI_File_create_errhandler", "MPI_Errhandler_create", "MPI_Comm_create_keyval",
        "MPI_Type_create_keyval", "MPI_Win_create_keyval", "MPI_Keyval_create", "MPI_Grequest_start",
        "MPI_Comm_idup", "MPI_Register_datarep"}


def arr_len(f, a):
    """The C expression of a handle array's length, or None."""
    names = [x.name for x in f.args]
    if a.name in ("sendtypes", "recvtypes"):
        # alltoallw: one per process of the (remote) group; the neighbour
        # forms': one per neighbour, out for sending, in for receiving
        if "neighbor" in f.name.lower():
            return "f_neighbor_span(PMPI_Comm_f2c(*f_comm), %d)" % (a.name == "sendtypes")
        return "f_comm_span(PMPI_Comm_f2c(*f_comm))"
    for n in ("count", "incount", "max_datatypes"):
        if n in names:
            return "*f_" + n
    return None


def ompi_handle(f, a, pre, call, post, fails):
    n = "f_" + a.name
    cls, _, mode = a.kind[2:].partition("_")
    T, cty = F2C[cls], gen.HANDLE_C[cls]
    if not mode:
        call.append("PMPI_%s_f2c(*%s)" % (T, n))
    elif mode in ("out", "inout"):
        init = "PMPI_%s_f2c(*%s)" % (T, n) if mode == "inout" else "NULL"
        pre.append("%s c_%s = %s;" % (cty, a.name, init))
        call.append("&c_" + a.name)
        # a failed call may still give a handle (MPI_COMM_NULL from a failed
        # MPI_Comm_dup); a completed request becomes MPI_REQUEST_NULL
        post.append("if (rc == MPI_SUCCESS || c_%s) *%s = PMPI_%s_c2f(c_%s);" % (a.name, n, T, a.name))
    else:
        ln = arr_len(f, a)
        pre.append("int n_%s = %s;" % (a.name, ln))
        if mode == "arr_out":
            pre.append("void **c_%s = f_handles_room(n_%s);" % (a.name, a.name))
        else:
            pre.append("void **c_%s = f_handles_in(%s, %s, n_%s);" % (a.name, ARR_CLASS[cls], n, a.name))
        fails.append("!c_%s && n_%s > 0 ? MPI_ERR_NO_MEM" % (a.name, a.name))
        call.append("(%s *)c_%s" % (cty, a.name))
        if mode in ("arr_out", "arr_inout"):
            post.append("if (rc == MPI_SUCCESS || %s) f_handles_out(%s, %s, c_%s, n_%s);"
                        % ("1" if mode == "arr_inout" else "0", ARR_CLASS[cls], n, a.name, a.name))
        post.append("free(c_%s);" % a.name)


def why_not(f, exported):
    if not f.fortran or f.f08_generic:
        return "no mpif.h binding"
    if f.name not in exported:
        return "not in libmpi.so.40"
    if f.name in HAND:
        return "written by hand in src/abi/ompi_fcallbacks.c"
    if f.hand:
        return "written by hand for railmpi's own bindings"
    for a in f.args:
        if a.kind.startswith(UNSUPPORTED):
            return "argument %s of kind %s" % (a.name, a.kind)
        cls, _, mode = a.kind[2:].partition("_") if a.kind.startswith("h.") else ("", "", "")
        if mode.startswith("arr") and (cls not in ARR_CLASS or arr_len(f, a) is None):
            return "handle array %s of unknown length" % a.name
    return None


def mpix(f, exported):
    """An MPI-4.0 function libmpi.so.40 has under Open MPI's extension name
    only (its persistent collectives, MPIX_Allreduce_init): bound under that
    name too (mpix_allreduce_init_, MPIX_ALLREDUCE_INIT, mpix_allreduce_init_f08_,
    ... as Open MPI's libraries), calling PMPIX_Allreduce_init."""
    x = "MPIX_" + f.name[4:]
    if f.name in exported or x not in exported or not f.name.endswith("_init"):
        return f
    g = copy.copy(f)
    g.name = x
    return g


def prototype(f):
    ret = {"int": "int", "double": "double", "aint": "MPI_Aint"}[f.ret]
    return "%s P%s(%s);" % (ret, f.name, ", ".join(gen.c_type(a.kind) for a in f.args) or "void")


# the handle classes of Open MPI's mpi_f08 module: == and /= are procedures of
# its mpi_f08_types module
F08_OPS = ["comm", "datatype", "errhandler", "file", "group", "info", "message", "op", "request", "win"]


# not in mpi_f08: the MPI-1 functions MPI-3.0 removed, and MPI_Wtime and
# MPI_Wtick, which the module binds to the C functions
F08_NONE = {"MPI_Address", "MPI_Attr_delete", "MPI_Attr_get", "MPI_Attr_put", "MPI_Errhandler_get",
            "MPI_Errhandler_set", "MPI_Keyval_free", "MPI_Type_extent", "MPI_Type_hindexed",
            "MPI_Type_hvector", "MPI_Type_lb", "MPI_Type_struct", "MPI_Type_ub", "MPI_Wtick", "MPI_Wtime"}


# functions whose base address Open MPI's `mpi` module also takes as a
# TYPE(C_PTR), through a procedure of its own (mpi_alloc_mem_cptr_, ...)
CPTR = {"MPI_Alloc_mem", "MPI_Win_allocate", "MPI_Win_allocate_shared", "MPI_Win_shared_query"}


# MPI_SIZEOF of Open MPI's modules: one specific per type and shape
# (mpi_sizeof_real64_scalar_, mpi_sizeof_int32_r3_, ...), exported by its
# mpi_f08 library, where programs of both modules find them; element sizes
SIZEOF_TYPES = [("character", 1), ("logical", 4), ("int8", 1), ("int16", 2), ("int32", 4),
                ("int64", 8), ("real32", 4), ("real64", 8), ("real128", 16), ("complex32", 8),
                ("complex64", 16), ("complex128", 32)]
SIZEOF_SHAPES = ["scalar"] + ["r%d" % i for i in range(1, 16)]


def gen_sizeof():
    """MPI_SIZEOF(X, SIZE, IERROR): the size of an element of X's type (X is
    not read; a CHARACTER X's hidden length comes last and is not read)."""
    out = []
    for t, n in SIZEOF_TYPES:
        sym = "f08_sizeof_" + t
        out += ["static void %s(const void *x, MPI_Fint *size, MPI_Fint *ierr)" % sym, "{",
                "    (void)x;", "    *size = %d;" % n, "    if (ierr) *ierr = MPI_SUCCESS;", "}"]
        for shape in SIZEOF_SHAPES:
            for pre in ("mpi", "pmpi"):
                out.append("RM_FALIAS(%s, %s_sizeof_%s_%s_)" % (sym, pre, t, shape))
    return out + [""]


def gen_tkr():
    """libmpi_usempi_ignore_tkr.so.40, the library of Open MPI's `use mpi`
    module for gfortran: its MPI_SIZEOF specifics (the same as the mpi_f08
    library's) and, as Open MPI's has, the sentinels' common blocks (a
    program that names one has its own, which the dynamic linker prefers)."""
    out = ["/* Generated by tools/fortran/ompi_fgen.py; do not edit. */",
           "/* Open MPI's `use mpi` library for gfortran: MPI_SIZEOF and the sentinels. */",
           '#include "ompi_fortran.h"', ""]
    out += ["RM_FEXPORT MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_errcodes_ignore_[1],",
            "    mpi_fortran_status_ignore_[6], mpi_fortran_statuses_ignore_[6], mpi_fortran_unweighted_[1],",
            "    mpi_fortran_weights_empty_[1];",
            "RM_FEXPORT char mpi_fortran_argv_null_[1], mpi_fortran_argvs_null_[1];", ""]
    return "\n".join(out + gen_sizeof()) + "\n"


def gen_c(funcs, exported, f08=False):
    """The mpif.h bindings (libmpi_mpifh.so.40), or with f08 the entry points
    of Open MPI's mpi_f08 module (libmpi_usempif08.so.40: mpi_send_f08_, ...),
    which take the same arguments: a handle is a sequence type holding the
    integer, a status Open MPI's C status, buffers by address; IERROR is
    optional (NULL when absent)."""
    gen.c_handle = ompi_handle
    what = "mpi_f08 entry points" if f08 else "mpif.h bindings"
    out = ["/* Generated by tools/fortran/ompi_fgen.py from tools/api/mpi_api.txt; do not edit. */",
           "/* Open MPI's %s over its C ABI (libmpi.so.40): one body per" % what,
           " * function, the other spellings are aliases of it. */",
           '#include "ompi_fortran.h"', "#include <limits.h>", "",
           "/* the C functions of libmpi.so.40 they call, with Open MPI's types */"]
    for T in sorted(set(F2C.values())):
        cty = "MPI_Datatype" if T == "Type" else "MPI_" + T
        out.append("%s PMPI_%s_f2c(MPI_Fint f);" % (cty, T))
        out.append("MPI_Fint PMPI_%s_c2f(%s c);" % (T, cty))
    bound = [f for f in funcs if why_not(f, exported) is None and not (f08 and f.name in F08_NONE)]
    out += [prototype(f) for f in bound] + [""]
    if f08:
        for h in F08_OPS:
            for op, rel in (("eq", "=="), ("ne", "!=")):
                out.append("RM_FEXPORT MPI_Fint __mpi_f08_types_MOD_ompi_%s_op_%s(const MPI_Fint *a, const MPI_Fint *b)"
                           " { return *a %s *b; }" % (h, op, rel))
        out.append("")
        out += gen_sizeof()
    for f in bound:
        low = f.name.lower()
        sym = ("f08_" if f08 else "p") + low + "_"
        params = ", ".join(gen.fortran_params(f)) or "void"
        pre, call, post, fails = gen.c_body(f)
        head = "static" if f08 else "RM_FEXPORT"
        if f.ret == "int":
            out += ["%s void %s(%s)" % (head, sym, params), "{"]
            out += ["    " + s for s in pre]
            out.append("    int rc = %sP%s(%s);" % ("".join(x + " : " for x in fails), f.name, ", ".join(call)))
            out += ["    " + s for s in post]
            out.append("    if (ierr) *ierr = rc;" if gen.has_ierror(f) else "    (void)rc;")
            out.append("}")
        else:
            rt = {"double": "double", "aint": "MPI_Aint"}[f.ret]
            out += ["%s %s %s(%s)" % (head, rt, sym, params), "{",
                    "    return P%s(%s);" % (f.name, ", ".join(call)), "}"]
        if f08:
            aliases = [low + "_f08_", "p" + low + "_f08_"]
        else:
            aliases = gen.manglings(f.name) + ["p" + x for x in gen.manglings(f.name)[1:3]] + ["P" + f.name.upper()]
            if f.name in CPTR:
                # the `mpi` module's specifics for a TYPE(C_PTR) base
                # address, passed as the integer one is (8 bytes, by
                # reference)
                c = f.name + "_cptr"
                aliases += gen.manglings(c) + ["p" + x for x in gen.manglings(c)[:3]] + ["P" + c.upper()]
        for alias in aliases:
            out.append("RM_FALIAS(%s, %s)" % (sym, alias))
        out.append("")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--api", required=True)
    ap.add_argument("--map", required=True, help="libmpi.so.40's version script")
    ap.add_argument("--c")
    ap.add_argument("--c-f08")
    ap.add_argument("--c-tkr")
    ap.add_argument("--list", action="store_true")
    o = ap.parse_args()
    exported = set(re.findall(r"^\s+(MPIX?_\w+);", open(o.map).read(), re.M))
    funcs = [mpix(f, exported) for f in gen.parse_api(o.api)]
    if o.c:
        open(o.c, "w").write(gen_c(funcs, exported))
    if o.c_f08:
        open(o.c_f08, "w").write(gen_c(funcs, exported, f08=True))
    if o.c_tkr:
        open(o.c_tkr, "w").write(gen_tkr())
    if o.list:
        for f in funcs:
            why = why_not(f, exported)
            if f.fortran and why:
                print("left out: %s (%s)" % (f.name, why))
        print("bound: %d functions" % sum(1 for f in funcs if why_not(f, exported) is None))


if __name__ == "__main__":
    main()
