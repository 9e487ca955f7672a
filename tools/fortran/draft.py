#!/usr/bin/env python3
"""Draft description lines for tools/api/mpi_api.txt from include/mpi.h.

Usage: draft.py include/mpi.h [MPI_Name ...]
Prints one line per MPI_ function declared in the header (or only the named
ones), with argument kinds guessed from C types and names. The guess is a
start: read it against the standard's Fortran binding (intent of pointer
arguments, LOGICAL flags, sentinels) before adding it to the description.
"""
import re
import sys

HANDLES = ["Comm", "Datatype", "Group", "Op", "Errhandler", "Request",
           "Message", "Info", "Win", "File"]


def prototypes(text):
    body = text.split("BEGIN FUNCTION DECLARATIONS", 1)[1].split("END FUNCTION DECLARATIONS", 1)[0]
    body = re.sub(r"/\*.*?\*/", " ", body, flags=re.S)
    for m in re.finditer(r"([A-Za-z_][A-Za-z0-9_ *]*?)\b(MPI_[A-Za-z0-9_]+)\s*\(([^)]*)\)\s*;", body):
        yield m.group(1).strip(), m.group(2), [a.strip() for a in m.group(3).split(",") if a.strip() and a.strip() != "void"]


def split_arg(a):
    m = re.match(r"(.*?)([A-Za-z_][A-Za-z0-9_]*)\s*((\[[^\]]*\])*)$", a)
    ctype, name, arr = m.group(1).strip(), m.group(2), m.group(3)
    return ctype, name, arr


def guess(ctype, name, arr):
    const = ctype.startswith("const")
    t = ctype.replace("const", "").strip()
    ptr = t.count("*") + (1 if arr else 0)
    base = t.replace("*", "").strip()
    flagish = name in ("flag", "commute", "reorder", "high", "periods", "remain_dims", "weighted")
    if base == "void":
        return "choice_in" if const else "choice_out"
    if base == "char":
        if ptr >= 3:
            return "argvs_in/count"
        if ptr == 2:
            return "str_arr_in/count" if name.startswith("array_of") else "argv_in"
        return "str_in" if const else "str_out"
    if base == "MPI_Status":
        if name.startswith("array_of"):
            return "statuses_out"
        return "status_in" if const else "status_out"
    for h in HANDLES:
        if base == "MPI_" + h:
            if ptr == 0:
                return "h." + h.lower()
            if arr or name.startswith("array_of"):
                return "h.%s_arr_%s" % (h.lower(), "in" if const else "inout")
            return "h.%s_out" % h.lower()
    for a in ("Aint", "Offset", "Count"):
        if base == "MPI_" + a:
            k = a.lower()
            if ptr == 0:
                return k
            return k + ("_arr_in" if (arr or name.startswith("array_of")) and const else
                        "_arr_out" if arr or name.startswith("array_of") else "_out")
    if base == "int":
        if "[3]" in arr:
            return "ranges"
        if ptr == 0:
            return "logical" if flagish else "int"
        if "errcodes" in name:
            return "errcodes_out"
        if arr or name.startswith("array_of") or name in ("ranks", "dims", "coords", "sources", "destinations", "degrees", "index", "edges", "neighbors", "indices"):
            if flagish:
                return "logical_arr_in" if const else "logical_arr_out"
            return "int_arr_in" if const else "int_arr_out"
        return "logical_out" if flagish else "int_out"
    if base.endswith("_function") or base.endswith("_fn"):
        return "fn:" + base
    return "UNKNOWN:" + ctype


def main():
    text = open(sys.argv[1]).read()
    want = set(sys.argv[2:])
    for ret, name, args in prototypes(text):
        if want and name not in want:
            continue
        parts = []
        for a in args:
            if a == "...":
                parts.append("...")
                continue
            ctype, an, arr = split_arg(a)
            parts.append("%s:%s" % (an, guess(ctype, an, arr)))
        line = "%s(%s)" % (name, ", ".join(parts))
        if ret != "int":
            line += " -> " + {"double": "double", "MPI_Aint": "aint"}.get(ret, "nofortran")
        if name.startswith("MPI_T_") or ret not in ("int", "double", "MPI_Aint") or name in ("MPI_Status_c2f", "MPI_Status_f2c"):
            line = "! " + line
        print(line)


if __name__ == "__main__":
    main()
