#!/usr/bin/env python3
"""railmpi's standard-ABI header (include/abi/mpi.h, generated into the build tree) against the MPI Forum's
reference header: every constant, predefined handle, pointer constant, type
size and MPI_Status field offset has the same value with both (a C program
prints them, compiled once with each header); every function of the reference
is declared by ours with a compatible prototype, unless it is in
tests/unit/abi_std_pending.txt; and libmpi_abi.so defines exactly what our
header declares.
   abi_std_constants.py OUR_INCLUDE_DIR REFERENCE_DIR LIBMPI_ABI
Exits 77 (skipped) when the reference header is not there."""
import os
import re
import subprocess
import sys
import tempfile

ours_dir, ref_dir, lib = sys.argv[1:4]
ref_h = os.path.join(ref_dir, 'mpi.h')
ours_h = os.path.join(ours_dir, 'abi', 'mpi.h')
if not os.path.exists(ref_h):
    print('SKIP: no reference header at %s (the MPI Forum\'s ABI header is expected at '
          '../shared/abi-reference beside the source tree)' % ref_h)
    sys.exit(77)
here = os.path.dirname(os.path.abspath(__file__))
pending = set(l.split('#')[0].strip() for l in open(os.path.join(here, 'abi_std_pending.txt'))) - {''}
# railmpi reports the MPI version it implements, not the one the ABI chapter came with
DIFFER = {'MPI_VERSION', 'MPI_SUBVERSION'}

ref = open(ref_h).read()
ours = open(ours_h).read()
decls, funcs = ref.split('/* MPI functions */')
consts = []   # (name, how to print)
for m in re.finditer(r'^#define\s+(MPI\w+)\s+(\S.*?)\s*(/\*.*)?$', decls, re.M):
    name, val = m.group(1), m.group(2)
    if name in ('MPI_H_ABI',) or re.match(r'MPI_ABI_(Aint|Offset|Count|Fint)$', name):
        continue
    consts.append((name, 'ptr' if val.startswith('((') else 'int'))
for body in re.findall(r'enum\s*\w*\s*\{(.*?)\}', decls, re.S):
    body = re.sub(r'/\*.*?\*/', '', body, flags=re.S)
    consts += [(i.split('=')[0].strip(), 'int') for i in body.split(',') if i.strip()]
ref_funcs = sorted(set(re.findall(r'\b(P?MPI_\w+)\s*\(', funcs)))

fail = 0
# what our header defines: macros, enumerators, functions
ours_names = set(re.findall(r'#define\s+(\w+)', ours))
ours_names |= set(re.findall(r'\b(MPIX?_\w+)\s*[=,]', ours))
ours_names |= set(re.findall(r'\b(P?MPI_\w+)\s*\(', ours))


def defined_in_ours(name):
    return name in ours_names

missing = [n for n, _ in consts if not defined_in_ours(n) and n not in pending]
missing += [f for f in ref_funcs if not defined_in_ours(f) and f not in pending and f.lstrip('P') not in pending]
if missing:
    print('FAIL: in the reference header, not in include/abi/mpi.h nor pending (%d):' % len(missing))
    for n in missing:
        print('  ' + n)
    fail = 1
stale = sorted(n for n in pending if defined_in_ours(n))
if stale:
    print('FAIL: pending but present now (remove from abi_std_pending.txt): ' + ' '.join(stale))
    fail = 1

present = [(n, k) for n, k in consts if defined_in_ours(n)]
prog = ['#include <mpi.h>', '#include <stdio.h>', '#include <stddef.h>', '#include <stdint.h>',
        'int main(void)', '{']
for n, k in present:
    if k == 'ptr':
        prog.append('    printf("%%s %%#llx\\n", "%s", (unsigned long long)(uintptr_t)%s);' % (n, n))
    else:
        prog.append('    printf("%%s %%lld\\n", "%s", (long long)(%s));' % (n, n))
for t in ['MPI_Aint', 'MPI_Offset', 'MPI_Count', 'MPI_Fint', 'MPI_Status', 'MPI_Comm', 'MPI_Datatype',
          'MPI_Request', 'MPI_File', 'MPI_F08_status']:
    prog.append('    printf("sizeof(%s) %%zu\\n", sizeof(%s));' % (t, t))
for f in ['MPI_SOURCE', 'MPI_TAG', 'MPI_ERROR', 'MPI_internal']:
    prog.append('    printf("offsetof(MPI_Status, %s) %%zu\\n", offsetof(MPI_Status, %s));' % (f, f))
prog.append('    printf("signed(MPI_Aint) %d\\n", (MPI_Aint)-1 < 0);')
prog += ['    return 0;', '}']

with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(tmp, 'c.c')
    open(src, 'w').write('\n'.join(prog) + '\n')
    outs = {}
    for label, inc in (('ours', os.path.join(ours_dir, 'abi')), ('reference', ref_dir)):
        exe = os.path.join(tmp, label)
        r = subprocess.run(['cc', '-w', '-I' + inc, '-o', exe, src], capture_output=True, text=True)
        if r.returncode:
            print('FAIL: the printing program does not compile with the %s header:\n%s' % (label, r.stderr[:3000]))
            sys.exit(1)
        outs[label] = dict(l.rsplit(' ', 1) for l in subprocess.run([exe], capture_output=True, text=True,
                                                                     check=True).stdout.splitlines())
    diff = [(n, outs['ours'][n], outs['reference'][n]) for n in outs['reference']
            if outs['ours'][n] != outs['reference'][n] and n not in DIFFER]
    if diff:
        print('FAIL: values that differ (name, ours, reference):')
        for d in diff:
            print('  %s %s %s' % d)
        fail = 1
    print('compared %d values' % len(outs['reference']))

    # the reference's prototypes of the functions we declare must agree with ours
    protos = [l for l in funcs.splitlines()
              if re.match(r'^\w[\w\s\*]*\b(P?MPI_\w+)\s*\(', l)
              and re.search(r'\b(P?MPI_\w+)\s*\(', l).group(1) in ours]
    src = os.path.join(tmp, 'p.c')
    open(src, 'w').write('#include <mpi.h>\n' + '\n'.join(protos) + '\n')
    r = subprocess.run(['cc', '-fsyntax-only', '-I' + os.path.join(ours_dir, 'abi'), src],
                       capture_output=True, text=True)
    if r.returncode:
        print('FAIL: prototypes that disagree with the reference:\n' + r.stderr[:4000])
        fail = 1
    print('compared %d prototypes' % len(protos))

# libmpi_abi.so defines exactly what include/abi/mpi.h declares
declared = set(re.findall(r'^[A-Za-z][\w \*]*?\b(P?MPI_\w+)\(', ours, re.M))
nm = subprocess.run(['nm', '-D', '--defined-only', lib], capture_output=True, text=True, check=True).stdout
defined = set(l.split()[2] for l in nm.splitlines() if l.split()[1] in 'TWi')
if declared != defined:
    print('FAIL: declared, not defined: %s' % ' '.join(sorted(declared - defined)[:40]))
    print('FAIL: defined, not declared: %s' % ' '.join(sorted(defined - declared)[:40]))
    fail = 1
print('FAIL' if fail else 'PASS')
sys.exit(fail)
