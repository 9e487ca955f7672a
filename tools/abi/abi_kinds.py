"""How each argument kind of tools/api/mpi_api.txt crosses the standard ABI's
edge (tools/abi/gen.py): the header text and the per-function C wrappers."""
import re

HANDLE_TYPES = ['Comm', 'Datatype', 'Group', 'Op', 'Errhandler', 'Request',
                'Message', 'Info', 'Win', 'Session', 'File']

# kinds whose C argument is a procedure: the procedure must be called with the
# ABI's handles, which the next slice adds (docs/abi.md)
CALLBACK_KINDS = ('fn', 'copy_fn', 'delete_fn', 'grequest_fn', 'extra_state')

# MPI-1 functions MPI-3.0 removed: the standard ABI has no slot for them
REMOVED = {'MPI_Address', 'MPI_Errhandler_create', 'MPI_Errhandler_get', 'MPI_Errhandler_set',
           'MPI_Type_extent', 'MPI_Type_hindexed', 'MPI_Type_hvector', 'MPI_Type_lb',
           'MPI_Type_struct', 'MPI_Type_ub'}

# written by hand in src/abi/abi_conv.c and src/abi/abi_callbacks.c
HAND = {'MPI_Abi_get_version': 'int MPI_Abi_get_version(int *abi_major, int *abi_minor)',
        'MPI_Op_create': 'int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)',
        'MPI_Op_create_c': 'int MPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)'}
for _obj, _t in (('Comm', 'Comm'), ('Type', 'Type'), ('Win', 'Win')):
    HAND['MPI_%s_create_keyval' % _obj] = (
        'int MPI_%s_create_keyval(MPI_%s_copy_attr_function *%s_copy_attr_fn, '
        'MPI_%s_delete_attr_function *%s_delete_attr_fn, int *%s_keyval, void *extra_state)'
        % (_obj, _t, _obj.lower(), _t, _obj.lower(), _obj.lower()))
HAND['MPI_Grequest_start'] = ('int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, '
                              'MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn, '
                              'void *extra_state, MPI_Request *request)')
HAND['MPI_Register_datarep'] = (
    'int MPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn, '
    'MPI_Datarep_conversion_function *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, '
    'void *extra_state)')
HAND['MPI_Register_datarep_c'] = (
    'int MPI_Register_datarep_c(const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn, '
    'MPI_Datarep_conversion_function_c *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, '
    'void *extra_state)')
HAND['MPI_Keyval_create'] = ('int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, '
                             'int *keyval, void *extra_state)')
for _obj in ('Comm', 'Win', 'File', 'Session'):
    HAND['MPI_%s_create_errhandler' % _obj] = (
        'int MPI_%s_create_errhandler(MPI_%s_errhandler_function *%s_errhandler_fn, MPI_Errhandler *errhandler)'
        % (_obj, _obj, _obj.lower()))

# src/abi/abi_status.c: the ABI's C and Fortran statuses have one layout
HAND['MPI_Status_c2f'] = 'int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)'
HAND['MPI_Status_f2c'] = 'int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)'
HAND['MPI_Status_c2f08'] = 'int MPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)'
HAND['MPI_Status_f082c'] = 'int MPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)'
HAND['MPI_Status_f2f08'] = 'int MPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)'
HAND['MPI_Status_f082f'] = 'int MPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)'

# src/abi/abi_mpit.c: the event procedures get the ABI's callback safety
HAND['MPI_T_event_register_callback'] = (
    'int MPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, '
    'MPI_Info info, void *user_data, MPI_T_event_cb_function *event_cb_function)')
HAND['MPI_T_event_set_dropped_handler'] = (
    'int MPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration, '
    'MPI_T_event_dropped_cb_function *dropped_cb_function)')
HAND['MPI_T_event_handle_free'] = (
    'int MPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data, '
    'MPI_T_event_free_cb_function *free_cb_function)')

# prototypes in the standard ABI's header that differ from include/mpi.h
# (the standard's const where MPICH has none)
PROTO_ABI = {'MPI_Pready_list': 'int length, const int array_of_partitions[], MPI_Request request'}

# the ABI chapter's MPI_<Type>_toint/_fromint: handle <-> C int
TOINT = [('Comm', 'comm'), ('Errhandler', 'errhandler'), ('File', 'file'), ('Group', 'group'),
         ('Info', 'info'), ('Message', 'message'), ('Op', 'op'), ('Request', 'request'),
         ('Session', 'session'), ('Type', 'datatype'), ('Win', 'win')]


def toint_protos():
    for obj, arg in TOINT:
        t = 'Datatype' if obj == 'Type' else obj
        yield 'MPI_%s_toint' % obj, 'int', 'MPI_%s %s' % (t, arg)
        yield 'MPI_%s_fromint' % obj, 'MPI_%s' % t, 'int %s' % arg


# integer arguments that carry constants whose values differ between the ABIs,
# by argument name: the value domain (a group of tools/abi/abi_constants.txt)
INT_IN = {'dest': 'rank', 'source': 'rank', 'root': 'rank', 'target_rank': 'rank',
          'local_leader': 'rank', 'remote_leader': 'rank', 'rank': 'rank',
          'tag': 'tag', 'sendtag': 'tag', 'recvtag': 'tag', 'color': 'undefined',
          'split_type': 'split', 'required': 'thread', 'order': 'order',
          'typeclass': 'typeclass', 'lock_type': 'lock', 'assert': 'mode', 'amode': 'mode',
          'whence': 'seek', 'errorcode': 'err', 'errorclass': 'err', 'error': 'err',
          'var_class': 'pvarclass'}
INT_OUT = {'verbosity': 'verbosity', 'bind': 'bind', 'scope': 'scope', 'var_class': 'pvarclass',
           'rank': 'rank', 'newrank': 'rank', 'rank_source': 'rank', 'rank_dest': 'rank',
           'source': 'rank', 'tag': 'tag', 'result': 'compare', 'provided': 'thread',
           'combiner': 'combiner', 'status': 'topo', 'amode': 'mode', 'errorclass': 'err',
           'errorcode': 'err', 'error': 'err', 'count': 'undefined', 'outcount': 'undefined'}
ARR_IN = {'ranks1': ('rank', 'n'), 'array_of_distribs': ('distrib', 'ndims'),
          'array_of_dargs': ('darg', 'ndims')}
ARR_OUT = {'ranks2': ('rank', 'n')}
KEYVAL_NAMES = {'comm_keyval', 'type_keyval', 'win_keyval', 'keyval'}
# the domains translated in both directions; 'mode' is a bit set
DOMAINS = ['rank', 'tag', 'undefined', 'split', 'thread', 'order', 'typeclass', 'lock',
           'seek', 'compare', 'topo', 'combiner', 'distrib', 'flavor', 'model', 'keyval']
