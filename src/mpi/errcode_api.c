/* User-defined error classes, codes and strings (MPI-3.1 section 8.5) and
 * the C <-> Fortran status conversions. */
#include "mpi/mpiimpl.h"

#include <stdlib.h>
#include <string.h>

/* Classes and codes the application adds share one numbering above
 * MPI_ERR_LASTCODE, so a number is never both; a class is its own class. */
typedef struct user_err {
    int code, cls;
    char *str;   /* NULL until MPI_Add_error_string */
    int removed; /* MPI_Remove_error_class/code: the number is not given again */
} user_err_t;

static user_err_t *user_errs;
static int n_user_errs, cap_user_errs;

static user_err_t *err_user_find(int code)
{
    if (code <= MPI_ERR_LASTCODE)
        return NULL;
    int i = code - MPI_ERR_LASTCODE - 1;
    return i < n_user_errs && !user_errs[i].removed ? &user_errs[i] : NULL;
}

int mpi_err_lastused(void)
{
    return MPI_ERR_LASTCODE + n_user_errs;
}

int mpi_err_user_class(int code, int *cls)
{
    user_err_t *u = err_user_find(code);
    if (u)
        *cls = u->cls;
    return u != NULL;
}

const char *mpi_err_user_string(int code)
{
    user_err_t *u = err_user_find(code);
    return u ? (u->str ? u->str : "") : NULL;
}

static int err_user_add(int cls)
{
    if (n_user_errs == 0x7fffffff - MPI_ERR_LASTCODE)
        return -1;
    if (n_user_errs == cap_user_errs) {
        int cap = cap_user_errs ? 2 * cap_user_errs : 16;
        user_err_t *n = realloc(user_errs, sizeof *n * (size_t)cap);
        if (!n)
            return -1;
        user_errs = n;
        cap_user_errs = cap;
    }
    int code = MPI_ERR_LASTCODE + 1 + n_user_errs;
    user_errs[n_user_errs++] = (user_err_t){.code = code, .cls = cls < 0 ? code : cls};
    return code;
}

void mpi_err_user_finalize(void)
{
    for (int i = 0; i < n_user_errs; i++)
        free(user_errs[i].str);
    free(user_errs);
    user_errs = NULL;
    n_user_errs = cap_user_errs = 0;
}

RM_ALIAS(Add_error_class)
int PMPI_Add_error_class(int *errorclass)
{
    MPI_BEGIN("MPI_Add_error_class");
    CHECK_ARG(NULL, errorclass, "errorclass is NULL");
    int code = err_user_add(-1);
    if (code < 0)
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "no room for another error class");
    *errorclass = code;
    MPI_END();
}

RM_ALIAS(Add_error_code)
int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    MPI_BEGIN("MPI_Add_error_code");
    CHECK_ARG(NULL, errorcode, "errorcode is NULL");
    user_err_t *u = err_user_find(errorclass);
    if (u ? u->cls != u->code : !mpi_err_class_name(errorclass) || errorclass == MPI_SUCCESS)
        MPI_FAIL(NULL, MPI_ERR_ARG, "%d is not an error class", errorclass);
    int code = err_user_add(errorclass);
    if (code < 0)
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "no room for another error code");
    *errorcode = code;
    MPI_END();
}

RM_ALIAS(Add_error_string)
int PMPI_Add_error_string(int errorcode, const char *string)
{
    MPI_BEGIN("MPI_Add_error_string");
    CHECK_ARG(NULL, string, "string is NULL");
    user_err_t *u = err_user_find(errorcode);
    if (!u)
        MPI_FAIL(NULL, MPI_ERR_ARG, "%d is not a code or class the application added", errorcode);
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        MPI_FAIL(NULL, MPI_ERR_ARG, "the string is longer than MPI_MAX_ERROR_STRING - 1");
    char *s = strdup(string);
    if (!s)
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
    free(u->str);
    u->str = s;
    MPI_END();
}

/* MPI-4.1 9.5: what was added can be removed, in the reverse order: a
 * string before its code, the codes of a class before the class. */
RM_ALIAS(Remove_error_class)
int PMPI_Remove_error_class(int errorclass)
{
    MPI_BEGIN("MPI_Remove_error_class");
    user_err_t *u = err_user_find(errorclass);
    if (!u || u->cls != u->code)
        MPI_FAIL(NULL, MPI_ERR_ARG, "%d is not an error class the application added", errorclass);
    for (int i = 0; i < n_user_errs; i++)
        if (!user_errs[i].removed && user_errs[i].cls == errorclass && user_errs[i].code != errorclass)
            MPI_FAIL(NULL, MPI_ERR_ARG, "error class %d still has error code %d", errorclass,
                     user_errs[i].code);
    if (u->str)
        MPI_FAIL(NULL, MPI_ERR_ARG, "error class %d still has a string (MPI_Remove_error_string)",
                 errorclass);
    u->removed = 1;
    MPI_END();
}

RM_ALIAS(Remove_error_code)
int PMPI_Remove_error_code(int errorcode)
{
    MPI_BEGIN("MPI_Remove_error_code");
    user_err_t *u = err_user_find(errorcode);
    if (!u || u->cls == u->code)
        MPI_FAIL(NULL, MPI_ERR_ARG, "%d is not an error code the application added", errorcode);
    if (u->str)
        MPI_FAIL(NULL, MPI_ERR_ARG, "error code %d still has a string (MPI_Remove_error_string)",
                 errorcode);
    u->removed = 1;
    MPI_END();
}

RM_ALIAS(Remove_error_string)
int PMPI_Remove_error_string(int errorcode)
{
    MPI_BEGIN("MPI_Remove_error_string");
    user_err_t *u = err_user_find(errorcode);
    if (!u || !u->str)
        MPI_FAIL(NULL, MPI_ERR_ARG, "%d has no string the application added", errorcode);
    free(u->str);
    u->str = NULL;
    MPI_END();
}

/* The Fortran status is MPI_F_STATUS_SIZE integers laid out as MPICH's C
 * status (count low, count high and cancelled, source, tag, error), so the
 * conversions copy. */
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "MPI_Status and the Fortran status differ in size");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
               "MPI_Status fields are not where Fortran expects them");

RM_ALIAS(Status_c2f)
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    MPI_BEGIN("MPI_Status_c2f");
    CHECK_ARG(NULL, c_status && c_status != MPI_STATUS_IGNORE, "c_status is NULL or MPI_STATUS_IGNORE");
    CHECK_ARG(NULL, f_status && f_status != MPI_F_STATUS_IGNORE, "f_status is NULL or MPI_F_STATUS_IGNORE");
    memcpy(f_status, c_status, sizeof *c_status);
    MPI_END();
}

RM_ALIAS(Status_f2c)
int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    MPI_BEGIN("MPI_Status_f2c");
    CHECK_ARG(NULL, f_status && f_status != MPI_F_STATUS_IGNORE, "f_status is NULL or MPI_F_STATUS_IGNORE");
    CHECK_ARG(NULL, c_status && c_status != MPI_STATUS_IGNORE, "c_status is NULL or MPI_STATUS_IGNORE");
    memcpy(c_status, f_status, sizeof *c_status);
    MPI_END();
}
