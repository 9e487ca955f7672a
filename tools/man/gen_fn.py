#!/usr/bin/env python3
"""Generate railmpi's manual pages of the C functions (section 3).

  gen_fn.py --api tools/api/mpi_api.txt --desc tools/api/mpi_desc.txt \
            --params tools/api/mpi_params.txt --header include/mpi.h \
            --lib build/lib/libmpi.so.12 --version X.Y.Z --out build/man/man3

One page MPI_Name.3 per C function the library exports (nm -D): the C
synopsis as include/mpi.h declares it (found with cc -aux-info, so the two
never differ), the mpi_f08 procedure as tools/fortran/gen.py generates it,
each parameter with its direction and meaning, the error classes the call can
return, railmpi's notes on it (tools/man/notes.py) and related functions.
It fails when a function has no description or a parameter no meaning, so a
new function cannot arrive without its page. Python 3 standard library only.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fortran"))
sys.path.insert(0, HERE)
import gen  # noqa: E402  tools/fortran/gen.py: the API description and the mpi_f08 interfaces
import notes  # noqa: E402  the error classes and railmpi's notes per family

# The extensions are not in mpi_api.txt (it describes the functions with a
# Fortran binding or the standard's C-only ones); their arguments' kinds here.
MPIX_API = """
MPIX_Rail_migrate(rail:int, off:int, changed:int_out)
MPIX_Grequest_start(query_fn:grequest_fn, free_fn:grequest_fn, cancel_fn:grequest_fn, poll_fn:grequest_fn, wait_fn:grequest_fn, extra_state:extra_state, request:h.request_out)
MPIX_Grequest_class_create(query_fn:grequest_fn, free_fn:grequest_fn, cancel_fn:grequest_fn, poll_fn:grequest_fn, wait_fn:grequest_fn, greq_class:int_out)
MPIX_Grequest_class_allocate(greq_class:int, extra_state:extra_state, request:h.request_out)
MPIX_Delete_error_class(errorclass:int)
MPIX_Delete_error_code(errorcode:int)
MPIX_Delete_error_string(errorcode:int)
MPIX_GPU_query_support(gpu_type:int, is_supported:int_out)
MPIX_Query_cuda_support()
MPIX_Query_ze_support()
MPIX_Query_hip_support()
MPIX_Comm_dup_fn(oldcomm:h.comm, keyval:int, extra_state:extra_state, attribute_val_in:attr_in, attribute_val_out:attr_out, flag:logical_out)
MPIX_Type_dup_fn(oldtype:h.datatype, keyval:int, extra_state:extra_state, attribute_val_in:attr_in, attribute_val_out:attr_out, flag:logical_out)
MPIX_Win_dup_fn(oldwin:h.win, keyval:int, extra_state:extra_state, attribute_val_in:attr_in, attribute_val_out:attr_out, flag:logical_out)
"""


def die(msg):
    sys.exit("gen_fn.py: " + msg)


def parse_mpix():
    funcs = []
    for line in MPIX_API.strip().splitlines():
        m = re.match(r"(MPIX_\w+)\((.*)\)$", line)
        args = [gen.Arg(*a.strip().split(":", 1)) for a in m.group(2).split(",") if a.strip()]
        funcs.append(gen.Func(m.group(1), args, "int", False, False))
    return funcs


def read_table(path, what):
    """name: text lines (# comments); a name given twice is an error."""
    table = {}
    for n, raw in enumerate(open(path), 1):
        line = raw.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        key, sep, text = line.partition(": ")
        if not sep or not text.strip():
            die("%s:%d: not 'name: text'" % (path, n))
        if key in table:
            die("%s:%d: %s %s given twice" % (path, n, what, key))
        table[key] = text.strip()
    return table


def header_decls(header, cc):
    """{function: declaration text} of every function include/mpi.h declares."""
    with tempfile.TemporaryDirectory() as tmp:
        src, aux = os.path.join(tmp, "h.c"), os.path.join(tmp, "h.aux")
        open(src, "w").write("#include <mpi.h>\n")
        inc = os.path.dirname(os.path.abspath(header))
        subprocess.run([cc, "-I" + inc, "-aux-info", aux, "-fsyntax-only", src], check=True)
        aux_lines = open(aux).read().splitlines()
    text = open(header).read().splitlines()
    decls = {}
    for a in aux_lines:
        m = re.match(r"/\* (.*):(\d+):NC \*/ extern [^(]*[ *](P?MPIX?_\w+) \(", a)
        if not m or os.path.abspath(m.group(1)) != os.path.abspath(header):
            continue
        name, i = m.group(3), int(m.group(2)) - 1
        d = ""
        while ";" not in d:
            d += " " + text[i].strip()
            i += 1
        d = re.sub(r"\s+", " ", d[:d.index(";") + 1]).strip()
        if not re.search(r"\b%s\s*\(" % name, d):
            die("include/mpi.h line %s does not declare %s" % (m.group(2), name))
        decls[name] = d
    return decls


def decl_params(decl):
    """[(name, C declaration)] of a declaration's parameters."""
    inner = decl[decl.index("(") + 1:decl.rindex(")")]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += ch in "([" and 1 or (ch in ")]" and -1 or 0)
        cur += ch
    if cur.strip() and cur.strip() != "void":
        parts.append(cur.strip())
    out = []
    for p in parts:
        if p == "...":
            out.append(("...", p))
            continue
        m = re.search(r"\(\s*\*\s*(\w+)\s*\)", p) or re.search(r"(\w+)\s*(\[[^\]]*\])*$", p)
        out.append((m.group(1), p))
    return out


def exported(lib, nm):
    """The C functions the library exports, and their profiling names."""
    out = subprocess.run([nm, "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    names, pnames = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in ("T", "W", "i"):
            n = f[2].split("@")[0]
            # all-capital names (MPI_SEND) are Fortran bindings
            if re.match(r"P?MPIX?_", n) and not re.match(r"P?MPIX?_[A-Z0-9_]+$", n):
                (pnames if n.startswith("P") else names).add(n)
    return names, pnames


def direction(a, cdecl, text):
    m = re.match(r"\((IN|OUT|INOUT)\) ", text)
    if m:
        return m.group(1), text[m.end():]
    k = a.kind
    if k.endswith("_inout") or k.startswith("h.") and k.endswith("_arr_inout"):
        return "INOUT", text
    if k.endswith("_out") or k in ("detach_buf", "baseptr_out", "errcodes_out", "statuses_out") \
            or k.startswith(("attr_out", "attr1_out", "indices_out")):
        return "OUT", text
    if k == "c_only":
        # a C-only argument (MPI_T handles, Fortran handles): a pointer it may write through is OUT
        writes = "*" in cdecl and not cdecl.startswith("const") and "function" not in cdecl
        return ("OUT" if writes else "IN"), text
    return "IN", text


# ---------------------------------------------------------------- roff
def esc(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", s)


def inline(s):
    """Text with MPI_ names and RAILMPI_ settings in bold."""
    return re.sub(r"\b((?:P?MPIX?|RAILMPI)_\w+)", r"\\fB\1\\fR", esc(s))


def f08_lines(f, dirs, spec=None):
    head, decls, end = gen.f08_procedure(f, spec or f.name)
    lines = ["USE mpi_f08"]
    while len(head) > 72:  # free-form continuation, as the manual's lines are narrow
        cut = head.rfind(", ", 0, 70) + 1
        lines.append(head[:cut] + " &")
        head = "        " + head[cut:].lstrip()
    lines.append(head)
    for a, d in decls:
        if not d.startswith(("!", "EXTERNAL")):
            intent = "OUT" if a is None else dirs[a.name]
            d = d.replace(" :: ", ", INTENT(%s) :: " % intent, 1)
        lines.append("    " + d)
    return lines + [end]


def page(f, decl, desc, params, fam, version, seealso, pending, anytime, proc_ft, pexports):
    name = f.name
    # .nh .ad l: no hyphenated names, no stretched lines
    lines = ['.TH %s 3 "" "railmpi %s" "railmpi"' % (name, version), ".nh", ".ad l",
             ".SH NAME", "%s \\- %s" % (name, esc(desc[name])),
             ".SH SYNOPSIS", ".SS C", ".nf", ".B #include <mpi.h>", ".PP"]
    lines += [esc(x) for x in wrap_decl(decl)]
    lines.append(".fi")
    cparams = decl_params(decl)
    if [n for n, _ in cparams] != [a.name for a in f.args]:
        die("%s: mpi.h names its parameters %s, the API description %s"
            % (name, [n for n, _ in cparams], [a.name for a in f.args]))
    rows, dirs = [], {}
    for a, (_, cdecl) in zip(f.args, cparams):
        base = name[:-2] if name.endswith("_c") else name  # MPI_X_c's parameters are MPI_X's
        text = params.get(name + "." + a.name) or params.get(base + "." + a.name) or params.get(a.name)
        if not text:
            die("%s: parameter %s has no meaning in tools/api/mpi_params.txt" % (name, a.name))
        d, text = direction(a, cdecl, text)
        dirs[a.name] = d
        rows.append((a.name, d, text))
    if f.fortran:
        lines += [".SS Fortran 2008", ".nf"] + [esc(x) for x in f08_lines(f, dirs)] + [".fi"]
    elif f.f08_generic:
        # a large-count form: a specific of the generic MPI_X (or of its own name)
        lines += [".SS Fortran 2008", ".nf"] + [esc(x) for x in f08_lines(f, dirs, f.f08_generic)] + [".fi"]
        if f.f08_generic == name:
            lines += ["Called by this name: no argument tells it from %s's specific." % esc(name[:-2])]
        else:
            lines += ["%s with INTEGER(KIND=MPI_COUNT_KIND) counts calls this form; mpif.h and "
                      "the mpi module have only the INTEGER one." % esc(name[:-2])]
    elif name in pending:
        lines += [".SS Fortran", "railmpi has no Fortran binding of this function yet."]
    elif name.endswith("_c"):
        lines += [".SS Fortran", "In Fortran the standard overloads %s with INTEGER(KIND=MPI_COUNT_KIND) "
                  "arguments; railmpi's mpi_f08 module does not have that form yet." % esc(name[:-2])]
    elif name.startswith("MPIX_"):
        lines += [".SS Fortran", "This extension has no Fortran binding."]
    else:
        lines += [".SS Fortran", "None: the standard defines this function for C only."]
    if rows:
        lines.append(".SH PARAMETERS")
        for n, d, text in rows:
            lines += [".TP", "\\fI%s\\fR (%s)" % (esc(n), d), inline(text)]
    lines += [".SH DESCRIPTION", inline(desc[name])]
    if "P" + name in pexports:
        lines += [".PP", inline("%s is the same function under its profiling name." % ("P" + name))]
    for para in notes.notes(name, fam):
        lines += [".PP", inline(para)]
    lines.append(".SH ERRORS")
    errs = notes.errors(f, fam, name in anytime, proc_ft)
    if name.startswith("MPI_T_"):
        lines.append(inline("Returns MPI_SUCCESS or one of these error codes (no error handler is called):"))
    elif name == "MPI_Abort":
        lines.append("The call does not return.")
    elif not errs and f.ret == "int" and not name.startswith("MPIX_Query"):
        lines.append(inline("Returns MPI_SUCCESS."))
    elif f.ret != "int" or name.startswith("MPIX_Query"):
        lines.append(inline("The function returns no error code."))
    else:
        lines.append(inline("Returns MPI_SUCCESS or, through the error handler that applies "
                            "(MPI_ERRORS_ARE_FATAL unless changed), one of these error classes:"))
    for e, text in errs:
        lines += [".TP", "\\fB%s\\fR" % e, inline(text)]
    refs = ["\\fB%s\\fR(3)" % s for s in seealso] + ["\\fB%s\\fR(1)" % s for s in notes.SEE_ALSO_TOOLS.get(fam, [])]
    if refs:
        lines += [".SH SEE ALSO", ",\n".join(refs)]
    return "\n".join(lines) + "\n"


def wrap_decl(decl, width=72):
    if len(decl) <= width:
        return [decl]
    head = decl[:decl.index("(") + 1]
    out, cur = [], head
    for i, (_, p) in enumerate(decl_params(decl)):
        piece = p + ("," if i < len(decl_params(decl)) - 1 else ");")
        if len(cur) + 1 + len(piece) > width and cur.strip():
            out.append(cur.rstrip())
            cur = " " * 4 + piece
        else:
            cur += ("" if cur.endswith("(") else " ") + piece
    out.append(cur)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--api", required=True)
    ap.add_argument("--desc", required=True)
    ap.add_argument("--params", required=True)
    ap.add_argument("--header", required=True)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--lib", required=True)
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--src", required=True, help="src/mpi: which calls work before MPI_Init")
    o = ap.parse_args()
    funcs = gen.parse_api(o.api)
    funcs += [f for f in parse_mpix() if f.name not in {g.name for g in funcs}]
    byname = {f.name: f for f in funcs}
    desc = read_table(o.desc, "function")
    exports, pexports = exported(o.lib, o.nm)
    # a large-count form (MPI_Send_c) is described by its int form
    for n in set(byname) | exports:
        if n.endswith("_c") and n not in desc and n[:-2] in desc:
            desc[n] = desc[n[:-2]].rstrip(".") + "; the large-count form, counts and displacements as MPI_Count."
    params = read_table(o.params, "parameter")
    decls = header_decls(o.header, o.cc)
    missing = sorted((exports | set(byname)) - set(desc))
    if missing:
        die("no description in tools/api/mpi_desc.txt for: " + " ".join(missing))
    # lines for functions not exported (yet) are allowed: a description may come first
    undescribed = sorted(exports - set(byname))
    if undescribed:
        die("exported but without argument kinds (mpi_api.txt or MPIX_API in gen_fn.py): " + " ".join(undescribed))
    # "?" lines: the standard has a Fortran binding that railmpi does not have yet
    pending = {m.group(1) for m in re.finditer(r"^\? (MPIX?_\w+)", open(o.api).read(), re.M)}
    anytime = set(notes.ANYTIME)
    for fn in os.listdir(o.src):
        if fn.endswith(".c"):
            anytime |= set(re.findall(r'MPI_BEGIN_ANYTIME\("(\w+)"\)', open(os.path.join(o.src, fn)).read()))
    proc_ft = re.search(r"#define MPIX_ERR_PROC_FAILED\b", open(o.header).read()) is not None
    os.makedirs(o.out, exist_ok=True)
    order = [f.name for f in funcs if f.name in exports]
    fams = {n: notes.family(n[:-2] if n.endswith("_c") and n[:-2] in byname else n) for n in order}
    for n in order:
        if n not in decls:
            die("%s is exported but include/mpi.h does not declare it" % n)
        same = [m for m in order if fams[m] == fams[n] and m != n]
        i = order.index(n)
        same.sort(key=lambda m: abs(order.index(m) - i))
        text = page(byname[n], decls[n], desc, params, fams[n], o.version, sorted(same[:10]), pending, anytime, proc_ft,
                    pexports)
        path = os.path.join(o.out, n + ".3")
        if not os.path.exists(path) or open(path).read() != text:
            open(path, "w").write(text)
    # pages of functions no longer exported go
    for old in os.listdir(o.out):
        if old.endswith(".3") and old[:-2] not in exports:
            os.remove(os.path.join(o.out, old))


if __name__ == "__main__":
    main()
