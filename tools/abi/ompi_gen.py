#!/usr/bin/env python3
"""Open MPI's ABI face of railmpi (docs/abi.md, "Open MPI's ABI").

The same translation layer as the standard ABI's (tools/abi/gen.py and
tools/abi/abi_kinds.py write it from tools/api/mpi_api.txt), with Open MPI
4.1's handles, values and status: programs built with Open MPI's mpicc run on
railmpi's engine through libmpi.so.40. This writes

  --c FILE        the wrappers: per function of Open MPI's libmpi.so.40 that
                  railmpi has, MPI_X/PMPI_X over the engine's RMI_PMPI_X;
  --tables FILE   the conversions of handles, constants and statuses
                  (included as abi_tables.h by the wrappers and by
                  src/abi/ompi_callbacks.c);
  --objects FILE  Open MPI's predefined objects (ompi_mpi_comm_world, ...),
                  each with Open MPI's size and the engine's handle inside;
  --rename/--unrename FILE   the engine's declarations under RMI_ names;
  --map FILE      the version script of libmpi.so.40;
  --list          what is covered and what is left out, with the reason.

Inputs: tools/abi/ompi_constants.txt (Open MPI's values, groups as in
abi_constants.txt), tools/abi/ompi_objects.txt (its predefined objects),
tools/abi/ompi_functions.txt (the functions its libmpi.so.40 exports).
"""
import argparse
import re
from gen import read_api, read_protos, read_mpich_values, read_table
from abi_kinds import Gen, HAND, HANDLE_TYPES, CALLBACK_KINDS, IDUP

# the class's null object: what an engine handle that has no Open MPI
# counterpart becomes
NULL_OBJ = {'Comm': 'ompi_mpi_comm_null', 'Datatype': 'ompi_mpi_datatype_null',
            'Group': 'ompi_mpi_group_null', 'Op': 'ompi_mpi_op_null',
            'Errhandler': 'ompi_mpi_errhandler_null', 'Request': 'ompi_request_null',
            'Message': 'ompi_message_null', 'Info': 'ompi_mpi_info_null', 'Win': 'ompi_mpi_win_null'}

# data Open MPI's header refers to beside the predefined objects: the
# engine's (src/mpi/init.c)
EXTRA_DATA = ['MPI_F_STATUS_IGNORE', 'MPI_F_STATUSES_IGNORE']
# the objects Open MPI's mpif.h and modules name in common blocks for its
# sentinels (src/abi/ompi_fhandle.c); a program's own copy takes their place
FORTRAN_SENTINELS = ['mpi_fortran_%s_' % n for n in ('bottom', 'in_place', 'argv_null', 'argvs_null',
                                                    'errcodes_ignore', 'status_ignore',
                                                    'statuses_ignore', 'unweighted', 'weights_empty')]
# the predefined attribute procedures of Open MPI's mpif.h, Fortran procedures
# under its manglings (src/abi/ompi_fpredef.c)
FORTRAN_PREDEF = [n % m for p in ('comm_', 'type_', 'win_', '')
                  for f in ('null_copy_fn', 'dup_fn', 'null_delete_fn')
                  for m in ('mpi_' + p + f,) for n in ('%s', '%s_', '%s__')] + [
    ('MPI_' + p + f).upper() for p in ('comm_', 'type_', 'win_', '')
    for f in ('null_copy_fn', 'dup_fn', 'null_delete_fn')] + [
    'mpi_conversion_fn_null', 'mpi_conversion_fn_null_', 'mpi_conversion_fn_null__', 'MPI_CONVERSION_FN_NULL']
# the classes of Fortran integers (MPI_<T>_c2f/_f2c), in src/abi/ompi_conv.h's order
F_CLASSES = ['Comm', 'Datatype', 'Group', 'Op', 'Errhandler', 'Request', 'Message', 'Info', 'Win',
             'File']
