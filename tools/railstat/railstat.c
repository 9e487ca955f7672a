/* railstat: per-rail traffic of a job, printed by rank 0 at MPI_Finalize.
 * A profiling library built only on PMPI and MPI_T, so it works with any
 * program unchanged:
 *     mpiexec -genv LD_PRELOAD /opt/railmpi/lib/librailstat.so -n 4 ./prog
 * or linked before the MPI library (mpicc prog.c -lrailstat). Each rank
 * allocates its handles at MPI_Init, reads them at MPI_Finalize, and the
 * figures are summed over the ranks. RAILSTAT_PER_RANK=1 also prints each
 * rank's own line. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RS_MAX_RAILS 16

static const struct {
    const char *pvar, *title;
    int timer;
} rs_cols[] = {
    {"rail_tx_bytes", "sent MB", 0},
    {"rail_rx_bytes", "received MB", 0},
    {"rail_tx_frames", "frames sent", 0},
    {"rail_resent_frames", "resent", 0},
    {"rail_failures", "failures", 0},
    {"rail_recoveries", "recoveries", 0},
    {"rail_heartbeat_misses", "hb misses", 0},
    {"rail_down_time", "down s", 1},
};
#define RS_NCOLS ((int)(sizeof rs_cols / sizeof rs_cols[0]))

/* railmpi judges health per remote host and rail, once for all of a host's
 * ranks: rank 0 prints its host's view, summed over the remote hosts */
static const char *const rs_host_pvars[] = {"rail_host_probes", "rail_host_failures"};
#define RS_NHOST 2
static MPI_T_pvar_handle rs_host_handle[RS_NHOST];
static int rs_host_count[RS_NHOST];

static MPI_T_pvar_session rs_session = MPI_T_PVAR_SESSION_NULL;
static MPI_T_pvar_handle rs_handle[RS_NCOLS];
static int rs_count[RS_NCOLS];
static int rs_ready;

static void rs_start(void)
{
    int provided;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS ||
        MPI_T_pvar_session_create(&rs_session) != MPI_SUCCESS) {
        fprintf(stderr, "railstat: the MPI library offers no MPI_T sessions; nothing will be printed\n");
        return;
    }
    for (int c = 0; c < RS_NCOLS; c++) {
        int idx, cls = rs_cols[c].timer ? MPI_T_PVAR_CLASS_TIMER : MPI_T_PVAR_CLASS_COUNTER;
        rs_handle[c] = MPI_T_PVAR_HANDLE_NULL;
        if (MPI_T_pvar_get_index(rs_cols[c].pvar, cls, &idx) != MPI_SUCCESS ||
            MPI_T_pvar_handle_alloc(rs_session, idx, NULL, &rs_handle[c], &rs_count[c]) != MPI_SUCCESS) {
            fprintf(stderr, "railstat: no performance variable %s in this MPI library\n", rs_cols[c].pvar);
            rs_handle[c] = MPI_T_PVAR_HANDLE_NULL;
            rs_count[c] = 0;
        }
        if (rs_count[c] > RS_MAX_RAILS)
            rs_count[c] = RS_MAX_RAILS;
    }
    for (int c = 0; c < RS_NHOST; c++) {
        int idx;
        rs_host_handle[c] = MPI_T_PVAR_HANDLE_NULL;
        rs_host_count[c] = 0;
        if (MPI_T_pvar_get_index(rs_host_pvars[c], MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS ||
            MPI_T_pvar_handle_alloc(rs_session, idx, NULL, &rs_host_handle[c], &rs_host_count[c]) != MPI_SUCCESS)
            rs_host_handle[c] = MPI_T_PVAR_HANDLE_NULL; /* another MPI: no host view */
    }
    rs_ready = 1;
}

