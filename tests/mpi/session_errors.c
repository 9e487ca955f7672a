/* ranks: 1 2 */
/* Bad input to the session calls gets the standard's error classes and no
 * crash: an invalid or finalized session (MPI_ERR_SESSION, raised where
 * errors tied to no object go: MPI_COMM_WORLD's handler here), a NULL
 * argument, a process set index or name that does not exist (MPI_ERR_ARG),
 * an invalid error handler (MPI_ERR_ERRHANDLER), an invalid group or one
 * without the caller (MPI_ERR_GROUP), a NULL or too long string tag; a
 * session's own handler gets the session and the code, and an empty group
 * gives MPI_COMM_NULL. */
#include "check.h"

#include <string.h>

static int rank = -1, calls, last_code;
static MPI_Session last_session;

static void on_error(MPI_Session *s, int *code, ...)
{
    calls++;
    last_session = *s;
    last_code = *code;
}

static int cls(int err)
{
    int c = -1;
    MPI_Error_class(err, &c);
    return c;
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Session s, dead;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL) == MPI_ERR_ARG, "NULL session");
    CHECK(cls(MPI_Session_init(MPI_INFO_NULL, (MPI_Errhandler)0x12345, &s)) == MPI_ERR_ERRHANDLER,
          "bad errhandler");
    MPI_Info bad;
    MPI_Info_create(&bad);
    MPI_Info_set(bad, "thread_level", "MPI_THREAD_SOMETIMES");
    CHECK(cls(MPI_Session_init(bad, MPI_ERRORS_RETURN, &s)) == MPI_ERR_ARG, "bad thread_level");
    MPI_Info_free(&bad);
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &dead) == MPI_SUCCESS, "init");
    CHECK(MPI_Session_finalize(&dead) == MPI_SUCCESS, "finalize");
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS, "init");

    int n;
    CHECK(cls(MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n)) == MPI_ERR_SESSION, "null");
    CHECK(cls(MPI_Session_get_num_psets((MPI_Session)0x12345, MPI_INFO_NULL, &n)) == MPI_ERR_SESSION,
          "garbage session");
    MPI_Session s0 = MPI_SESSION_NULL;
    CHECK(cls(MPI_Session_finalize(&s0)) == MPI_ERR_SESSION, "finalize null");
    CHECK(cls(MPI_Session_get_num_psets(s, MPI_INFO_NULL, NULL)) == MPI_ERR_ARG, "NULL npsets");
    int len = 0;
    CHECK(cls(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 99, &len, NULL)) == MPI_ERR_ARG, "index 99");
    CHECK(cls(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, -1, &len, NULL)) == MPI_ERR_ARG, "index -1");
    MPI_Info info;
    CHECK(cls(MPI_Session_get_pset_info(s, "mpi://NOWHERE", &info)) == MPI_ERR_ARG, "pset info name");
    MPI_Group g;
    CHECK(cls(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g)) == MPI_ERR_ARG, "pset name");
    CHECK(cls(MPI_Group_from_session_pset(s, NULL, &g)) == MPI_ERR_ARG, "NULL pset name");
    CHECK(cls(MPI_Session_set_errhandler(s, (MPI_Errhandler)0x12345)) == MPI_ERR_ERRHANDLER, "set bad eh");
    CHECK(cls(MPI_Session_get_info(s, NULL)) == MPI_ERR_ARG, "NULL info_used");

    /* the session's own handler */
    MPI_Errhandler eh, got;
    CHECK(MPI_Session_create_errhandler(on_error, &eh) == MPI_SUCCESS, "create eh");
    CHECK(MPI_Session_set_errhandler(s, eh) == MPI_SUCCESS, "set eh");
    MPI_Errhandler_free(&eh);
    CHECK(MPI_Session_get_errhandler(s, &got) == MPI_SUCCESS && got != MPI_ERRHANDLER_NULL, "get eh");
    MPI_Errhandler_free(&got);
    CHECK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER) == MPI_SUCCESS, "call");
    CHECK(calls == 1 && last_session == s && last_code == MPI_ERR_OTHER, "handler: %d calls, code %d",
          calls, last_code);
    CHECK(cls(MPI_Group_from_session_pset(s, "mpi://nowhere", &g)) == MPI_ERR_ARG, "via handler");
    CHECK(calls == 2 && last_code == MPI_ERR_ARG, "handler: %d calls, code %d", calls, last_code);
    MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN);

    /* MPI_Comm_create_from_group */
    MPI_Comm c;
    CHECK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g) == MPI_SUCCESS, "group");
    CHECK(cls(MPI_Comm_create_from_group(MPI_GROUP_NULL, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c)) ==
              MPI_ERR_GROUP, "null group");
    CHECK(cls(MPI_Comm_create_from_group(g, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c)) == MPI_ERR_ARG,
          "NULL tag");
    char longtag[MPI_MAX_STRINGTAG_LEN + 8];
    memset(longtag, 'x', sizeof longtag - 1);
    longtag[sizeof longtag - 1] = 0;
    CHECK(cls(MPI_Comm_create_from_group(g, longtag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c)) == MPI_ERR_ARG,
          "long tag");
    CHECK(cls(MPI_Comm_create_from_group(g, "t", MPI_INFO_NULL, (MPI_Errhandler)0x12345, &c)) ==
              MPI_ERR_ERRHANDLER, "bad errhandler");
    CHECK(cls(MPI_Comm_create_from_group(g, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL)) == MPI_ERR_ARG,
          "NULL newcomm");
    CHECK(MPI_Comm_create_from_group(MPI_GROUP_EMPTY, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) ==
              MPI_SUCCESS && c == MPI_COMM_NULL, "empty group");
    if (size > 1) {
        /* a group of the other rank only */
        MPI_Group other;
        int them = 1 - rank;
        MPI_Group_incl(g, 1, &them, &other);
        CHECK(cls(MPI_Comm_create_from_group(other, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c)) ==
                  MPI_ERR_GROUP, "not a member");
        MPI_Group_free(&other);
    }
    MPI_Group_free(&g);
    CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS, "finalize");
    CHECK(cls(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n)) == MPI_ERR_SESSION, "finalized session");
    char str[MPI_MAX_ERROR_STRING];
    int slen;
    CHECK(MPI_Error_string(MPI_ERR_SESSION, str, &slen) == MPI_SUCCESS && strstr(str, "MPI_ERR_SESSION"),
          "error string");
    if (rank == 0)
        printf("OK\n");
    MPI_Finalize();
    return 0;
}
