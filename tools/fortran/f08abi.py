"""MPICH's mpi_f08 ABI for tools/fortran/gen.py: the mpi_x_f08_ and
mpi_x_f08ts_ entry points of the C wrappers and the module procedures of
MPICH's mpi_f08_types (docs/fortran.md). Python 3 standard library only."""
import re
import sys

# A program built with MPICH's `use mpi_f08` calls mpi_x_f08_ (every argument
# by reference, as the `mpi` module's mpi_x_, ierror optional: NULL when
# absent) or, when x has a buffer, mpi_x_f08ts_, which receives each buffer
# as a gfortran array descriptor (TYPE(*), DIMENSION(..) of a procedure that
# is not BIND(C)). Calls that keep using their buffer after they return get
# no packed copy of a non-contiguous section (f_sect_begin refuses it).
F08_NO_PACK = re.compile(r"^MPI_(I[a-z]\w*|\w+_init|Buffer_attach|Win_\w+|Get_address|Address|Put|Get|"
                         r"Accumulate|Get_accumulate|Fetch_and_op|Compare_and_swap|Rput|Rget|"
                         r"Raccumulate|Rget_accumulate|File_i\w+|File_\w+_(begin|end)|F_sync_reg)$")
F08_BUF_KINDS = {"choice_in": "F_SECT_IN", "choice_out": "F_SECT_OUT", "choice_inout": "F_SECT_OUT",
                 "addr_in": "F_SECT_ADDR"}
# Buffers with their own COUNT and DATATYPE: in calls that keep using them,
# a non-contiguous section becomes a datatype (f_sect_typed).
F08_TYPED = {"buf": ("count", "datatype"), "buffer": ("count", "datatype"),
             "origin_addr": ("origin_count", "origin_datatype"),
             "result_addr": ("result_count", "result_datatype"),
             "sendbuf": ("sendcount", "sendtype"), "recvbuf": ("recvcount", "recvtype")}
# ... of which COUNT covers the whole buffer (not per process)
F08_WHOLE = {"buf", "buffer", "origin_addr", "result_addr"}
# MPICH's handle classes with == and /= in its module mpi_f08_types
F08_MPICH_HANDLES = ["comm", "datatype", "errhandler", "file", "group", "info", "message", "op",
                     "request", "session", "win"]


def param_name(p):
    m = re.search(r"\(\*(\w+)\)", p)
    return m.group(1) if m else re.search(r"(\w+)$", p).group(1)


def f08_names(f):
    """MPICH's mpi_f08 entry points of f (the p-prefixed ones too)."""
    low = f.name.lower()
    tail = "_f08ts_" if any(a.kind in F08_BUF_KINDS for a in f.args) else "_f08_"
    return [low + tail, "p" + low + tail]