# arrays of handles whose length is not an argument: the communicator's
# neighbourhood (sources for the receive types, destinations for the send types)
NEIGHBOR_W = {'MPI_Neighbor_alltoallw', 'MPI_Ineighbor_alltoallw', 'MPI_Neighbor_alltoallw_init'}
ALLTOALLW = {'MPI_Alltoallw', 'MPI_Ialltoallw', 'MPI_Alltoallw_init'}
# their large-count forms take the same arrays of datatypes
NEIGHBOR_W |= {n + '_c' for n in NEIGHBOR_W}
ALLTOALLW |= {n + '_c' for n in ALLTOALLW}


# the engine writes their new communicator when the request completes
IDUP = {'MPI_Comm_idup', 'MPI_Comm_idup_with_info'}

# MPI_T's own handles are pointers in both ABIs, with NULL 0 in both: they
# pass as they are, except MPI_T_PVAR_ALL_HANDLES (1 in the ABI); the enums
# of callback safety and source order are translated. By C parameter type;
# None: the parameter passes unchanged.
MPIT_CTYPES = {'MPI_T_enum': None, 'MPI_T_enum *': None,
               'MPI_T_cvar_handle': None, 'MPI_T_cvar_handle *': None,
               'MPI_T_pvar_session': None, 'MPI_T_pvar_session *': None,
               'MPI_T_pvar_handle': 'pvar_handle_in(%s)', 'MPI_T_pvar_handle *': None,
               'MPI_T_event_registration': None, 'MPI_T_event_registration *': None,
               'MPI_T_event_instance': None,
               'MPI_T_cb_safety': '(MPI_T_cb_safety)cbsafety_in((int)%s)',
               'MPI_T_source_order *': 'out:srcorder'}
# MPI_T's integer constants, one domain per prefix of abi_constants.txt's
# int.mpit rows (the enums' members are no #define of include/mpi.h)
MPIT_DOMAINS = [('verbosity', 'MPI_T_VERBOSITY_'), ('bind', 'MPI_T_BIND_'), ('scope', 'MPI_T_SCOPE_'),
                ('pvarclass', 'MPI_T_PVAR_CLASS_'), ('cbsafety', 'MPI_T_CB_REQUIRE_'),
                ('srcorder', 'MPI_T_SOURCE_')]
MPIT_ENUMS = ('MPI_T_CB_REQUIRE_', 'MPI_T_SOURCE_')


def param_type(p):
    """a C parameter's type without its name: 'MPI_T_enum *enumtype' -> 'MPI_T_enum *'"""
    m = re.match(r'(.*?)(\w+)\s*(\[[^]]*\])*$', p.strip())
    t = ' '.join(m.group(1).split()) if m else p
    return t.replace('const ', '')


def split_params(params):
    out, depth, cur = [], 0, ''
    for ch in params:
        if ch == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
            continue
        depth += ch == '('
        depth -= ch == ')'
        cur += ch
    if cur.strip() and cur.strip() != 'void':
        out.append(cur.strip())
    return out


def abi_types(text):
    for t in HANDLE_TYPES:
        text = re.sub(r'\bMPI_%s\b' % t, 'abi_%s' % t, text)
    return re.sub(r'\bMPI_Status\b', 'abi_Status', text)


