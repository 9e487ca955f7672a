/* Fortran strings and string arrays as C strings: blank padded, fixed
 * length, no NUL; an argument list ends at its first all-blank entry. No MPI
 * calls here (tests/unit/test_fortran_strings.c links this file alone). */
#ifdef F_STRINGS_HEADER /* Open MPI's ABI (src/abi/ompi_fortran.h) */
#include F_STRINGS_HEADER
#else
#include "fortran.h"
#endif

#include <string.h>

char *f_str_in(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ') len--;
    size_t lead = 0;
    while (lead < len && s[lead] == ' ') lead++; /* the standard ignores leading blanks too */
    char *c = malloc(len - lead + 1);
    if (!c) return NULL;
    memcpy(c, s + lead, len - lead);
    c[len - lead] = 0;
    return c;
}

char *f_str_out_buf(size_t len)
{
    /* the library may write up to its own maximum whatever the Fortran length */
    size_t n = len > MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING;
    return calloc(n + 1, 1);
}

void f_str_out(const char *c, char *f, size_t len)
{
    size_t n = strlen(c);
    if (n > len) n = len;
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}

static char *f_str_dup(const char *s, size_t len)
{
    return f_str_in(s, len);
}

static int f_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ') return 0;
    return 1;
}

void f_argv_free(char **argv)
{
    if (!argv || argv == MPI_ARGV_NULL) return;
    for (char **a = argv; *a; a++) free(*a);
    free(argv);
}

/* The entries up to the first blank one, read with stride `stride` entries
 * (a column of a Fortran ARRAY_OF_ARGV(COUNT, *) has stride COUNT). */
static char **f_argv_read(const char *f, size_t len, size_t stride)
{
    size_t n = 0;
    while (!f_blank(f + n * stride * len, len)) n++;
    char **argv = calloc(n + 1, sizeof *argv);
    if (!argv) return NULL;
    for (size_t i = 0; i < n; i++) {
        argv[i] = f_str_dup(f + i * stride * len, len);
        if (!argv[i]) { f_argv_free(argv); return NULL; }
    }
    return argv;
}

int f_argv_in(const char *f, size_t len, char ***out)
{
    *out = MPI_ARGV_NULL;
    if (F_IS_ARGV_NULL(f) || len == 0) return MPI_SUCCESS;
    *out = f_argv_read(f, len, 1);
    return *out ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

void f_argvs_free(char ***argvs, int count)
{
    if (!argvs || argvs == MPI_ARGVS_NULL) return;
    for (int i = 0; i < count; i++) f_argv_free(argvs[i]);
    free(argvs);
}

int f_argvs_in(const char *f, int count, size_t len, char ****out)
{
    *out = MPI_ARGVS_NULL;
    if (F_IS_ARGVS_NULL(f) || count <= 0 || len == 0) return MPI_SUCCESS;
    char ***argvs = calloc((size_t)count, sizeof *argvs);
    if (!argvs) return MPI_ERR_NO_MEM;
    for (int i = 0; i < count; i++) {
        argvs[i] = f_argv_read(f + (size_t)i * len, len, (size_t)count);
        if (!argvs[i]) { f_argvs_free(argvs, count); return MPI_ERR_NO_MEM; }
    }
    *out = argvs;
    return MPI_SUCCESS;
}

int f_str_arr_in(const char *f, int count, size_t len, char ***out)
{
    *out = NULL;
    char **a = calloc((size_t)(count > 0 ? count : 0) + 1, sizeof *a);
    if (!a) return MPI_ERR_NO_MEM;
    for (int i = 0; i < count; i++) {
        a[i] = f_str_dup(f + (size_t)i * len, len);
        if (!a[i]) { f_argv_free(a); return MPI_ERR_NO_MEM; }
    }
    *out = a;
    return MPI_SUCCESS;
}