# strings the engine writes up to its own (MPICH's) limit, which is longer
# than the buffer Open MPI's limit lets a program give: written into the
# engine's size first, then cut to Open MPI's (function: limit, length argument)
STR_LIMITS = {'MPI_Get_library_version': ('MPI_MAX_LIBRARY_VERSION_STRING', 'resultlen'),
              'MPI_Error_string': ('MPI_MAX_ERROR_STRING', 'resultlen'),
              'MPI_Comm_get_name': ('MPI_MAX_OBJECT_NAME', 'resultlen'),
              'MPI_Type_get_name': ('MPI_MAX_OBJECT_NAME', 'resultlen'),
              'MPI_Win_get_name': ('MPI_MAX_OBJECT_NAME', 'resultlen'),
              'MPI_Info_get_nthkey': ('MPI_MAX_INFO_KEY', None)}
# Open MPI's functions written by hand in src/abi/ompi_*.c (beside those of
# abi_callbacks.c, compiled again for this ABI)
OMPI_HAND = ['MPI_Errhandler_create', 'MPI_Status_c2f', 'MPI_Status_f2c', 'MPI_Comm_split_type'] + [
    'MPI_T_' + n for n in ('enum_get_info', 'enum_get_item', 'cvar_get_info', 'cvar_handle_alloc',
                           'cvar_handle_free', 'cvar_read', 'cvar_write', 'pvar_get_info',
                           'pvar_session_create', 'pvar_session_free', 'pvar_handle_alloc',
                           'pvar_handle_free', 'pvar_start', 'pvar_stop', 'pvar_read', 'pvar_write',
                           'pvar_reset', 'pvar_readreset')]

# Open MPI's MPI_*_NULL_COPY_FN, _NULL_DELETE_FN and _DUP_FN are functions
# (src/abi/ompi_conv.c)
PREDEF_FN = ['OMPI_C_MPI_%s%s' % (o, f) for o in ('', 'COMM_', 'TYPE_', 'WIN_')
             for f in ('NULL_COPY_FN', 'NULL_DELETE_FN', 'DUP_FN')]
# what each of these gives on success is a request it created (a handle of
# the engine's direct or indirect kind), never MPI_REQUEST_NULL
CREATE_REQUEST = {'MPI_Isend', 'MPI_Ibsend', 'MPI_Issend', 'MPI_Irsend', 'MPI_Irecv'}
# what the inline code of Open MPI's C++ header calls in libmpi.so.40
# (src/abi/ompi_callbacks.c)
CXX_FN = ['ompi_op_set_cxx_callback']
# Open MPI's extensions beside its persistent collectives (src/abi/ompi_conv.c,
# src/abi/ompi_affinity.c), and the Fortran procedures its libmpi.so.40 holds
EXT_FN = ['MPIX_Query_cuda_support', 'OMPI_Affinity_str'] + [n for f in ('wtime', 'wtick', 'aint_add', 'aint_diff')
                                        for n in ('MPI_%s_F90' % f.upper(), 'mpi_%s_f90' % f,
                                                  'mpi_%s_f90_' % f, 'mpi_%s_f90__' % f)]


def read_fortran(path):
    """MPI name -> Open MPI's Fortran integer (tools/abi/ompi_fortran.txt)"""
    out = {}
    for line in open(path):
        if line.startswith('#') or not line.strip():
            continue
        name, v = line.split()
        out[name] = int(v)
    return out


def read_objects(path):
    objs = []
    for line in open(path):
        if line.startswith('#') or not line.strip():
            continue
        cls, name, sym, size = line.split()
        objs.append((cls, name, sym, int(size)))
    return objs