/* Rank 0's host: probes and failures per rail over every remote host. */
static void rs_report_hosts(int nrails)
{
    unsigned long long sum[RS_NHOST][RS_MAX_RAILS];
    memset(sum, 0, sizeof sum);
    for (int c = 0; c < RS_NHOST; c++) {
        int n = rs_host_count[c];
        if (rs_host_handle[c] == MPI_T_PVAR_HANDLE_NULL || n <= 0 || nrails <= 0 || n % nrails)
            return;
        unsigned long long *v = calloc((size_t)n, sizeof *v);
        if (!v || MPI_T_pvar_read(rs_session, rs_host_handle[c], v) != MPI_SUCCESS) {
            free(v);
            return;
        }
        for (int e = 0; e < n; e++)
            if (e % nrails < RS_MAX_RAILS)
                sum[c][e % nrails] += v[e];
        free(v);
    }
    for (int r = 0; r < nrails && r < RS_MAX_RAILS; r++)
        printf("railstat: hosts rail %d: probes %llu, failures %llu (rank 0's host, over every remote host)\n", r,
               sum[0][r], sum[1][r]);
}

int MPI_Init(int *argc, char ***argv)
{
    int err = PMPI_Init(argc, argv);
    if (err == MPI_SUCCESS)
        rs_start();
    return err;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int err = PMPI_Init_thread(argc, argv, required, provided);
    if (err == MPI_SUCCESS)
        rs_start();
    return err;
}

static void rs_report(void)
{
    int rank, size, nrails = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    double mine[RS_NCOLS][RS_MAX_RAILS], all[RS_NCOLS][RS_MAX_RAILS];
    memset(mine, 0, sizeof mine);
    for (int c = 0; c < RS_NCOLS; c++) {
        if (rs_handle[c] == MPI_T_PVAR_HANDLE_NULL)
            continue;
        if (rs_count[c] > nrails)
            nrails = rs_count[c];
        if (rs_cols[c].timer) {
            double v[RS_MAX_RAILS] = {0};
            double *buf = rs_count[c] <= RS_MAX_RAILS ? v : NULL;
            if (buf && MPI_T_pvar_read(rs_session, rs_handle[c], buf) == MPI_SUCCESS)
                for (int r = 0; r < rs_count[c]; r++)
                    mine[c][r] = v[r];
        } else {
            unsigned long long v[RS_MAX_RAILS] = {0};
            if (MPI_T_pvar_read(rs_session, rs_handle[c], v) == MPI_SUCCESS)
                for (int r = 0; r < rs_count[c]; r++)
                    mine[c][r] = (double)v[r] / (c < 2 ? 1e6 : 1.0);
        }
    }
    if (getenv("RAILSTAT_PER_RANK") && atoi(getenv("RAILSTAT_PER_RANK")))
        for (int r = 0; r < nrails; r++)
            printf("railstat: rank %d rail %d: sent %.3f MB, received %.3f MB, failures %.0f, recoveries %.0f\n",
                   rank, r, mine[0][r], mine[1][r], mine[4][r], mine[5][r]);
    int most;
    PMPI_Allreduce(&nrails, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    PMPI_Reduce(mine, all, RS_NCOLS * RS_MAX_RAILS, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    printf("railstat: %d ranks, %d network rails (sums over ranks)\n", size, most);
    printf("railstat: %-5s", "rail");
    for (int c = 0; c < RS_NCOLS; c++)
        printf(" %12s", rs_cols[c].title);
    printf("\n");
    for (int r = 0; r < most; r++) {
        printf("railstat: %-5d", r);
        for (int c = 0; c < RS_NCOLS; c++)
            printf(c < 2 || rs_cols[c].timer ? " %12.3f" : " %12.0f", all[c][r]);
        printf("\n");
    }
    rs_report_hosts(most);
    fflush(stdout);
}

int MPI_Finalize(void)
{
    if (rs_ready) {
        rs_report();
        MPI_T_pvar_session_free(&rs_session);
        MPI_T_finalize();
        rs_ready = 0;
    }
    return PMPI_Finalize();
}