class Gen:
    # what another ABI's generator (tools/abi/ompi_gen.py) changes
    conv_header = 'abi_conv.h'
    toint = TOINT

    def __init__(self, funcs, protos, mvals, mnames, rows):
        self.funcs, self.protos, self.mvals, self.mnames, self.rows = funcs, protos, mvals, mnames, rows
        self.covered, self.left_out = [], []
        for f in funcs:
            why = self.why_not(f)
            if why:
                self.left_out.append((f['name'], why))
            else:
                self.covered.append(f)

    def why_not(self, f):
        kinds = [k.split('/')[0] for _, k in f['args']]
        if f['name'] in HAND:
            return 'written by hand'
        if f['name'] in REMOVED:
            return 'removed in MPI-3.0'
        if f['name'] not in self.protos:
            return 'not in include/mpi.h'
        if any(k.split(':')[0] in CALLBACK_KINDS for k in kinds) or f['hand']:
            return 'takes a procedure'
        if f['ret'] == 'nofortran':
            return 'handle conversion, written by hand'
        if any(k.split('_')[0] in ('fstatus', 'f08status') for k in kinds):
            return 'Fortran conversion'
        if 'c_only' in kinds:
            if not f['name'].startswith('MPI_T_'):
                return 'Fortran conversion'
            plist = split_params(self.protos[f['name']][1])
            for (a, k), p in zip(f['args'], plist):
                if k == 'c_only' and param_type(p) not in MPIT_CTYPES:
                    return 'MPI_T procedure argument'
        return None

    # ------------------------------------------------------------------ header
    def header(self):
        r = self.rows
        o = ['/* The MPI-5.0 standard ABI (the ABI chapter): railmpi\'s header for',
             ' * programs built with `mpicc -abi`, which link libmpi_abi.so.0.',
             ' * Generated by tools/abi/gen.py from tools/abi/abi_constants.txt and the',
             ' * prototypes of include/mpi.h; do not edit. */',
             '#ifndef RAILMPI_ABI_MPI_H', '#define RAILMPI_ABI_MPI_H', '',
             '#include <stdint.h>', '', '#ifdef __cplusplus', 'extern "C" {', '#endif', '']
        ver = dict((n, v) for k, n, v in r if k == 'int.version')
        # the MPI version is the one railmpi implements and MPI_Get_version reports
        o += ['#define MPI_VERSION        4', '#define MPI_SUBVERSION     1',
              '#define MPI_ABI_VERSION    %s' % ver['MPI_ABI_VERSION'],
              '#define MPI_ABI_SUBVERSION %s' % ver['MPI_ABI_SUBVERSION'], '',
              'typedef intptr_t MPI_Aint;', 'typedef int64_t  MPI_Offset;',
              'typedef MPI_Offset MPI_Count;', 'typedef int      MPI_Fint;', '',
              'typedef struct MPI_Status {', '    int MPI_SOURCE;', '    int MPI_TAG;',
              '    int MPI_ERROR;', '    int MPI_internal[5];', '} MPI_Status;', '']
        for t in HANDLE_TYPES:
            o.append('typedef struct MPI_ABI_%s *MPI_%s;' % (t, t))
        o.append('')
        for k, n, v in r:
            if k.startswith('handle.'):
                o.append('#define %-30s ((MPI_%s)%s)' % (n, k[7:], v))
        o.append('')
        ints = [(k, n, v) for k, n, v in r if k.startswith('int.') and k not in ('int.version', 'int.mpit')]
        o.append('enum {')
        o.append(',\n'.join('    %-34s = %s' % (n, v) for k, n, v in ints if k != 'int.size'))
        o.append('};')
        o += ['#define %-32s %s' % (n, v) for k, n, v in ints if k == 'int.size']
        o.append('')
        o += ['typedef struct {', '    MPI_Fint MPI_SOURCE;', '    MPI_Fint MPI_TAG;',
              '    MPI_Fint MPI_ERROR;', '    MPI_Fint MPI_internal[5];', '} MPI_F08_status;', '']
        o += CALLBACK_TYPEDEFS.strip('\n').split('\n') + ['']
        for k, n, v in r:
            if k.startswith('ptr.') and not k.startswith('ptr.MPI_T_'):
                o.append('#define %-28s ((%s)%s)' % (n, k[4:], v))
            elif k == 'alias':
                o.append('#define %-28s %s' % (n, v))
        o.append('')
        o += MPIT_TYPES.strip('\n').split('\n') + ['']
        for k, n, v in r:
            if k.startswith('ptr.MPI_T_'):
                o.append('#define %-28s ((%s)%s)' % (n, k[4:], v))
            elif k == 'int.mpit' and not n.startswith(('MPI_T_CB_', 'MPI_T_SOURCE_')):
                o.append('#define %-34s %s' % (n, v))
        o.append('')
        for prefix in ('', 'P'):
            for name, proto in sorted(HAND.items()):
                o.append(proto.replace(' MPI_', ' %sMPI_' % prefix, 1) + ';')
            for name in sorted(self.c2f_names()):
                ret, params = self.protos[name]
                o.append('%s %s%s(%s);' % (ret, prefix, name, params))
            for name, ret, params in toint_protos():
                o.append('%s %s%s(%s);' % (ret, prefix, name, params))
            for f in self.covered:
                ret, params = self.protos[f['name']]
                params = PROTO_ABI.get(f['name'], params)
                o.append('%s %s%s(%s);' % (ret, prefix, f['name'], params))
        o += ['', '#ifdef __cplusplus', '}', '#endif', '#endif /* RAILMPI_ABI_MPI_H */', '']
        return '\n'.join(o)

    def c2f_names(self):
        return [f['name'] for f in self.funcs if f['ret'] == 'nofortran' and f['name'] in self.protos]

    def c2f_function(self, name, T):
        """MPI_<T>_c2f or _f2c: the engine's Fortran integers"""
        cin = 'f_in' if T == 'File' else 'h_in'
        cout = 'f_out' if T == 'File' else 'h_out_' + T
        if name.endswith('_c2f'):
            return 'MPI_Fint PMPI_%s(abi_%s h)\n{\n    return RMI_P%s(%s(h));\n}' % (name[4:], T, name, cin)
        return 'abi_%s PMPI_%s(MPI_Fint f)\n{\n    return %s(RMI_P%s(f));\n}' % (T, name[4:], cout, name)

    def exported(self):
        names = sorted(list(HAND) + self.c2f_names() + [f['name'] for f in self.covered]
                       + [n for n, _, _ in toint_protos()])
        return names + ['P' + n for n in names]

    # ---------------------------------------------------------------- bindings
    def bindings(self):
        o = ['/* Generated by tools/abi/gen.py from tools/api/mpi_api.txt: the standard',
             ' * ABI\'s functions over railmpi\'s engine (docs/abi.md). Do not edit. */']
        o += ['#include "%s"' % self.conv_header, '#include "abi_tables.h"', '',
              '/* MPI_STATUSES_IGNORE is the engine\'s (MPI_Status *)1: passing it where the',
              ' * engine declares an array trips -Wstringop-overflow, as in include/mpi.h */',
              '#pragma GCC diagnostic ignored "-Wstringop-overflow"', '']
        for f in self.covered:
            o.append(self.wrapper(f))
        for name in self.c2f_names():
            T = name.split('_')[1]
            T = 'Datatype' if T == 'Type' else T
            o.append(self.c2f_function(name, T))
            o.append('#pragma weak %s = PMPI_%s\n' % (name, name[4:]))
        # handles other than files are below 2^32 (the engine's zero-extended,
        # or the ABI's constants): the int is the handle's value
        for obj, _ in self.toint:
            T = 'Datatype' if obj == 'Type' else obj
            if T == 'File':
                o.append('int PMPI_File_toint(abi_File h)\n{\n    return abi_file_toint(h);\n}')
                o.append('abi_File PMPI_File_fromint(int i)\n{\n    return abi_file_fromint(i);\n}')
            else:
                o.append('int PMPI_%s_toint(abi_%s h)\n{\n    return (int)(uint32_t)(uintptr_t)h;\n}' % (obj, T))
                o.append('abi_%s PMPI_%s_fromint(int i)\n{\n    return (abi_%s)(uintptr_t)(uint32_t)i;\n}'
                         % (T, obj, T))
            for n in ('toint', 'fromint'):
                o.append('#pragma weak MPI_%s_%s = PMPI_%s_%s\n' % (obj, n, obj, n))
        return '\n'.join(o)

    def rename(self, undo):
        # the engine's declarations under the names its bindings carry in libmpi_abi.so
        o = ['/* Generated by tools/abi/gen.py. Do not edit. */']
        for f in self.funcs:
            for n in ('P' + f['name'], f['name']):
                o.append('#undef %s' % n if undo else '#define %s RMI_%s' % (n, n))
        return '\n'.join(o) + '\n'

    def consts(self, domain):
        return [(n, v) for k, n, v in self.rows if k == 'int.' + domain and n in self.mnames]

    def tables(self):
        return self.handle_tables() + self.const_tables() + STATUS_CONV

    def handle_tables(self):
        o = ['/* Generated by tools/abi/gen.py from tools/abi/abi_constants.txt. Do not edit. */']
        # predefined handles: ABI value -> engine value (one table, the ABI's
        # values of all classes are disjoint and below 0x400) ...
        o.append('#define ABI_PRE_IN_INIT { \\')
        for k, n, v in self.rows:
            if k.startswith('handle.') and k != 'handle.File' and n in self.mnames:
                o.append('    [%s] = %s, \\' % (v, n))
        o.append('}')
        # ... and engine value -> ABI value per class, keyed by the engine
        # handle's kind bits and index byte (tools/abi/gen.py checks the keys)
        for t in HANDLE_TYPES:
            if t == 'File':
                continue
            keys = {}
            for k, n, v in self.rows:
                if k == 'handle.' + t and n in self.mvals:
                    h = self.mvals[n][1]
                    key = ((h >> 30) & 3) << 8 | (h & 0xff)
                    if key in keys:
                        raise SystemExit('abi: %s and %s share a key' % (n, keys[key][0]))
                    keys[key] = (n, v)
            o.append('static const int out_m_%s[0x400] = {' % t)
            o += ['    [%d] = %s,' % (key, n) for key, (n, v) in sorted(keys.items())]
            o.append('};')
            o.append('static const uint16_t out_a_%s[0x400] = {' % t)
            o += ['    [%d] = %s,' % (key, v) for key, (n, v) in sorted(keys.items())]
            o.append('};')
            # created objects have the engine's direct or indirect kind (top
            # bit set): when no predefined handle of the class has, one test
            if len(keys) == 1:
                # one predefined handle (MPI_REQUEST_NULL, MPI_WIN_NULL, ...):
                # one compare, no table
                (n, v), = keys.values()
                o.append('static inline abi_%s h_out_%s(int h)\n{\n'
                         '    return (abi_%s)(uintptr_t)(__builtin_expect(h == %s, 0) ? %s : (uint32_t)h);\n}'
                         % (t, t, t, n, v))
                continue
            fast = ''
            if all(self.mvals[n][1] >> 31 == 0 for n, _ in keys.values()):
                fast = ('    if ((unsigned)h >> 31)\n'
                        '        return (abi_%s)(uintptr_t)(uint32_t)h;\n' % t)
            o.append('static inline abi_%s h_out_%s(int h)\n{\n' % (t, t) + fast +
                     '    unsigned key = ((unsigned)h >> 22 & 0x300) | ((unsigned)h & 0xff);\n'
                     '    if (out_m_%s[key] == h && out_a_%s[key])\n'
                     '        return (abi_%s)(uintptr_t)out_a_%s[key];\n'
                     '    return (abi_%s)(uintptr_t)(uint32_t)h;\n}' % (t, t, t, t, t))
        return '\n'.join(o) + '\n'

    def const_tables(self):
        o = []
        for d in DOMAINS:
            cs = self.consts(d)
            cases_in = ''.join('    case %s: return %s;\n' % (v, n) for n, v in cs)
            cases_out = ''.join('    case %s: return %s;\n' % (n, v) for n, v in cs)
            if d in ('rank', 'topo', 'split', 'combiner', 'compare'):
                cases_in += '    case -32766: return MPI_UNDEFINED;\n'
                cases_out += '    case MPI_UNDEFINED: return -32766;\n'
            fast = '    if (__builtin_expect(v >= 0, 1))\n        return v;\n' if d in ('rank', 'tag') else ''
            bad = 'ABI_BAD_CONSTANT' if d in ('rank', 'tag') else 'v'
            o.append('static inline int %s_in(int v)\n{\n%s    switch (v) {\n%s    }\n    return %s;\n}'
                     % (d, fast, cases_in, bad))
            o.append('static inline int %s_out(int v)\n{\n%s    switch (v) {\n%s    }\n    return v;\n}'
                     % (d, fast, cases_out))
        for d, prefix in MPIT_DOMAINS:
            cs = [(n, v) for k, n, v in self.rows if k == 'int.mpit' and n.startswith(prefix)
                  and (n in self.mnames or prefix in MPIT_ENUMS)]
            o.append('static inline int %s_in(int v)\n{\n    switch (v) {\n%s    }\n    return ABI_BAD_CONSTANT;\n}'
                     % (d, ''.join('    case %s: return %s;\n' % (v, n) for n, v in cs)))
            o.append('static inline int %s_out(int v)\n{\n    switch (v) {\n%s    }\n    return v;\n}'
                     % (d, ''.join('    case %s: return %s;\n' % (n, v) for n, v in cs)))
        o.append('static inline MPI_T_pvar_handle pvar_handle_in(MPI_T_pvar_handle h)\n{\n'
                 '    return (uintptr_t)h == 1 ? MPI_T_PVAR_ALL_HANDLES : h;\n}')
        bits_in = ''.join('    if (v & %s) r |= %s;\n' % (v, n) for n, v in self.consts('mode'))
        bits_out = ''.join('    if (v & %s) r |= %s;\n' % (n, v) for n, v in self.consts('mode'))
        o.append('static inline int mode_in(int v)\n{\n    int r = 0;\n%s    return r;\n}' % bits_in)
        o.append('static inline int mode_out(int v)\n{\n    int r = 0;\n%s    return r;\n}' % bits_out)
        errs = self.consts('err')
        o.append('static inline int abi_err_in(int v)\n{\n    if (v > 0x3fff)\n        return v;\n    switch (v) {\n%s    }\n'
                 '    return ABI_BAD_CONSTANT;\n}' % ''.join('    case %s: return %s;\n' % (v, n)
                                                          for n, v in errs if n != 'MPI_ERR_LASTCODE'))
        o.append('static inline int abi_err_out(int v)\n{\n    switch (v) {\n%s    }\n    return v;\n}'
                 % ''.join('    case %s: return %s;\n' % (n, v) for n, v in errs if n != 'MPI_ERR_LASTCODE'))
        o.append('static inline int err_in(int v) { return abi_err_in(v); }')
        o.append('static inline int err_out(int v) { return __builtin_expect(v != 0, 0) ? abi_err_out(v) : 0; }')
        return '\n'.join(o) + '\n'

    def wrapper(self, f):
        name = f['name']
        ret, params = self.protos[name]
        plist = split_params(params)
        pnames = []
        for p in plist:
            m = re.search(r'(\w+)\s*(\[[^]]*\])*$', p)
            pnames.append('...' if p == '...' else m.group(1))
        if len(pnames) != len(f['args']):
            raise SystemExit('abi: %s: header and mpi_api.txt disagree' % name)
        decl, pre, call, post = [], [], [], []
        argmap = dict(zip([a for a, _ in f['args']], pnames))
        self.ptypes = dict(zip(pnames, [param_type(p) for p in plist]))
        for (aname, kind), p in zip(f['args'], pnames):
            self.arg(name, aname, kind, p, argmap, decl, pre, call, post)
        if name == 'MPI_Type_get_contents':
            post.append('if (rc == MPI_SUCCESS) abi_contents_out(h_in(datatype), array_of_integers, max_integers);')
        sig = abi_types(params)
        o = []
        fast = self.fast_path(f, pnames) if ret == 'int' else None
        if fast:
            # the common case inline, everything else in a cold twin
            guards, fpre, fcall, fpost = fast
            st = [c for c in fcall if c.endswith('MPI_STATUS_IGNORE')]
            if st and self.fast_split_status:
                # the call with a status in a twin of its own: the one with
                # MPI_STATUS_IGNORE keeps a frame without room for one
                p = st[0].split(' ')[0]
                sdecl, room, done = self.fast_status(p)
                o.append('static int __attribute__((noinline)) abi_status_%s(%s)\n{' % (name[4:], sig))
                o += ['    ' + x for x in fpre + sdecl]
                o.append('    int rc = RMI_P%s(%s);' % (name, ', '.join(room if c == st[0] else c for c in fcall)))
                o.append('    %s' % done)
                o += ['    ' + x for x in fpost if x != 'if (%s) abi_status_done(%s);' % (p, p)]
                o.append('    if (__builtin_expect(rc != MPI_SUCCESS, 0))\n        return abi_err_out(rc);')
                o.append('    return rc;\n}')
            o.append('static int __attribute__((noinline, cold)) abi_slow_%s(%s)\n{' % (name[4:], sig))
            o += ['    ' + x for x in decl + pre]
            o.append('    int rc = RMI_P%s(%s);' % (name, ', '.join(call)))
            o += ['    ' + x for x in post]
            o.append('    return err_out(rc);\n}')
            o.append('int PMPI_%s(%s)\n{' % (name[4:], sig))
            o.append('    if (__builtin_expect(%s, 0))' % ' || '.join(guards))
            o.append('        return abi_slow_%s(%s);' % (name[4:], ', '.join(pnames)))
            o += ['    ' + x for x in fpre]
            if st and self.fast_split_status:
                p = st[0].split(' ')[0]
                o.append('    if (%s != NULL)' % p)
                o.append('        return abi_status_%s(%s);' % (name[4:], ', '.join(pnames)))
                o.append('    int rc = RMI_P%s(%s);' % (name, ', '.join(
                    'MPI_STATUS_IGNORE' if c == st[0] else c for c in fcall)))
                fpost = [x for x in fpost if x != 'if (%s) abi_status_done(%s);' % (p, p)]
            elif st:
                # a call with MPI_STATUS_IGNORE and one with a status: each
                # pays only for its own
                p = st[0].split(' ')[0]
                sdecl, room, done = self.fast_status(p)
                o.append('    int rc;')
                o.append('    if (%s == NULL) {' % p)
                o.append('        rc = RMI_P%s(%s);' % (name, ', '.join(
                    'MPI_STATUS_IGNORE' if c == st[0] else c for c in fcall)))
                o.append('    } else {')
                o += ['        ' + x for x in sdecl]
                o.append('        rc = RMI_P%s(%s);' % (name, ', '.join(
                    room if c == st[0] else c for c in fcall)))
                o.append('        %s' % done)
                o.append('    }')
                fpost = [x for x in fpost if x != 'if (%s) abi_status_done(%s);' % (p, p)]
            else:
                o.append('    int rc = RMI_P%s(%s);' % (name, ', '.join(fcall)))
            o += ['    ' + x for x in fpost]
            o.append('    if (__builtin_expect(rc != MPI_SUCCESS, 0))\n        return abi_err_out(rc);')
            o.append('    return rc;\n}')
        elif ret == 'int':
            o.append('int PMPI_%s(%s)\n{' % (name[4:], sig))
            o += ['    ' + x for x in decl + pre]
            o.append('    int rc = RMI_P%s(%s);' % (name, ', '.join(call)))
            o += ['    ' + x for x in post]
            o.append('    return err_out(rc);\n}')
        else:
            o.append('%s PMPI_%s(%s)\n{' % (ret, name[4:], sig))
            o.append('    return RMI_P%s(%s);\n}' % (name, ', '.join(call)))
        o.append('#pragma weak %s = PMPI_%s\n' % (name, name[4:]))
        return '\n'.join(o)

    # The fast paths' pieces that depend on the ABI's handles and status
    # (tools/abi/ompi_gen.py gives Open MPI's).
    fast_table = True  # predefined handles by the table abi_pre_in_table
    fast_split_status = False  # a call with a status in a twin of its own

    def fast_request_out(self, fn, p):
        """guard, pre, call, post of a request the call creates (no guard or
        pre: None)"""
        return ('%s == NULL' % p, '((int *)(void *)%s)[1] = 0;' % p, '(int *)(void *)%s' % p,
                'if (__builtin_expect(*(int *)(void *)%s == MPI_REQUEST_NULL, 0)) '
                '*%s = h_out_Request(MPI_REQUEST_NULL);' % (p, p))

    def fast_request_inout(self, p):
        """guard, call, post of a request the call may complete"""
        return ('%s == NULL || (uintptr_t)*%s < ABI_PREDEFINED_LIMIT' % (p, p), '(int *)(void *)%s' % p,
                'if (*(int *)(void *)%s == MPI_REQUEST_NULL) *%s = h_out_Request(MPI_REQUEST_NULL);' % (p, p))

    def fast_status(self, p):
        """declarations, the engine's status argument, and the statement that
        completes the caller's status, for a status that is not ignored"""
        return [], 'abi_status_room(%s)' % p, 'abi_status_done(%s);' % p

    def fast_path(self, f, pnames):
        """The common case of a function whose arguments are ranks, tags,
        buffers, handles, requests and a status: non-negative ranks and tags,
        buffers other than MPI_IN_PLACE, requests of created objects pass to
        the engine as they are (guards, pre, call, post), or None."""
        argmap = dict(zip([a for a, _ in f['args']], pnames))
        guards, ranks, pre, call, post = [], [], [], [], []
        handles = 0
        for (aname, kind), p in zip(f['args'], pnames):
            base = kind.split('/')[0]
            if base == 'int' and INT_IN.get(aname) in ('rank', 'tag'):
                ranks.append(p)
                call.append(p)
            elif base.startswith('choice'):
                # MPI_IN_PLACE means something only as a collective's send or
                # receive buffer; elsewhere it is an invalid address either way
                if aname in ('sendbuf', 'recvbuf'):
                    guards.append('%s == (const void *)1' % p)
                call.append('(void *)(uintptr_t)%s' % p)
            elif base == 'h.request_out':
                # the engine writes the low half of the caller's slot
                g, pr, c, po = self.fast_request_out(f['name'], p)
                guards += [g] if g else []
                pre += [pr] if pr else []
                call.append(c)
                post.append(po)
            elif base == 'h.request_inout':
                # a created request's slot holds the engine's handle, zero-extended
                g, c, po = self.fast_request_inout(p)
                guards.append(g)
                call.append(c)
                post.append(po)
            elif base == 'status_out':
                call.append('%s ? abi_status_room(%s) : MPI_STATUS_IGNORE' % (p, p))
                post.append('if (%s) abi_status_done(%s);' % (p, p))
            else:
                d, pr, c, po = [], [], [], []
                self.arg(f['name'], aname, kind, p, argmap, d, pr, c, po)
                if d or pr or po or len(c) != 1 or not (c[0] == p or c[0] in ('h_in(%s)' % p, 'f_in(%s)' % p)):
                    return None
                if c[0] == 'h_in(%s)' % p:
                    handles += 1
                    c[0] = 'h_in_t(abi_t, %s)' % p
                call.append(c[0])
        if handles > 1 and self.fast_table:
            # the predefined handles' table's address once, not per handle
            pre.insert(0, 'const int *abi_t = abi_pre_in_table;')
            pre.insert(1, '__asm__("" : "+r"(abi_t));')
        else:
            call = [c.replace('h_in_t(abi_t, ', 'h_in(') for c in call]
        if ranks:
            guards.insert(0, '(%s) < 0' % ' | '.join(ranks))
        return (guards, pre, call, post) if guards else None

    def arg(self, fn, aname, kind, p, argmap, decl, pre, call, post):
        base = kind.split('/')[0]
        if base.startswith('h.'):
            return self.handle_arg(fn, base[2:], p, argmap, decl, pre, call, post)
        if base == 'int':
            d = INT_IN.get(aname)
            if fn == 'MPI_Abort' or d is None:
                call.append(p)
            elif d == 'err':
                call.append('err_in(%s)' % p)
            else:
                call.append('%s_in(%s)' % (d, p))
        elif base == 'int_out' or base == 'index_out':
            d = 'undefined' if base == 'index_out' else INT_OUT.get(aname)
            call.append(p)
            if d:
                post.append('if (%s && rc == MPI_SUCCESS) *%s = %s_out(*%s);' % (p, p, d, p))
        elif base == 'int_inout' and aname in KEYVAL_NAMES:
            decl.append('int %s_m = %s ? keyval_in(*%s) : 0;' % (p, p, p))
            call.append('%s ? &%s_m : NULL' % (p, p))
            post.append('if (%s) *%s = keyval_out(%s_m);' % (p, p, p))
        elif base == 'keyval':
            call.append('keyval_in(%s)' % p)
        elif base in ('attr_out', 'attr1_out'):
            call.append(p)
            key = argmap[kind.split('/')[1]]
            post.append('if (rc == MPI_SUCCESS && flag && *flag) abi_attr_out(%s, %s);' % (key, p))
        elif base == 'int_arr_in' and aname in ARR_IN:
            d, n = ARR_IN[aname]
            decl.append('int %s_s[ABI_STACK], *%s_m = abi_ints_in(%s_s, %s, %s, %s_in);'
                        % (p, p, p, argmap[n], p, d))
            call.append('%s_m' % p)
            post.append('if (%s_m != %s_s) free(%s_m);' % (p, p, p))
        elif base == 'int_arr_out' and aname in ARR_OUT:
            d, n = ARR_OUT[aname]
            call.append(p)
            post.append('if (rc == MPI_SUCCESS && %s) for (int i = 0; i < %s; i++) %s[i] = %s_out(%s[i]);'
                        % (p, argmap[n], p, d, p))
        elif base == 'errcodes_out':
            # a failed spawn's codes (one per process asked for, as this
            # process knows the number, like the engine): the ABI's classes;
            # a successful one's are MPI_SUCCESS in every ABI. Only where the
            # engine wrote them (abi_spawn_filled): a call refused before
            # has maxprocs significant at the root only
            call.append(p)
            if 'maxprocs' in argmap:
                n = argmap['maxprocs']
            else:
                n = 'abi_procs_total(%s, %s)' % (argmap['count'], argmap['array_of_maxprocs'])
            post.append('if (rc != MPI_SUCCESS && %s && abi_spawn_filled(h_in(%s), rank_in(%s), rc)) '
                        'for (int i = 0, n = %s; i < n; i++) %s[i] = err_out(%s[i]);'
                        % (p, argmap['comm'], argmap['root'], n, p, p))
        elif base.startswith('choice'):
            call.append('abi_buf(%s)' % p)
        elif base in ('weights_in', 'weights_out'):
            call.append('abi_weights(%s)' % p)
        elif base in ('status_in', 'status_inout'):
            decl.append('MPI_Status %s_m;' % p)
            pre.append('if (%s) abi_status_in(&%s_m, %s);' % (p, p, p))
            call.append('%s ? &%s_m : MPI_STATUS_IGNORE' % (p, p))
            if base == 'status_inout':
                post.append('if (%s) abi_status_out(%s, &%s_m);' % (p, p, p))
        elif base == 'status_out':
            # the engine writes its status into the ABI status's last 20 bytes
            call.append('%s ? abi_status_room(%s) : MPI_STATUS_IGNORE' % (p, p))
            post.append('if (%s) abi_status_done(%s);' % (p, p))
        elif base == 'statuses_out':
            n = argmap.get('count') or argmap.get('incount')
            if 'outcount' in argmap:
                n = '(rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && %s ? *%s : 0' % (argmap['outcount'], argmap['outcount'])
            # the program's MPI_ERROR fields are kept (up to ABI_STACK
            # statuses) and the engine's marked unset, so that a call that
            # sets none (MPI_Waitall without an error) leaves them as they were
            # (not for MPI_Waitsome/Testsome, which define only the first
            # *outcount statuses)
            arr = argmap.get('count') or argmap.get('incount')
            keep = 'abi_statuses_keep(%s, %s, %s_e)' % (p, arr, p) if 'outcount' not in argmap else '0'
            decl.append('int %s_e[ABI_STACK], %s_k = %s ? %s : 0;' % (p, p, p, keep))
            call.append('%s ? (MPI_Status *)(void *)%s : MPI_STATUSES_IGNORE' % (p, p))
            post.insert(0, 'if (%s) abi_statuses_out_kept(%s, %s, %s_e, %s_k);' % (p, p, n, p, p))
        elif base == 'c_only' and fn.startswith('MPI_T_'):
            conv = MPIT_CTYPES[self.ptypes[p]]
            if conv is None:
                call.append(p)
            elif conv.startswith('out:'):
                call.append(p)
                post.append('if (%s && rc == MPI_SUCCESS) *%s = %s_out(*%s);' % (p, p, conv[4:], p))
            else:
                call.append(conv % p)
        elif base == 'varargs':
            pass
        else:
            call.append(p)

    def handle_arg(self, fn, h, p, argmap, decl, pre, call, post):
        cls, _, mode = h.partition('_')
        T = cls[0].upper() + cls[1:]
        conv_in = 'f_in' if T == 'File' else 'h_in'
        conv_out = 'f_out' if T == 'File' else 'h_out_' + T
        mtype = 'MPI_File' if T == 'File' else 'int'
        if mode == 'out' and cls == 'comm' and fn in IDUP:
            # the engine writes the new communicator when the request
            # completes, after this wrapper returned: into the program's
            # handle, whose upper half is zero, so that it reads as the
            # engine's handle zero-extended
            decl.append('if (%s) *%s = NULL;' % (p, p))
            call.append('(int *)(void *)%s' % p)
        elif T == 'Request' and mode in ('out', 'inout'):
            # the engine's handle is the low half of the caller's slot (the ABI's
            # handles of created requests are the engine's, zero-extended):
            # the engine reads and writes it there, no local copy
            if mode == 'inout':
                pre.append('if (%s) abi_request_in(%s);' % (p, p))
            call.append('(int *)(void *)%s' % p)
            post.append('if (%s) abi_request_out(%s);' % (p, p))
        elif mode == '':
            call.append('%s(%s)' % (conv_in, p))
        elif mode == 'out':
            decl.append('%s %s_m = 0;' % (mtype, p))
            call.append('%s ? &%s_m : NULL' % (p, p))
            # a failed call may still give a handle (MPI_COMM_NULL from a
            # failed MPI_Comm_spawn or MPI_Comm_dup): it is converted too
            post.append('if (%s && (rc == MPI_SUCCESS || %s_m)) *%s = %s(%s_m);' % (p, p, p, conv_out, p))
        elif mode == 'inout':
            decl.append('%s %s_m = %s ? %s(*%s) : 0, %s_0 = %s_m;' % (mtype, p, p, conv_in, p, p, p))
            call.append('%s ? &%s_m : NULL' % (p, p))
            post.append('if (%s && %s_m != %s_0) *%s = %s(%s_m);' % (p, p, p, p, conv_out, p))
        elif mode in ('arr_in', 'arr_inout'):
            if fn in NEIGHBOR_W:
                n = 'abi_neighbor_count(h_in(comm), %d)' % (p == 'sendtypes')
                n = '(%s == NULL ? 0 : %s)' % (p, n)
            elif fn in ALLTOALLW:
                n = 'abi_comm_span(%s)' % 'h_in(comm)'
                skip = '%s == (const void *)1 || ' % argmap['sendbuf'] if p == 'sendtypes' else ''
                n = '(%s%s == NULL ? 0 : %s)' % (skip, p, n)
            else:
                n = argmap.get('count') or argmap.get('incount')
            decl.append('int %s_n = %s, %s_s[ABI_STACK], *%s_m = abi_handles_in(%s_s, %s_n, (void *const *)%s);'
                        % (p, n, p, p, p, p, p))
            call.append('%s_m' % p)
            if mode == 'arr_inout':
                post.append('if (%s_m) for (int i = 0; i < %s_n; i++) if (%s_m[i] != h_in(%s[i])) %s[i] = %s(%s_m[i]);'
                            % (p, p, p, p, p, conv_out, p))
            post.append('if (%s_m != %s_s) free(%s_m);' % (p, p, p))
        elif mode == 'arr_out' and 'max_datatypes' not in argmap:
            # MPI_T_event_get_info: *num_elements long on the way in, holding
            # *num_elements on the way out
            ne = argmap['num_elements']
            decl.append('int %s_n = %s ? *%s : 0, %s_s[ABI_STACK], *%s_m = abi_handles_room(%s_s, %s_n);'
                        % (p, ne, ne, p, p, p, p))
            call.append('%s ? %s_m : NULL' % (p, p))
            post.append('if (rc == MPI_SUCCESS && %s && %s) for (int i = 0; i < %s_n && i < *%s; i++) '
                        '%s[i] = %s(%s_m[i]);' % (p, ne, p, ne, p, conv_out, p))
            post.append('if (%s_m != %s_s) free(%s_m);' % (p, p, p))
        elif mode == 'arr_out':
            n = argmap['max_datatypes']
            decl.append('int %s_s[ABI_STACK], *%s_m = abi_handles_room(%s_s, %s);' % (p, p, p, n))
            call.append('%s_m' % p)
            post.append('if (rc == MPI_SUCCESS && %s) for (int i = 0; i < %s; i++) %s[i] = %s(%s_m[i]);'
                        % (p, n, p, conv_out, p))
            post.append('if (%s_m != %s_s) free(%s_m);' % (p, p, p))
        else:
            raise SystemExit('abi: %s: handle mode %s' % (fn, h))