def gen_f08_entry(f, sym, g):
    """The mpi_f08 entry point of f, whose mpi_x_ body is sym; g: the gen module."""
    params = g.fortran_params(f)
    names = [param_name(p) for p in params]
    mpi_f08, pmpi_f08 = f08_names(f)
    bufs = [a for a in f.args if a.kind in F08_BUF_KINDS]
    if any(a.kind == "detach_buf" for a in f.args):
        # mpi_f08's BUFFER_ADDR is a TYPE(C_PTR) that receives the address
        # (the `mpi` module's is the buffer itself, left alone)
        pre, call, post, fails = g.c_body(f)
        call = ["(void *)f_" + a.name if a.kind == "detach_buf" else c for a, c in zip(f.args, call)]
        return ["RM_FEXPORT void %s(%s)" % (mpi_f08, ", ".join(params)),
                "{",
                "    int rc = %s(%s);" % (f.name, ", ".join(call)),
                "    if (ierr) *ierr = rc;",
                "}",
                "RM_FALIAS(%s, %s)" % (mpi_f08, pmpi_f08)]
    if not bufs:
        if not f.hand:
            return ["RM_FALIAS(%s, %s)" % (sym, mpi_f08), "RM_FALIAS(%s, %s)" % (sym, pmpi_f08)]
        # an alias needs its target in this file: forward instead
        rt = {"int": "void", "double": "double", "aint": "MPI_Aint"}[f.ret]
        return ["RM_FEXPORT %s %s(%s)" % (rt, mpi_f08, ", ".join(params) or "void"),
                "{",
                "    %s%s(%s);" % ("" if rt == "void" else "return ", sym, ", ".join(names)),
                "}",
                "RM_FALIAS(%s, %s)" % (mpi_f08, pmpi_f08)]
    if not g.has_ierror(f) or f.ret != "int":
        sys.exit("gen.py: %s: a buffer argument without ierror" % f.name)
    # a large-count form (MPI_Isend_c) treats its buffers as its int form does
    base = re.sub(r"_c$", "", f.name)
    pack = "0" if F08_NO_PACK.match(base) else "1"
    bufnames = {"f_" + a.name for a in bufs}
    decl = ["const struct f_gfc_desc *" + n if n in bufnames else p for p, n in zip(params, names)]
    out = ["RM_FEXPORT void %s(%s)" % (mpi_f08, ", ".join(decl)), "{"]
    for a in bufs:
        out.append("    struct f_sect s_%s = {0};" % a.name)
        out.append("    void *a_%s = NULL;" % a.name)
    out.append("    int rc = MPI_SUCCESS;")
    argkinds = {a.name: a.kind for a in f.args}
    repl = {}
    shared = []  # buffers of one DATATYPE argument (reductions)
    for a in bufs:
        cnt, dt = F08_TYPED.get(a.name, (None, None))
        mode = F08_BUF_KINDS[a.kind]
        if pack == "0" and base.endswith("_end"):
            mode = "F_SECT_ADDR"  # the data were described at _begin
        if (pack == "0" and mode != "F_SECT_ADDR" and argkinds.get(dt) != "h.datatype"
                and argkinds.get("datatype") == "h.datatype"):
            shared.append(a)
        elif pack == "0" and mode != "F_SECT_ADDR" and argkinds.get(dt) == "h.datatype":
            out.append("    MPI_Fint c_%s = *f_%s;" % (dt, dt))
            repl["f_" + dt] = "&c_" + dt
            cref = "NULL"  # counts per process: only a resized DATATYPE keeps them right
            if argkinds.get(cnt) == "int" and a.name in F08_WHOLE:
                out.append("    MPI_Fint c_%s = *f_%s;" % (cnt, cnt))
                repl["f_" + cnt] = cref = "&c_" + cnt
            elif argkinds.get(cnt) == "count" and a.name in F08_WHOLE and base != f.name:
                # a large-count form's COUNT: past INT_MAX it matches no section
                # (f_sect_typed then refuses a 2-d one); 1 when it covers the section
                # (MPI_Psend_init's MPI_Count COUNT is per partition: left alone)
                out.append("    MPI_Fint c_%s = *f_%s >= 0 && *f_%s <= INT_MAX ? (MPI_Fint)*f_%s : -1;"
                           % (cnt, cnt, cnt, cnt))
                cref = "&c_" + cnt
            out.append('    if (rc == MPI_SUCCESS) rc = f_sect_typed("%s", f_%s, %s, &c_%s, &s_%s, &a_%s);'
                       % (f.name, a.name, cref, dt, a.name, a.name))
            if cref == "&c_" + cnt and argkinds.get(cnt) == "count":
                out.append("    MPI_Count w_%s = c_%s == 1 ? 1 : *f_%s;" % (cnt, cnt, cnt))
                repl["f_" + cnt] = "&w_" + cnt
        else:
            out.append('    if (rc == MPI_SUCCESS) rc = f_sect_begin("%s", f_%s, %s, %s, &s_%s, &a_%s);'
                       % (f.name, a.name, mode, pack, a.name, a.name))
    if shared:
        nb = len(shared)
        out.append("    MPI_Fint c_datatype = *f_datatype;")
        repl["f_datatype"] = "&c_datatype"
        out.append("    {")
        out.append("        const struct f_gfc_desc *d_sh[] = {%s};" % ", ".join("f_" + a.name for a in shared))
        out.append("        struct f_sect s_sh[%d] = {{0}};" % nb)
        out.append("        void *a_sh[%d] = {0};" % nb)
        out.append('        if (rc == MPI_SUCCESS) rc = f_sect_shared("%s", %d, d_sh, &c_datatype, s_sh, a_sh);'
                   % (f.name, nb))
        for i, a in enumerate(shared):
            out.append("        s_%s = s_sh[%d];" % (a.name, i))
            out.append("        a_%s = a_sh[%d];" % (a.name, i))
        out.append("    }")
    call = ["a_" + n[2:] if n in bufnames else ("&rc" if n == "ierr" else repl.get(n, n)) for n in names]
    out.append("    if (rc == MPI_SUCCESS)")
    out.append("        %s(%s);" % (sym, ", ".join(call)))
    # a refused buffer is an error of the call: its object's handler
    handle = next((a for a in f.args if a.kind in ("h.comm", "h.win", "h.file")), None)
    if handle is None:
        raise_err = "MPI_Comm_call_errhandler(MPI_COMM_WORLD, rc)"
    elif handle.kind == "h.comm":
        raise_err = "MPI_Comm_call_errhandler((MPI_Comm)*f_%s, rc)" % handle.name
    elif handle.kind == "h.win":
        raise_err = "MPI_Win_call_errhandler((MPI_Win)*f_%s, rc)" % handle.name
    else:
        raise_err = "MPI_File_call_errhandler(PMPI_File_f2c(*f_%s), rc)" % handle.name
    out.append("    else")
    out.append("        %s;" % raise_err)
    for a in bufs:
        out.append("    f_sect_end(&s_%s);" % a.name)
    out.append("    if (ierr) *ierr = rc;")
    out.append("}")
    out.append("RM_FALIAS(%s, %s)" % (mpi_f08, pmpi_f08))
    return out


def gen_f08_module_procs():
    """Procedures of MPICH's module mpi_f08_types: == and /= (handle with handle, with
    INTEGER, INTEGER with handle): all compare two INTEGERs by reference."""
    out = []
    for h in F08_MPICH_HANDLES:
        for tag, ours in (("eq", "mpi_f08_eq_comm_"), ("neq", "mpi_f08_ne_comm_")):
            for form in ("mpi_%s_%s", "mpi_%s_f08_%s_f", "mpi_%s_f_%s_f08"):
                out.append("RM_FALIAS(%s, __mpi_f08_types_MOD_%s)" % (ours, form % (h, tag)))
    # MPICH's MPI_Status_f082f/f2f08 are module procedures of mpi_f08_types
    # (arguments by reference, ierror optional): the mpi_x_ bodies serve
    for name in ("mpi_status_f082f", "mpi_status_f2f08"):
        out.append("RM_FALIAS(p%s_, __mpi_f08_types_MOD_%s)" % (name, name))
    return out
