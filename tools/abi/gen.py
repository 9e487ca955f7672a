#!/usr/bin/env python3
"""The MPI-5.0 standard ABI face of railmpi (docs/abi.md).

From tools/api/mpi_api.txt (one line per C function, with argument kinds),
include/mpi.h (railmpi's MPICH-ABI header: prototypes and MPICH's values) and
tools/abi/abi_constants.txt (the standard ABI's values) this writes

  --header FILE   include/abi/mpi.h, the header programs built for the
                  standard ABI compile against;
  --c FILE        the translation layer of libmpi_abi.so: per function an
                  MPI_X/PMPI_X taking the ABI's handles, statuses and
                  constants, converting them and calling the engine's binding
                  (renamed RMI_PMPI_X in that library);
  --syms FILE     the objcopy --redefine-syms list that renames the engine's
                  bindings;
  --map FILE      the version script of libmpi_abi.so (only the ABI's names);
  --list          the functions covered and those left out, with the reason.
"""
import argparse
import re
import sys
from abi_kinds import Gen


def read_api(path):
    funcs = []
    for line in open(path):
        line = line.rstrip('\n')
        if not line.strip() or line.startswith('#'):
            continue
        mark = ''
        if line[:2] in ('! ', '? '):
            mark, line = line[0], line[2:]
        if line.startswith(('MPIX_', 'PMPIX_')):
            continue  # MPICH's extensions (ULFM, ...) are not part of the standard ABI
        m = re.match(r'(MPI_\w+)\((.*?)\)\s*(?:->\s*(\w+))?\s*(@hand)?\s*$', line)
        if not m:
            sys.exit('mpi_api.txt: cannot read: ' + line)
        args = []
        for a in filter(None, [x.strip() for x in m.group(2).split(',')]):
            name, kind = a.split(':', 1)
            args.append((name, kind))
        funcs.append({'name': m.group(1), 'args': args, 'ret': m.group(3),
                      'mark': mark, 'hand': bool(m.group(4))})
    return funcs


def read_protos(path):
    text = open(path).read()
    body = text.split('BEGIN FUNCTION DECLARATIONS', 1)[1].split('END FUNCTION DECLARATIONS', 1)[0]
    body = re.sub(r'/\*.*?\*/', ' ', body, flags=re.S)
    protos = {}
    for m in re.finditer(r'([A-Za-z_][\w \*]*?)\b(MPI_\w+)\s*\(([^;]*?)\)\s*;', body):
        ret = ' '.join(m.group(1).split())
        params = ' '.join(m.group(3).split())
        protos[m.group(2)] = (ret, params)
    return protos


def read_mpich_values(path):
    """MPICH's handle values by name, from railmpi's header."""
    text = open(path).read()
    vals = {}
    for m in re.finditer(r'#define\s+(MPI_\w+)\s+\(\((MPI_\w+)\)\s*(0x[0-9a-fA-F]+|0)\)', text):
        vals[m.group(1)] = (m.group(2), int(m.group(3), 16) if m.group(3) != '0' else 0)
    names = set(re.findall(r'#define\s+(MPI\w+)\b', text))
    return vals, names


def read_table(path):
    rows = []
    for line in open(path):
        if line.startswith('#') or not line.strip():
            continue
        kind, name, value = line.split(None, 2)
        rows.append((kind, name, value.strip()))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--api', required=True)
    ap.add_argument('--mpih', required=True)
    ap.add_argument('--table', required=True)
    ap.add_argument('--header')
    ap.add_argument('--c')
    ap.add_argument('--tables')
    ap.add_argument('--rename')
    ap.add_argument('--unrename')
    ap.add_argument('--syms')
    ap.add_argument('--map')
    ap.add_argument('--list', action='store_true')
    o = ap.parse_args()
    funcs = read_api(o.api)
    protos = read_protos(o.mpih)
    mvals, mnames = read_mpich_values(o.mpih)
    rows = read_table(o.table)
    g = Gen(funcs, protos, mvals, mnames, rows)
    if o.header:
        open(o.header, 'w').write(g.header())
    if o.c:
        open(o.c, 'w').write(g.bindings())
    if o.tables:
        open(o.tables, 'w').write(g.tables())
    if o.rename:
        open(o.rename, 'w').write(g.rename(False))
    if o.unrename:
        open(o.unrename, 'w').write(g.rename(True))
    if o.syms:
        out = []
        for f in funcs:
            for p in ('', 'P'):
                out.append('%s%s RMI_%s%s' % (p, f['name'], p, f['name']))
        open(o.syms, 'w').write('\n'.join(out) + '\n')
    if o.map:
        names = g.exported()
        open(o.map, 'w').write('{\n  global:\n' + ''.join('    %s;\n' % n for n in names)
                               + '  local:\n    *;\n};\n')
    if o.list:
        for name, why in g.left_out:
            print('left out: %s (%s)' % (name, why))
        print('covered: %d functions' % len(g.covered))


if __name__ == '__main__':
    main()