CALLBACK_TYPEDEFS = r'''
typedef void (MPI_User_function)(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void (MPI_User_function_c)(void *invec, void *inoutvec, MPI_Count *len, MPI_Datatype *datatype);
typedef int (MPI_Grequest_query_function)(void *extra_state, MPI_Status *status);
typedef int (MPI_Grequest_free_function)(void *extra_state);
typedef int (MPI_Grequest_cancel_function)(void *extra_state, int complete);
typedef int (MPI_Copy_function)(MPI_Comm comm, int keyval, void *extra_state,
                                void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int (MPI_Delete_function)(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state);
typedef int (MPI_Comm_copy_attr_function)(MPI_Comm comm, int comm_keyval, void *extra_state,
                                          void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int (MPI_Comm_delete_attr_function)(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                            void *extra_state);
typedef int (MPI_Type_copy_attr_function)(MPI_Datatype datatype, int type_keyval, void *extra_state,
                                          void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int (MPI_Type_delete_attr_function)(MPI_Datatype datatype, int type_keyval,
                                            void *attribute_val, void *extra_state);
typedef int (MPI_Win_copy_attr_function)(MPI_Win win, int win_keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int (MPI_Win_delete_attr_function)(MPI_Win win, int win_keyval, void *attribute_val,
                                           void *extra_state);
typedef int (MPI_Datarep_extent_function)(MPI_Datatype datatype, MPI_Aint *extent, void *extra_state);
typedef int (MPI_Datarep_conversion_function)(void *userbuf, MPI_Datatype datatype, int count,
                                              void *filebuf, MPI_Offset position, void *extra_state);
typedef int (MPI_Datarep_conversion_function_c)(void *userbuf, MPI_Datatype datatype, MPI_Count count,
                                                void *filebuf, MPI_Offset position, void *extra_state);
typedef void (MPI_Comm_errhandler_function)(MPI_Comm *comm, int *error_code, ...);
typedef void (MPI_File_errhandler_function)(MPI_File *file, int *error_code, ...);
typedef void (MPI_Win_errhandler_function)(MPI_Win *win, int *error_code, ...);
typedef void (MPI_Session_errhandler_function)(MPI_Session *session, int *error_code, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef MPI_Session_errhandler_function MPI_Session_errhandler_fn;
'''

