/* A blocking stream across hosts: rank 0 MPI_Send's COUNT messages of SIZE
 * bytes to rank 1, which receives each and checks every byte before posting
 * the next receive. Then rank 0 prints how many of them went with less than
 * their whole rendezvous window for want of credit (MPI_T
 * proto_rndv_short_windows, element 1) as "short N of COUNT".
 *   stream_credit SIZE COUNT */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char pattern(int msg, size_t i)
{
    return (unsigned char)(msg * 131 + i * 7 + (i >> 12));
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t len = argc > 1 ? strtoul(argv[1], NULL, 0) : 262144;
    int count = argc > 2 ? atoi(argv[2]) : 200;
    if (size != 2 || !len || count < 1) {
        fprintf(stderr, "stream_credit: 2 ranks, SIZE COUNT\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    unsigned char *buf = malloc(len);
    int bad = 0, idx, n = 0;
    unsigned long long v[2] = {0, 0};
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    /* a handle counts from its allocation on */
    if (rank == 0 &&
        (MPI_T_pvar_get_index("proto_rndv_short_windows", MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS ||
         MPI_T_pvar_session_create(&s) != MPI_SUCCESS ||
         MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &n) != MPI_SUCCESS || n != 2)) {
        fprintf(stderr, "FAIL: no proto_rndv_short_windows of 2 elements\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int m = 0; m < count; m++) {
        if (rank == 0) {
            for (size_t i = 0; i < len; i++)
                buf[i] = pattern(m, i);
            MPI_Send(buf, (int)len, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
        } else {
            memset(buf, 0, len);
            MPI_Recv(buf, (int)len, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (size_t i = 0; i < len && !bad; i++)
                if (buf[i] != pattern(m, i)) {
                    fprintf(stderr, "FAIL: message %d byte %zu is %u, not %u\n", m, i, buf[i], pattern(m, i));
                    bad = 1;
                }
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_T_pvar_read(s, h, v);
        MPI_T_pvar_handle_free(s, &h);
        MPI_T_pvar_session_free(&s);
        printf("short %llu of %d\n", v[1], count);
    }
    free(buf);
    MPI_T_finalize();
    MPI_Finalize();
    return bad;
}
