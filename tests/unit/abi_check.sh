#!/usr/bin/env bash
# abi_check.sh -- check that railmpi's mpi.h is binary compatible with MPICH.
#
# usage: abi_check.sh OUR_INCLUDE_DIR TMP_DIR
#
#  1. Compiles a C file including our mpi.h with -std=c11 -Wall -Wextra
#     -Werror -pedantic, and a C++ file with -std=c++11 -Wall -Werror.
#  2. Generates a program printing NAME=value for every name in
#     abi_names.txt plus type sizes, MPI_Status field offsets and the
#     underlying C types of MPI_Aint/Offset/Count/Fint and the handles; builds
#     it once against our header and once against MPICH's, and diffs the
#     two outputs.
#  3. Checks every function declaration of our header against MPICH's
#     prototypes (a conflicting declaration is a compile error).
#
# Exit: 0 all identical, 1 any difference or build failure, 77 MPICH headers
# not installed (override their location with MPICH_INCLUDE_DIR), 2 usage.
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 OUR_INCLUDE_DIR TMP_DIR" >&2
    exit 2
fi
OURDIR=$1
TMP=$2
HERE=$(cd "$(dirname "$0")" && pwd)
NAMES=${ABI_NAMES:-$HERE/abi_names.txt}
MPICHDIR=${MPICH_INCLUDE_DIR:-/usr/include/x86_64-linux-gnu/mpich}
CC=${CC:-gcc}
CXX=${CXX:-g++}

if [ ! -f "$OURDIR/mpi.h" ]; then
    echo "FAIL: $OURDIR/mpi.h not found" >&2
    exit 1
fi
if [ ! -f "$NAMES" ]; then
    echo "FAIL: name list $NAMES not found" >&2
    exit 1
fi
mkdir -p "$TMP" || exit 1

fail=0

# --- 1. the header compiles cleanly on its own, in C and in C++ -------------
cat > "$TMP/clean.c" <<'EOF'
#include <mpi.h>
#include <mpi.h> /* include guard */

/* Use the callback macros where the standard says they fit. */
int abi_clean_use(void);
int abi_clean_use(void)
{
    int kv = MPI_KEYVAL_INVALID;
    MPI_Status st;
    MPI_Comm_copy_attr_function *cc = MPI_COMM_DUP_FN;
    MPI_Type_copy_attr_function *tc = MPI_TYPE_DUP_FN;
    MPI_Win_copy_attr_function *wc = MPI_WIN_DUP_FN;
    MPI_Copy_function *c1 = MPI_DUP_FN;
    MPI_Copy_function *c0 = MPI_NULL_COPY_FN;
    MPI_Delete_function *d0 = MPI_NULL_DELETE_FN;
    (void)cc; (void)tc; (void)wc; (void)c1; (void)c0; (void)d0;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                           &kv, 0);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN,
                           &kv, 0);
    {
        /* Constants whose functions the library does not define yet:
         * their types still have to fit where the standard puts them. */
        MPI_Win_copy_attr_function *wn = MPI_WIN_NULL_COPY_FN;
        MPI_Win_delete_attr_function *wd = MPI_WIN_NULL_DELETE_FN;
        MPI_Datarep_conversion_function *cv = MPI_CONVERSION_FN_NULL;
        const int *uw = MPI_UNWEIGHTED, *we = MPI_WEIGHTS_EMPTY;
        char **av = MPI_ARGV_NULL;
        int *ec = MPI_ERRCODES_IGNORE;
        MPI_Fint *fs = MPI_F_STATUS_IGNORE;
        (void)wn; (void)wd; (void)cv; (void)uw; (void)we; (void)av; (void)ec; (void)fs;
    }
    MPI_Recv(MPI_BOTTOM, 0, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
             MPI_COMM_WORLD, &st);
    MPI_Waitall(0, 0, MPI_STATUSES_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, &kv, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return st.MPI_SOURCE + st.MPI_TAG + st.MPI_ERROR + (int)MPI_Wtime();
}
EOF
cp "$TMP/clean.c" "$TMP/clean.cc"
if ! "$CC" -std=c11 -Wall -Wextra -Werror -pedantic -I"$OURDIR" \
        -c "$TMP/clean.c" -o "$TMP/clean_c.o"; then
    echo "FAIL: mpi.h does not compile cleanly as C11" >&2
    fail=1
fi
if ! "$CXX" -std=c++11 -Wall -Werror -I"$OURDIR" \
        -c "$TMP/clean.cc" -o "$TMP/clean_cxx.o"; then
    echo "FAIL: mpi.h does not compile cleanly as C++11" >&2
    fail=1