MPIT_TYPES = r'''
typedef struct MPI_T_enum_t *MPI_T_enum;
typedef struct MPI_T_cvar_handle_t *MPI_T_cvar_handle;
typedef struct MPI_T_pvar_handle_t *MPI_T_pvar_handle;
typedef struct MPI_T_pvar_session_t *MPI_T_pvar_session;
typedef struct MPI_T_event_registration_t *MPI_T_event_registration;
typedef struct MPI_T_event_instance_t *MPI_T_event_instance;
typedef enum MPI_T_cb_safety {
    MPI_T_CB_REQUIRE_NONE = 0,
    MPI_T_CB_REQUIRE_MPI_RESTRICTED = 1,
    MPI_T_CB_REQUIRE_THREAD_SAFE = 3,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 7
} MPI_T_cb_safety;
typedef enum MPI_T_source_order {
    MPI_T_SOURCE_ORDERED = 1,
    MPI_T_SOURCE_UNORDERED = 2
} MPI_T_source_order;
typedef void (MPI_T_event_cb_function)(MPI_T_event_instance event_instance,
                                       MPI_T_event_registration event_registration,
                                       MPI_T_cb_safety cb_safety, void *user_data);
typedef void (MPI_T_event_free_cb_function)(MPI_T_event_registration event_registration,
                                            MPI_T_cb_safety cb_safety, void *user_data);
typedef void (MPI_T_event_dropped_cb_function)(MPI_Count count, MPI_T_event_registration event_registration,
                                               int source_index, MPI_T_cb_safety cb_safety, void *user_data);
'''