class OmpiGen(Gen):
    conv_header = 'ompi_conv.h'
    toint = []   # MPI_<Type>_toint/_fromint are the standard ABI's only

    def __init__(self, funcs, protos, mvals, mnames, rows, objs, ompi_funcs, fints):
        self.objs, self.ompi_funcs, self.fints = objs, ompi_funcs, fints
        super().__init__(funcs, protos, mvals, mnames, rows)

    def why_not(self, f):
        kinds = [k.split('/')[0] for _, k in f['args']]
        if f['name'] not in self.ompi_funcs and self.mpix_name(f['name']) not in self.ompi_funcs:
            return 'not in Open MPI 4.1'
        if f['name'] in HAND or f['name'] in OMPI_HAND:
            return 'written by hand'
        if f['name'] not in self.protos:
            return 'not in include/mpi.h'
        if any(k.split(':')[0] in CALLBACK_KINDS for k in kinds) or f['hand']:
            return 'takes a procedure'
        if f['ret'] == 'nofortran':
            return 'handle conversion, written by hand'
        if 'c_only' in kinds:
            return 'MPI_T or Fortran conversion'
        return None

    @staticmethod
    def mpix_name(name):
        """Open MPI 4.1's name of an MPI-4.0 function it has as an extension
        (its persistent collectives: MPIX_Allreduce_init, ...), else None"""
        return 'MPIX_' + name[4:] if name.endswith('_init') and name.startswith('MPI_') else None

    def exported_name(self, name):
        return name if name in self.ompi_funcs else self.mpix_name(name)

    def wrapper(self, f):
        # a function Open MPI 4.1 has under its MPIX_ name only is exported so
        # (MPIX_Allreduce_init, PMPIX_Allreduce_init: its mpi-ext.h); the
        # engine's binding keeps its name
        text = super().wrapper(f)
        name = f['name']
        if name in self.ompi_funcs:
            return text
        x = self.mpix_name(name)
        text = re.sub(r'\bPMPI_%s\b' % name[4:], 'P' + x, text)
        return text.replace('#pragma weak %s = ' % name, '#pragma weak %s = ' % x)

    def c2f_names(self):
        return [n for n in super().c2f_names() if n in self.ompi_funcs]

    def exported(self):
        names = sorted(set([n for n in HAND if n in self.ompi_funcs] + OMPI_HAND + self.c2f_names()
                           + [self.exported_name(f['name']) for f in self.covered]))
        syms = sorted(set(s for _, _, s, _ in self.objs))
        return names + ['P' + n for n in names] + syms + EXTRA_DATA + PREDEF_FN + CXX_FN + EXT_FN + FORTRAN_SENTINELS + FORTRAN_PREDEF + ['railmpi_ompi_f_pending']

    def c2f_function(self, name, T):
        """Open MPI's Fortran integers: a table for the predefined objects, an
        index for the others (src/abi/ompi_fhandle.c)"""
        cls = 'OMPI_F_' + T.upper()
        if name.endswith('_c2f'):
            return 'MPI_Fint PMPI_%s(abi_%s h)\n{\n    return ompi_f_out(%s, h);\n}' % (name[4:], T, cls)
        return 'abi_%s PMPI_%s(MPI_Fint f)\n{\n    return (abi_%s)ompi_f_in(%s, f);\n}' % (T, name[4:], T, cls)

    def fortran_int(self, name, sym):
        """an object's Fortran integer, -1 when Open MPI's mpif.h names none"""
        if name == '-':
            name = 'MPI_' + sym[len('ompi_mpi_'):].upper()
        return self.fints.get(name, -1)

    def arg(self, fn, aname, kind, p, argmap, decl, pre, call, post):
        base = kind.split('/')[0]
        # Open MPI's window assertions share bits with its file modes
        if base == 'int' and aname == 'assert':
            call.append('assert_in(%s)' % p)
            return
        if base == 'str_out' and fn in STR_LIMITS:
            limit, lenarg = STR_LIMITS[fn]
            ours = dict(self.consts('max'))[limit]
            decl.append('char %s_b[%s + 1];' % (p, limit))
            call.append('%s ? %s_b : NULL' % (p, p))
            conv = 'abi_version_out' if fn == 'MPI_Get_library_version' else 'abi_str_out'
            post.append('if (%s && rc == MPI_SUCCESS) %s(%s, %s_b, %s, %s);'
                        % (p, conv, p, p, ours, argmap[lenarg] if lenarg else 'NULL'))
            return
        if base == 'status_out':
            # the engine's status beside the program's (the standard ABI's is
            # filled in place, Open MPI's is laid out otherwise); a call that
            # completes one request leaves MPI_ERROR as it was
            decl.append('MPI_Status %s_m;' % p)
            decl.append('%s_m.MPI_ERROR = ABI_ERROR_UNSET;' % p)
            call.append('%s ? &%s_m : MPI_STATUS_IGNORE' % (p, p))
            post.append('if (%s) abi_status_out(%s, &%s_m);' % (p, p, p))
            return
        if base == 'statuses_out':
            # the engine writes its statuses into an array of its own whose
            # MPI_ERROR fields start unset, so that a call that sets none
            # (MPI_Waitall without an error) leaves the program's as they were
            n = argmap.get('count') or argmap.get('incount')
            done = n
            if 'outcount' in argmap:
                done = ('(rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && %s ? *%s : 0'
                        % (argmap['outcount'], argmap['outcount']))
            decl.append('MPI_Status %s_s[ABI_STACK], *%s_m = abi_statuses_room(%s_s, %s, %s);'
                        % (p, p, p, p, n))
            call.append('%s_m' % p)
            post.insert(0, 'if (%s) abi_statuses_conv(%s, %s_m, %s, %s_s);' % (p, p, p, done, p))
            return
        super().arg(fn, aname, kind, p, argmap, decl, pre, call, post)

    # The fast paths (tools/abi/abi_kinds.py, Gen.fast_path) with Open MPI's
    # handles: a created request is the engine's handle zero-extended, so the
    # engine writes it into the low half of the caller's slot; a predefined
    # one (&ompi_request_null) or any the engine's kind does not mark as
    # created takes the general path. Open MPI's status is laid out
    # otherwise than the engine's: the engine fills one on the stack.
    fast_table = False
    fast_split_status = True

    def fast_request_out(self, fn, p):
        # The engine writes its handle into the low half of the caller's slot
        # and nothing when it fails (a NULL slot is its error); on success
        # the high half is zeroed. What these functions give on success is
        # a request they created (src/mpi/p2p_api.c), which the engine's kind
        # marks; any other function's is checked.
        if fn in CREATE_REQUEST:
            done = ''
        else:
            done = (' if (__builtin_expect(!((unsigned)*(int *)(void *)%s >> 31), 0)) '
                    '*%s = h_out_Request(*(int *)(void *)%s);' % (p, p, p))
        return (None, None, '(int *)(void *)%s' % p,
                'if (__builtin_expect(rc == MPI_SUCCESS, 1)) { ((int *)(void *)%s)[1] = 0;%s }' % (p, done))

    def fast_request_inout(self, p):
        # a completed request is MPI_REQUEST_NULL, most often: no lookup
        return ('%s == NULL || (uintptr_t)*%s >> 31 != 1' % (p, p), '(int *)(void *)%s' % p,
                'if (*(int *)(void *)%s == MPI_REQUEST_NULL) *%s = (abi_Request)(void *)&ompi_request_null; '
                'else if (__builtin_expect(!((unsigned)*(int *)(void *)%s >> 31), 0)) '
                '*%s = h_out_Request(*(int *)(void *)%s);' % (p, p, p, p, p))

    def fast_status(self, p):
        return (['MPI_Status %s_m;' % p, '%s_m.MPI_ERROR = ABI_ERROR_UNSET;' % p], '&%s_m' % p,
                'abi_status_done(%s, &%s_m);' % (p, p))

    def handle_arg(self, fn, h, p, argmap, decl, pre, call, post):
        cls, _, mode = h.partition('_')
        if mode == 'inout' and cls != 'file':
            # a local engine handle (the standard ABI's requests are written
            # in place, which needs its handles' values)
            T = cls[0].upper() + cls[1:]
            decl.append('int %s_m = %s ? h_in(*%s) : 0, %s_0 = %s_m;' % (p, p, p, p, p))
            call.append('%s ? &%s_m : NULL' % (p, p))
            post.append('if (%s && %s_m != %s_0) *%s = h_out_%s(%s_m);' % (p, p, p, p, T, p))
            return
        if mode == 'out' and cls != 'file' and not (cls == 'comm' and fn in IDUP):
            # a failed call may still give a handle (MPI_COMM_NULL from a
            # failed MPI_Comm_dup): it is converted too
            T = cls[0].upper() + cls[1:]
            decl.append('int %s_m = 0;' % p)
            call.append('%s ? &%s_m : NULL' % (p, p))
            post.append('if (%s && (rc == MPI_SUCCESS || %s_m)) *%s = h_out_%s(%s_m);' % (p, p, p, T, p))
            return
        super().handle_arg(fn, h, p, argmap, decl, pre, call, post)

    def engine_value(self, cls, name):
        """the engine's handle for an object: its MPICH name's, else the class's null"""
        if name != '-' and name in self.mnames:
            return name
        nulls = {'Datatype': 'MPI_DATATYPE_NULL', 'Errhandler': 'MPI_ERRHANDLER_NULL'}
        return nulls.get(cls, 'MPI_%s_NULL' % cls.upper())

    # -------------------------------------------------------------- objects
    def sizes(self):
        return sorted(set(size for _, _, _, size in self.objs))

    def object_decls(self):
        o = []
        for size in self.sizes():
            o.append('struct ompi_obj_%d {\n    int h;\n    int f;\n    unsigned char pad[%d];\n} '
                     '__attribute__((aligned(8)));' % (size, size - 8))
        seen = set()
        for cls, name, sym, size in self.objs:
            if sym not in seen:
                seen.add(sym)
                o.append('extern struct ompi_obj_%d %s;' % (size, sym))
        return o

    def objects(self):
        o = ['/* Generated by tools/abi/ompi_gen.py from tools/abi/ompi_objects.txt: Open',
             ' * MPI\'s predefined objects, each holding the engine\'s handle. Do not edit. */',
             '#include "ompi_conv.h"', '#include "abi_tables.h"', '']
        # a symbol can stand for several names (MPI_CXX_COMPLEX and
        # MPI_CXX_FLOAT_COMPLEX): the first the engine has gives its handle
        names, order = {}, []
        for cls, name, sym, size in self.objs:
            if sym not in names:
                order.append((cls, sym, size))
                names[sym] = []
            names[sym].append(name)
        fint = {}
        for cls, sym, size in order:
            f = max(self.fortran_int(n, sym) for n in names[sym])
            if f >= 0:
                fint.setdefault(cls, {})[f] = sym
            if cls == 'File':
                o.append('struct ompi_obj_%d %s = {.f = %d};' % (size, sym, f))
                continue
            have = [n for n in names[sym] if n in self.mnames] or names[sym]
            o.append('struct ompi_obj_%d %s = {.h = %s, .f = %d};'
                     % (size, sym, self.engine_value(cls, have[0]), f))
        # Fortran integer -> object, per class (MPI_<T>_f2c)
        o.append('')
        for cls in F_CLASSES:
            t = fint.get(cls, {})
            o.append('static void *const f_pre_%s[%d] = {' % (cls, max(t) + 1))
            o += ['    [%d] = &%s,' % (f, sym) for f, sym in sorted(t.items())]
            o.append('};')
        o.append('const struct ompi_f_pre ompi_f_pre[OMPI_F_NCLASS] = {')
        o += ['    [OMPI_F_%s] = {f_pre_%s, %d, &%s},' % (c.upper(), c, max(fint[c]) + 1,
                                                      NULL_OBJ.get(c, 'ompi_mpi_file_null'))
              for c in F_CLASSES]
        o.append('};')
        return '\n'.join(o) + '\n'

    # --------------------------------------------------------------- tables
    def mask(self, domain):
        m = 0
        for n, v in self.consts(domain):
            m |= int(v)
        return m

    def handle_tables(self):
        o = ['/* Generated by tools/abi/ompi_gen.py from tools/abi/ompi_objects.txt and',
             ' * tools/abi/ompi_constants.txt. Do not edit. */',
             '#ifndef RAILMPI_OMPI_TABLES_H', '#define RAILMPI_OMPI_TABLES_H']
        o += self.object_decls()
        for t in HANDLE_TYPES:
            if t == 'File':
                continue
            keys = {}
            for cls, name, sym, size in self.objs:
                if cls != t or name not in self.mvals:
                    continue
                h = self.mvals[name][1]
                key = ((h >> 30) & 3) << 8 | (h & 0xff)
                if key in keys and self.mvals[keys[key][0]][1] != h:
                    raise SystemExit('ompi: %s and %s share a key' % (name, keys[key][0]))
                keys.setdefault(key, (name, sym))
            o.append('static const int out_m_%s[0x400] = {' % t)
            o += ['    [%d] = %s,' % (key, n) for key, (n, s) in sorted(keys.items())]
            o.append('};')
            o.append('static void *const out_a_%s[0x400] = {' % t)
            o += ['    [%d] = &%s,' % (key, s) for key, (n, s) in sorted(keys.items())]
            o.append('};')
            # created objects have the engine's direct or indirect kind: when
            # no predefined handle of the class has, one test lets them through
            fast = ''
            if all(self.mvals[n][1] >> 31 == 0 for n, _ in keys.values()):
                fast = ('    if ((unsigned)h >> 31)\n'
                        '        return (abi_%s)(uintptr_t)(uint32_t)h;\n' % t)
            null = ('(abi_%s)(void *)&%s' % (t, NULL_OBJ[t])) if t in NULL_OBJ else \
                   '(abi_%s)(uintptr_t)(uint32_t)h' % t
            o.append('static inline abi_%s h_out_%s(int h)\n{\n' % (t, t) + fast +
                     '    unsigned key = ((unsigned)h >> 22 & 0x300) | ((unsigned)h & 0xff);\n'
                     '    if (out_m_%s[key] == h && out_a_%s[key])\n'
                     '        return (abi_%s)out_a_%s[key];\n'
                     '    if ((unsigned)h >> 31)\n'
                     '        return (abi_%s)(uintptr_t)(uint32_t)h;\n'
                     '    return %s;\n}' % (t, t, t, t, t, null))
        return '\n'.join(o) + '\n'

    def tables(self):
        # a bit Open MPI does not define must not vanish: it becomes one the
        # engine does not define either, which the engine rejects
        ct = self.const_tables()
        head = 'static inline int mode_in(int v)\n{\n    int r = 0;\n'
        if head not in ct:
            raise SystemExit('ompi: no mode_in in the standard ABI\'s tables')
        ct = ct.replace(head, head + '    if (v & ~%d)\n        r |= ABI_UNKNOWN_BIT;\n' % self.mask('mode'))
        o = [self.handle_tables(), ct]
        bits_in = '    if (v & ~%d)\n        r |= ABI_UNKNOWN_BIT;\n' % self.mask('assert')
        bits_in += ''.join('    if (v & %s) r |= %s;\n' % (v, n) for n, v in self.consts('assert'))
        bits_out = ''.join('    if (v & %s) r |= %s;\n' % (n, v) for n, v in self.consts('assert'))
        o.append('static inline int assert_in(int v)\n{\n    int r = 0;\n%s    return r;\n}\n' % bits_in)
        o.append('static inline int assert_out(int v)\n{\n    int r = 0;\n%s    return r;\n}\n' % bits_out)
        dflt = [v for n, v in self.consts('darg')][0]
        o.append('static inline int darg_in(int v) { return v == %s ? MPI_DISTRIBUTE_DFLT_DARG : v; }\n'
                 'static inline int darg_out(int v) { return v == MPI_DISTRIBUTE_DFLT_DARG ? %s : v; }\n'
                 % (dflt, dflt))
        # MPI_Comm_split_type (src/abi/ompi_conv.c) turns Open MPI's own split
        # types into hardware-guided splits; any other is an error
        cases = ''.join('    case %s: return %s;\n' % (v, n) for n, v in self.consts('split'))
        o.append('static inline int split_type_in(int v)\n{\n    switch (v) {\n%s'
                 '    case -32766: return MPI_UNDEFINED;\n    }\n    return ABI_BAD_CONSTANT;\n}\n' % cases)
        o.append(OMPI_STATUS_CONV)
        o.append('#endif\n')
        return ''.join(o)


