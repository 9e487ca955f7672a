/* Errors through the standard ABI: error classes are the ABI's numbers
 * (MPI_ERR_RANK is 6 there, 6 in MPICH too, but MPI_ERR_TAG, MPI_ERR_COMM,
 * MPI_ERR_REQUEST ... differ), MPI_ERRORS_RETURN and MPI_ERRORS_ARE_FATAL
 * come back from MPI_Comm_get_errhandler, error strings, added classes and
 * codes, MPI_Abi_get_version/MPI_Abi_get_info. 2 ranks. */
#include <mpi.h>
#include <string.h>
#include "std_check.h"

static MPI_Comm seen_comm = MPI_COMM_NULL;
static int seen_code = -1;
static MPI_File seen_file;

/* user error handlers: they see the ABI's handles and error classes */
static void comm_eh(MPI_Comm *comm, int *code, ...)
{
    seen_comm = *comm;
    seen_code = *code;
}

static void file_eh(MPI_File *fh, int *code, ...)
{
    seen_file = *fh;
    seen_code = *code;
}

static void expect(int rc, int want, const char *what)
{
    int cls = -1;
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == want, "%s: class %d, want %d", what, cls, want);
}

int main(int argc, char **argv)
{
#ifdef MPI_ABI_VERSION /* the standard ABI only */
    int major = 0, minor = 0;
    OK(MPI_Abi_get_version(&major, &minor));
    CHECK(major == 1 && minor == 0, "MPI_Abi_get_version %d.%d", major, minor);
#endif
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &std_rank));
    MPI_Errhandler eh;
    OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default error handler is not MPI_ERRORS_ARE_FATAL");
    OK(MPI_Errhandler_free(&eh));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "error handler is not MPI_ERRORS_RETURN");
    OK(MPI_Errhandler_free(&eh));

    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
    CHECK(rc != MPI_SUCCESS, "send to rank 99 succeeded");
    expect(rc, MPI_ERR_RANK, "invalid rank");
    expect(MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD), MPI_ERR_TAG, "invalid tag");
    expect(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "negative count");
    expect(MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "null datatype");
    /* errors that no object names go to MPI_COMM_SELF's handler */
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Request rq = MPI_REQUEST_NULL;
    expect(MPI_Start(&rq), MPI_ERR_REQUEST, "start of MPI_REQUEST_NULL");
    int cls = -1;
    rc = MPI_Comm_size(MPI_COMM_NULL, &x);
    expect(rc, MPI_ERR_COMM, "MPI_COMM_NULL");
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    OK(MPI_Error_string(MPI_ERR_RANK, s, &len));
    CHECK(len > 0 && (int)strlen(s) == len, "Error_string of MPI_ERR_RANK: '%s'", s);
    char s2[MPI_MAX_ERROR_STRING];
    OK(MPI_Error_string(MPI_ERR_TAG, s2, &len));
    CHECK(strcmp(s, s2) != 0, "MPI_ERR_RANK and MPI_ERR_TAG have the same string");
    OK(MPI_Error_class(MPI_ERR_IN_STATUS, &cls));
    CHECK(cls == MPI_ERR_IN_STATUS, "class of MPI_ERR_IN_STATUS %d", cls);

    int newcls, code, *last, flag;
    OK(MPI_Add_error_class(&newcls));
    OK(MPI_Add_error_code(newcls, &code));
    OK(MPI_Add_error_string(code, "a code of our own"));
    CHECK(newcls > MPI_ERR_LASTCODE && code > MPI_ERR_LASTCODE, "added values %d %d", newcls, code);
    OK(MPI_Error_class(code, &cls));
    CHECK(cls == newcls, "class of the added code %d", cls);
    OK(MPI_Error_string(code, s, &len));
    CHECK(strcmp(s, "a code of our own") == 0, "string of the added code '%s'", s);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= code, "MPI_LASTUSEDCODE");
    OK(MPI_Add_error_code(MPI_ERR_ARG, &code));
    OK(MPI_Error_class(code, &cls));
    CHECK(cls == MPI_ERR_ARG, "class of a code added to MPI_ERR_ARG %d", cls);
    OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER));

    MPI_Errhandler mine;
    MPI_Comm dup;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_create_errhandler(comm_eh, &mine));
    OK(MPI_Comm_set_errhandler(dup, mine));
    rc = MPI_Send(&x, 1, MPI_INT, 0, -7, dup);
    expect(rc, MPI_ERR_TAG, "tag through a user handler");
    CHECK(seen_comm == dup && seen_code != -1, "user handler saw another communicator");
    expect(seen_code, MPI_ERR_TAG, "code the user handler saw");
    OK(MPI_Comm_call_errhandler(dup, MPI_ERR_REQUEST));
    CHECK(seen_code == MPI_ERR_REQUEST, "call_errhandler: the handler saw %d", seen_code);
    OK(MPI_Errhandler_free(&mine));
    OK(MPI_Comm_free(&dup));
    OK(MPI_File_create_errhandler(file_eh, &mine));
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, mine));
    MPI_File fh;
    rc = MPI_File_open(MPI_COMM_SELF, "/nonexistent-dir/x", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(rc != MPI_SUCCESS && seen_file == MPI_FILE_NULL, "file handler: rc %d", rc);
    expect(seen_code, MPI_ERR_NO_SUCH_FILE, "code the file handler saw");
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    OK(MPI_Errhandler_free(&mine));

    /* a spawn that fails: its class and every process's error code are the
     * ABI's MPI_ERR_SPAWN (errors return on MPI_COMM_WORLD, above) */
    int codes[3] = {-7, -7, -7};
    MPI_Comm child = MPI_COMM_WORLD;
    rc = MPI_Comm_spawn("./railmpi-no-such-program", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                        &child, codes);
    expect(rc, MPI_ERR_SPAWN, "class of a failed spawn");
    CHECK(codes[0] == MPI_ERR_SPAWN && codes[1] == MPI_ERR_SPAWN && codes[2] == -7,
          "a failed spawn's codes %d %d %d, not MPI_ERR_SPAWN (%d)", codes[0], codes[1], codes[2], MPI_ERR_SPAWN);
    CHECK(child == MPI_COMM_NULL, "a failed spawn's intercommunicator");

#ifdef MPI_ABI_VERSION
    MPI_Info info;
    OK(MPI_Abi_get_info(&info));
    char v[MPI_MAX_INFO_VAL];
    OK(MPI_Info_get(info, "mpi_aint_size", sizeof v - 1, v, &flag));
    CHECK(flag && atoi(v) == (int)sizeof(MPI_Aint), "mpi_aint_size %s", flag ? v : "");
    OK(MPI_Info_free(&info));
#endif
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (std_rank == 0)
        printf("OK\n");
    OK(MPI_Finalize());
    return 0;
}
