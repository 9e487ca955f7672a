/* ranks: 2 4 */
/* MPI-4.1's session buffer (MPI_Session_attach_buffer/detach/flush/iflush)
 * in a program that never calls MPI_Init, so no process buffer exists: a
 * buffered send on a communicator of the session goes through the session's
 * buffer, also on communicators derived from it (MPI_Comm_dup, a group taken
 * from the communicator, MPI_Group_incl of the session's group); a
 * communicator's own buffer comes first; after the detach, a buffered send
 * fails with MPI_ERR_BUFFER; a communicator from another session does not
 * see the buffer. */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <string.h>

static int rank;

static MPI_Comm world_of(MPI_Session s, const char *tag)
{
    MPI_Group g;
    MPI_Comm c;
    CHECK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g) == MPI_SUCCESS, "group");
    CHECK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) == MPI_SUCCESS, "comm");
    MPI_Group_free(&g);
    return c;
}

/* a ring step by MPI_Bsend; its error class */
static int ring_bsend(MPI_Comm c, int value)
{
    int size, r, got = -1;
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &r);
    int err = MPI_Bsend(&value, 1, MPI_INT, (r + 1) % size, 7, c), cls = MPI_SUCCESS;
    MPI_Error_class(err, &cls);
    int ok = cls == MPI_SUCCESS, all;
    /* every rank learns whether every send went out before anyone receives */
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c);
    if (all) {
        MPI_Recv(&got, 1, MPI_INT, (r + size - 1) % size, 7, c, MPI_STATUS_IGNORE);
        CHECK(got == value, "ring value %d, expected %d", got, value);
    }
    return cls;
}

int main(void)
{
    MPI_Session s, other;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS, "session init");
    MPI_Comm c = world_of(s, "railmpi.test.session_bsend");
    MPI_Comm_rank(c, &rank);

    /* no buffer anywhere: MPI_ERR_BUFFER */
    int cls = ring_bsend(c, 1);
    CHECK(cls == MPI_ERR_BUFFER, "a buffered send with no buffer: class %d", cls);

    int need;
    MPI_Pack_size(1, MPI_INT, c, &need);
    int len = 8 * (need + MPI_BSEND_OVERHEAD);
    char *buf = malloc((size_t)len);
    CHECK(MPI_Session_attach_buffer(s, buf, len) == MPI_SUCCESS, "attach");
    CHECK(ring_bsend(c, 2) == MPI_SUCCESS, "a buffered send through the session's buffer");

    /* derived communicators: a dup; one from the communicator's group; one from an incl */
    MPI_Comm d, e, f;
    MPI_Comm_dup(c, &d);
    CHECK(ring_bsend(d, 3) == MPI_SUCCESS, "on a dup");
    MPI_Group cg, sg, ig;
    MPI_Comm_group(c, &cg);
    CHECK(MPI_Comm_create_from_group(cg, "railmpi.test.session_bsend.e", MPI_INFO_NULL, MPI_ERRORS_RETURN, &e) ==
              MPI_SUCCESS, "from the communicator's group");
    CHECK(ring_bsend(e, 4) == MPI_SUCCESS, "on a communicator from the communicator's group");
    MPI_Group_from_session_pset(s, "mpi://WORLD", &sg);
    int size;
    MPI_Group_size(sg, &size);
    int *ranks = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        ranks[i] = size - 1 - i;
    MPI_Group_incl(sg, size, ranks, &ig);
    CHECK(MPI_Comm_create_from_group(ig, "railmpi.test.session_bsend.f", MPI_INFO_NULL, MPI_ERRORS_RETURN, &f) ==
              MPI_SUCCESS, "from an incl");
    CHECK(ring_bsend(f, 5) == MPI_SUCCESS, "on a communicator from MPI_Group_incl");

    /* flush and iflush */
    CHECK(MPI_Session_flush_buffer(s) == MPI_SUCCESS, "flush");
    MPI_Request fr;
    CHECK(MPI_Session_iflush_buffer(s, &fr) == MPI_SUCCESS && MPI_Wait(&fr, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "iflush");

    /* a second buffer on the session: MPI_ERR_BUFFER */
    char spare[64];
    int err = MPI_Session_attach_buffer(s, spare, sizeof spare);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "a second session buffer: class %d", cls);

    /* another session sees none of it */
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &other) == MPI_SUCCESS, "second session");
    MPI_Comm o = world_of(other, "railmpi.test.session_bsend.other");
    cls = ring_bsend(o, 6);
    CHECK(cls == MPI_ERR_BUFFER, "another session's communicator used this session's buffer (class %d)", cls);

    /* the communicator's own buffer comes first: the session's is detached
     * and still the send goes */
    char *cbuf = malloc((size_t)len);
    MPI_Comm_attach_buffer(d, cbuf, len);
    void *back;
    int backlen;
    CHECK(MPI_Session_detach_buffer(s, &back, &backlen) == MPI_SUCCESS && back == buf && backlen == len,
          "detach: %p %d, attached %p %d", back, backlen, (void *)buf, len);
    CHECK(ring_bsend(d, 7) == MPI_SUCCESS, "through the communicator's own buffer");
    cls = ring_bsend(c, 8);
    CHECK(cls == MPI_ERR_BUFFER, "after the detach: class %d", cls);
    CHECK(MPI_Session_detach_buffer(s, &back, &backlen) == MPI_SUCCESS && back == NULL && backlen == 0,
          "detach with none attached");
    MPI_Comm_detach_buffer(d, &back, &backlen);

    /* an automatic buffer */
    CHECK(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS, "automatic");
    CHECK(ring_bsend(f, 9) == MPI_SUCCESS, "through an automatic session buffer");

    /* bad arguments */
    err = MPI_Session_attach_buffer(s, buf, -1);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "negative size: %d", cls);
    err = MPI_Session_iflush_buffer(s, NULL);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "NULL request: %d", cls);

    MPI_Comm_free(&o);
    MPI_Session_finalize(&other);
    MPI_Group_free(&ig);
    MPI_Group_free(&sg);
    MPI_Group_free(&cg);
    MPI_Comm_free(&f);
    MPI_Comm_free(&e);
    MPI_Comm_free(&d);
    MPI_Comm_free(&c);
    MPI_Session_finalize(&s);
    if (rank == 0)
        printf("OK: the session's buffer serves its communicators and no others\n");
    free(ranks);
    free(cbuf);
    free(buf);
    return 0;
}