OMPI_STATUS_CONV = r'''
/* Open MPI's status: MPI_SOURCE, MPI_TAG, MPI_ERROR, _cancelled, _ucount
 * (bytes); MPICH's keeps the byte count in its first word and the second's
 * upper 31 bits, the cancelled flag in the second's bit 0 */
static inline void abi_status_in(MPI_Status *m, const abi_Status *a)
{
    uint64_t n = (uint64_t)a->_ucount;
    m->count_lo = (int)(uint32_t)n;
    m->count_hi_and_cancelled = (int)(uint32_t)(((n >> 32) << 1) | (a->_cancelled ? 1u : 0u));
    m->MPI_SOURCE = rank_in(a->MPI_SOURCE);
    m->MPI_TAG = tag_in(a->MPI_TAG);
    m->MPI_ERROR = err_in(a->MPI_ERROR);
}
static inline void abi_status_out(abi_Status *a, const MPI_Status *m)
{
    uint32_t lo = (uint32_t)m->count_lo, hi = (uint32_t)m->count_hi_and_cancelled;
    int src = m->MPI_SOURCE, tag = m->MPI_TAG, err = m->MPI_ERROR;
    a->MPI_SOURCE = rank_out(src);
    a->MPI_TAG = tag_out(tag);
    if (err != ABI_ERROR_UNSET)
        a->MPI_ERROR = err_out(err);
    a->_cancelled = (int)(hi & 1);
    a->_ucount = (size_t)(((uint64_t)(hi >> 1) << 32) | lo);
}
/* abi_status_out for the fast paths: a status of a rank and a tag (no
 * constant to convert) and no error inline, anything else in a cold call */
static void __attribute__((noinline, cold, unused)) abi_status_done_slow(abi_Status *a, const MPI_Status *m)
{
    abi_status_out(a, m);
}
static inline void abi_status_done(abi_Status *a, const MPI_Status *m)
{
    int src = m->MPI_SOURCE, tag = m->MPI_TAG;
    if (__builtin_expect((src | tag) < 0 || m->MPI_ERROR != ABI_ERROR_UNSET, 0)) {
        abi_status_done_slow(a, m);
        return;
    }
    uint32_t lo = (uint32_t)m->count_lo, hi = (uint32_t)m->count_hi_and_cancelled;
    a->MPI_SOURCE = src;
    a->MPI_TAG = tag;
    if (__builtin_expect(hi == 0, 1)) {
        /* under 4 GiB, not cancelled */
        a->_cancelled = 0;
        a->_ucount = lo;
        return;
    }
    a->_cancelled = (int)(hi & 1);
    a->_ucount = (size_t)(((uint64_t)(hi >> 1) << 32) | lo);
}
/* the engine wrote n MPICH statuses (20 bytes) at the start of the caller's
 * array of Open MPI statuses (24 bytes): widen them in place, last first */
static inline void abi_statuses_out(abi_Status *a, int n)
{
    const MPI_Status *m = (const MPI_Status *)(void *)a;
    for (int i = n - 1; i >= 0; i--) {
        MPI_Status t = m[i];
        abi_status_out(&a[i], &t);
    }
}
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--api', required=True)
    ap.add_argument('--mpih', required=True)
    ap.add_argument('--table', required=True)
    ap.add_argument('--objects-table', required=True)
    ap.add_argument('--functions', required=True)
    ap.add_argument('--fortran-table', required=True)
    ap.add_argument('--c')
    ap.add_argument('--tables')
    ap.add_argument('--objects')
    ap.add_argument('--rename')
    ap.add_argument('--unrename')
    ap.add_argument('--map')
    ap.add_argument('--list', action='store_true')
    o = ap.parse_args()
    funcs = read_api(o.api)
    protos = read_protos(o.mpih)
    mvals, mnames = read_mpich_values(o.mpih)
    rows = read_table(o.table)
    objs = read_objects(o.objects_table)
    ompi_funcs = set(l.strip() for l in open(o.functions) if l.strip() and not l.startswith('#'))
    g = OmpiGen(funcs, protos, mvals, mnames, rows, objs, ompi_funcs, read_fortran(o.fortran_table))
    if o.c:
        open(o.c, 'w').write(g.bindings())
    if o.tables:
        open(o.tables, 'w').write(g.tables())
    if o.objects:
        open(o.objects, 'w').write(g.objects())
    if o.rename:
        open(o.rename, 'w').write(g.rename(False))
    if o.unrename:
        open(o.unrename, 'w').write(g.rename(True))
    if o.map:
        names = g.exported()
        open(o.map, 'w').write('{\n  global:\n' + ''.join('    %s;\n' % n for n in names)
                               + '  local:\n    *;\n};\n')
    if o.list:
        for name, why in g.left_out:
            if why != 'not in Open MPI 4.1':
                print('left out: %s (%s)' % (name, why))
        have = set(f['name'] for f in funcs)
        for name in sorted(ompi_funcs - have):
            print('not in railmpi: %s' % name)
        print('covered: %d functions' % len(g.covered))


if __name__ == '__main__':
    main()