STATUS_CONV = r'''
/* MPICH's status keeps the count in its first two words: they travel in
 * MPI_internal[0..1] */
static inline void abi_status_in(MPI_Status *m, const abi_Status *a)
{
    m->count_lo = a->MPI_internal[0];
    m->count_hi_and_cancelled = a->MPI_internal[1];
    m->MPI_SOURCE = rank_in(a->MPI_SOURCE);
    m->MPI_TAG = tag_in(a->MPI_TAG);
    m->MPI_ERROR = err_in(a->MPI_ERROR);
}
static inline void abi_status_out(abi_Status *a, const MPI_Status *m)
{
    int lo = m->count_lo, hi = m->count_hi_and_cancelled;
    int src = m->MPI_SOURCE, tag = m->MPI_TAG, err = m->MPI_ERROR;
    a->MPI_SOURCE = rank_out(src);
    a->MPI_TAG = tag_out(tag);
    if (err != ABI_ERROR_UNSET)
        a->MPI_ERROR = err_out(err);
    a->MPI_internal[0] = lo;
    a->MPI_internal[1] = hi;
    a->MPI_internal[2] = a->MPI_internal[3] = a->MPI_internal[4] = 0;
}
/* a status the engine fills for one request: its MPICH status (count_lo,
 * count_hi_and_cancelled, MPI_SOURCE, MPI_TAG, MPI_ERROR) is written over
 * MPI_internal[0..4], where the count words stay; a call that completes one
 * request leaves MPI_ERROR as it was */
static inline MPI_Status *abi_status_room(abi_Status *a)
{
    a->MPI_internal[4] = ABI_ERROR_UNSET;
    return (MPI_Status *)(void *)&a->MPI_internal[0];
}
static void __attribute__((noinline, cold, unused)) abi_status_done_slow(abi_Status *a)
{
    int src = a->MPI_internal[2], tag = a->MPI_internal[3], err = a->MPI_internal[4];
    a->MPI_SOURCE = rank_out(src);
    a->MPI_TAG = tag_out(tag);
    if (err != ABI_ERROR_UNSET)
        a->MPI_ERROR = err_out(err);
}
/* MPI_internal[2..4] keep the engine's copies: nothing reads them */
static inline void abi_status_done(abi_Status *a)
{
    int src = a->MPI_internal[2], tag = a->MPI_internal[3], err = a->MPI_internal[4];
    if (__builtin_expect((src | tag) < 0 || err != ABI_ERROR_UNSET, 0)) {
        abi_status_done_slow(a);
        return;
    }
    a->MPI_SOURCE = src;
    a->MPI_TAG = tag;
}
/* a request's slot: a predefined handle (MPI_REQUEST_NULL) becomes the
 * engine's before the call; after it, whatever the engine left in the low
 * half becomes the ABI's handle */
static inline void abi_request_in(abi_Request *r)
{
    uintptr_t v = (uintptr_t)*r;
    if (__builtin_expect(v < ABI_PREDEFINED_LIMIT, 0))
        *r = (abi_Request)(uintptr_t)(uint32_t)abi_pre_in_table[v];
}
static inline void abi_request_out(abi_Request *r)
{
    *r = h_out_Request(*(int *)(void *)r);
}
/* the engine wrote n MPICH statuses (20 bytes) at the start of the caller's
 * array of ABI statuses (32 bytes): widen them in place, last first */
static inline void abi_statuses_out(abi_Status *a, int n)
{
    const MPI_Status *m = (const MPI_Status *)(void *)a;
    for (int i = n - 1; i >= 0; i--) {
        MPI_Status t = m[i];
        abi_status_out(&a[i], &t);
    }
}
/* before the engine writes n statuses in place: the program's MPI_ERROR
 * fields saved (up to ABI_STACK; how many is returned) and those of the
 * engine's statuses that will lie there marked unset */
static inline int abi_statuses_keep(abi_Status *a, int n, int *saved)
{
    if (n <= 0 || n > ABI_STACK)
        return 0;
    for (int i = 0; i < n; i++)
        saved[i] = a[i].MPI_ERROR;
    MPI_Status *m = (MPI_Status *)(void *)a;
    for (int i = 0; i < n; i++)
        m[i].MPI_ERROR = ABI_ERROR_UNSET;
    return n;
}
/* abi_statuses_out, with the saved MPI_ERROR of each status whose error the
 * engine left unset */
static inline void abi_statuses_out_kept(abi_Status *a, int n, const int *saved, int kept)
{
    const MPI_Status *m = (const MPI_Status *)(void *)a;
    for (int i = n - 1; i >= 0; i--) {
        MPI_Status t = m[i];
        abi_status_out(&a[i], &t);
        if (t.MPI_ERROR == ABI_ERROR_UNSET && i < kept)
            a[i].MPI_ERROR = saved[i];
    }
}
static inline int darg_in(int v) { return v == 19 ? MPI_DISTRIBUTE_DFLT_DARG : v; }
static inline int darg_out(int v) { return v == MPI_DISTRIBUTE_DFLT_DARG ? 19 : v; }
'''
