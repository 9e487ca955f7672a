/* mpit_failover_log: log every rail event of an unmodified MPI program,
 * built on PMPI and MPI_T events alone.
 *
 *   mpiexec -genv LD_PRELOAD /path/to/libmpit_failover_log.so -n 4 ./prog
 *
 * At MPI_Init (or MPI_Init_thread) it registers a callback for every event
 * type of the "rail" category (a path suspect, failed, up again or
 * migrated; a peer partitioned and back); each event becomes one line
 *
 *   mpit_failover_log: rank 0 t=3.214561 rail_path_failed peer 2 rail 1 reason error
 *
 * on stderr, or appended to the file MPIT_FAILOVER_LOG names ("%r" in the
 * name becomes the rank). t is seconds since MPI_Init on the events' source.
 * The callback formats into a local buffer and write(2)s one line, so it is
 * registered as thread safe and runs the moment the library raises the
 * event, on whichever thread notices the failure. Events that did not fit
 * the library's buffer are logged as a count. docs/mpit.md, "Events". */
#include <mpi.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_EVENTS 32
#define MAX_REASONS 32

static int log_fd = 2, log_rank = -1, nregs;
static MPI_Count t_start, ticks_per_s = 1;
static MPI_T_event_registration regs[MAX_EVENTS];
static char ev_names[MAX_EVENTS][64];
static char reason_names[MAX_EVENTS][MAX_REASONS][32];

static void log_line(const char *line, int len)
{
    if (len > 0 && write(log_fd, line, (size_t)len) < 0)
        return; /* nowhere left to report it */
}

static void on_event(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety safety, void *ud)
{
    (void)r;
    (void)safety;
    int ev = (int)(long)ud, peer = -1, rail = -1, reason = -1;
    MPI_Count ts = 0;
    MPI_T_event_read(e, 0, &peer);
    MPI_T_event_read(e, 1, &rail);
    MPI_T_event_read(e, 2, &reason);
    MPI_T_event_get_timestamp(e, &ts);
    const char *why = reason >= 0 && reason < MAX_REASONS && reason_names[ev][reason][0] ? reason_names[ev][reason]
                                                                                         : "?";
    char line[256];
    int n = snprintf(line, sizeof line, "mpit_failover_log: rank %d t=%.6f %s peer %d rail %d reason %s\n",
                     log_rank, (double)(ts - t_start) / (double)ticks_per_s, ev_names[ev], peer, rail, why);
    log_line(line, n < (int)sizeof line ? n : (int)sizeof line - 1);
}

static void on_dropped(MPI_Count count, MPI_T_event_registration r, int source, MPI_T_cb_safety safety, void *ud)
{
    (void)r;
    (void)source;
    (void)safety;
    char line[160];
    int n = snprintf(line, sizeof line, "mpit_failover_log: rank %d %s: %lld events dropped\n", log_rank,
                     ev_names[(int)(long)ud], (long long)count);
    log_line(line, n);
}

static void open_log(void)
{
    const char *path = getenv("MPIT_FAILOVER_LOG");
    if (!path || !*path)
        return;
    char name[4096];
    const char *r = strstr(path, "%r");
    if (r)
        snprintf(name, sizeof name, "%.*s%d%s", (int)(r - path), path, log_rank, r + 2);
    else
        snprintf(name, sizeof name, "%s", path);
    int fd = open(name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0)
        log_fd = fd;
    else
        fprintf(stderr, "mpit_failover_log: cannot open %s; logging to stderr\n", name);
}

static void start(void)
{
    int provided, cat, nev = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &log_rank);
    open_log();
    if (MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS ||
        MPI_T_category_get_index("rail", &cat) != MPI_SUCCESS ||
        MPI_T_category_get_num_events(cat, &nev) != MPI_SUCCESS) {
        fprintf(stderr, "mpit_failover_log: this MPI has no rail events; nothing to log\n");
        return;
    }
    int idx[MAX_EVENTS];
    if (nev > MAX_EVENTS)
        nev = MAX_EVENTS;
    MPI_T_category_get_events(cat, nev, idx);
    MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, &ticks_per_s, NULL, NULL);
    if (ticks_per_s <= 0)
        ticks_per_s = 1;
    MPI_T_source_get_timestamp(0, &t_start);
    for (int i = 0; i < nev; i++) {
        int len = sizeof ev_names[i], nitems = 0;
        MPI_T_enum et = MPI_T_ENUM_NULL;
        MPI_T_event_get_info(idx[i], ev_names[nregs], &len, NULL, NULL, NULL, NULL, &et, NULL, NULL, NULL, NULL);
        if (et != MPI_T_ENUM_NULL && MPI_T_enum_get_info(et, &nitems, NULL, NULL) == MPI_SUCCESS) {
            for (int k = 0; k < nitems; k++) {
                int v, l = sizeof reason_names[0][0];
                char item[32];
                if (MPI_T_enum_get_item(et, k, &v, item, &l) == MPI_SUCCESS && v >= 0 && v < MAX_REASONS)
                    memcpy(reason_names[nregs][v], item, sizeof item);
            }
        }
        if (MPI_T_event_handle_alloc(idx[i], NULL, MPI_INFO_NULL, &regs[nregs]) != MPI_SUCCESS)
            continue;
        MPI_T_event_register_callback(regs[nregs], MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL,
                                      (void *)(long)nregs, on_event);
        MPI_T_event_set_dropped_handler(regs[nregs], on_dropped);
        nregs++;
    }
}

int MPI_Init(int *argc, char ***argv)
{
    int err = PMPI_Init(argc, argv);
    if (err == MPI_SUCCESS)
        start();
    return err;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int err = PMPI_Init_thread(argc, argv, required, provided);
    if (err == MPI_SUCCESS)
        start();
    return err;
}

int MPI_Finalize(void)
{
    for (int i = 0; i < nregs; i++)
        MPI_T_event_handle_free(regs[i], NULL, NULL);
    if (nregs)
        MPI_T_finalize();
    nregs = 0;
    if (log_fd != 2)
        close(log_fd);
    log_fd = 2;
    return PMPI_Finalize();
}