fi

if [ ! -f "$MPICHDIR/mpi.h" ]; then
    echo "SKIP: MPICH headers not installed"
    [ $fail -eq 0 ] && exit 77
    exit 1
fi

# --- 2. values, sizes, layout ----------------------------------------------
names=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$NAMES" | grep -v '^$')
nnames=$(printf '%s\n' "$names" | wc -l)

{
    cat <<'EOF'
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TYPE_NAME(T) _Generic((T)0,                                    \
    signed char: "signed char", unsigned char: "unsigned char",       \
    short: "short", unsigned short: "unsigned short",                 \
    int: "int", unsigned: "unsigned int",                             \
    long: "long", unsigned long: "unsigned long",                     \
    long long: "long long", unsigned long long: "unsigned long long", \
    default: "other")
#define SHOW(name) printf("%s=%lld\n", #name, (long long)(intptr_t)(name))
#define SIZE(T) printf("sizeof(%s)=%zu\n", #T, sizeof(T))
#define TYPE(T) printf("type(%s)=%s\n", #T, TYPE_NAME(T))
#define OFFSET(f) printf("offsetof(MPI_Status,%s)=%zu\n", #f, \
                         offsetof(MPI_Status, f))

int main(void)
{
EOF
    printf '%s\n' "$names" | sed 's/.*/    SHOW(&);/'
    for t in MPI_Aint MPI_Offset MPI_Count MPI_Fint MPI_Comm MPI_Datatype \
             MPI_Group MPI_Op MPI_Errhandler MPI_Request MPI_Message \
             MPI_Info MPI_Win MPI_Session; do
        echo "    SIZE($t); TYPE($t);"
    done
    echo "    SIZE(MPI_File); SIZE(MPI_Status);"
    for f in count_lo count_hi_and_cancelled MPI_SOURCE MPI_TAG MPI_ERROR; do
        echo "    OFFSET($f);"
    done
    echo "    return 0;"
    echo "}"
} > "$TMP/abi_values.c"

build_and_run() { # $1 = include dir, $2 = output tag
    if ! "$CC" -std=gnu11 -w -I"$1" "$TMP/abi_values.c" -o "$TMP/abi_$2"; then
        echo "FAIL: cannot build the value dump against $1" >&2
        return 1
    fi
    "$TMP/abi_$2" > "$TMP/abi_$2.txt" || {
        echo "FAIL: value dump built against $1 did not run" >&2
        return 1
    }
}

if build_and_run "$OURDIR" ours && build_and_run "$MPICHDIR" mpich; then
    if diff -u "$TMP/abi_mpich.txt" "$TMP/abi_ours.txt" > "$TMP/abi.diff"; then
        echo "ok: $nnames names, type sizes and MPI_Status layout match MPICH"
    else
        echo "FAIL: values differ from MPICH (- MPICH, + railmpi):" >&2
        grep '^[-+][^-+]' "$TMP/abi.diff" >&2
        fail=1
    fi
else
    fail=1
fi

# --- 3. function declarations agree with MPICH's prototypes ----------------
protos=$(sed -n '/^ \* BEGIN FUNCTION DECLARATIONS$/,/^\/\* END FUNCTION DECLARATIONS \*\/$/p' \
         "$OURDIR/mpi.h")
if [ -z "$protos" ]; then
    echo "FAIL: no function declaration markers in $OURDIR/mpi.h" >&2
    fail=1
else
    {
        echo '#include <mpi.h>'
        # MPICH implements the handle conversions as macros as well.
        for o in Comm Type Group Request Op Errhandler Info Win Message Session; do
            for p in MPI PMPI; do
                echo "#undef ${p}_${o}_c2f"
                echo "#undef ${p}_${o}_f2c"
            done
        done
        echo '/*'
        printf '%s\n' "$protos"
    } > "$TMP/abi_protos.c"
    nprotos=$(printf '%s\n' "$protos" | grep -cE '^[A-Za-z_ ]+\bP?MPI_[A-Za-z0-9_]+\(')
    if "$CC" -std=c11 -fsyntax-only -I"$MPICHDIR" "$TMP/abi_protos.c" \
            2> "$TMP/abi_protos.err"; then
        echo "ok: $nprotos function declarations agree with MPICH's"
    else
        echo "FAIL: function declarations conflict with MPICH's:" >&2
        grep -E 'error' "$TMP/abi_protos.err" >&2
        fail=1
    fi
fi

[ $fail -eq 0 ] && echo "PASS: mpi.h is ABI compatible with MPICH"
exit $fail
