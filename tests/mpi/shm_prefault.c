/* ranks: 1 2 4 */
/* The shared-memory queues mapped in at MPI_Init (RAILMPI_SHM_PREFAULT).
 * Each rank reads /proc/self/smaps after MPI_Init and finds its mappings of
 * the host's segments (/dev/shm/railmpi-JOB-RANK, unlinked by then): its
 * own inbox, and each peer's on its host where its own ring to that peer
 * lies (the cluster suite runs it across hosts too; a multi-host job's
 * health segment, railmpi-JOB-hostN-health-..., is not a queue).
 * With the queues mapped in ahead, the inbox's resident size is the whole
 * segment and each peer's mapping holds at least one ring; without, only
 * the pages the start-up messages touched are resident. The suite runs it
 * three ways (tests/CMakeLists.txt): the default (a host's queues within
 * 64 MiB: mapped in), RAILMPI_SHM_PREFAULT=0, and a bound smaller than the
 * host's queues; SHM_PREFAULT_EXPECT=off says the last two expect none.
 * Then every pair exchanges messages over a lap of its ring, and they
 * arrive whole either way. */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <string.h>

static int rank;

typedef struct {
    int rank;     /* whose segment */
    long size_kb; /* the mapping's size */
    long rss_kb;  /* its pages mapped in this process */
} seg_map_t;

/* This process's mappings of railmpi's shared-memory segments. */
static int read_maps(seg_map_t *maps, int max)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    CHECK(f, "cannot open /proc/self/smaps");
    char line[512];
    int n = 0, in_seg = 0;
    while (fgets(line, sizeof line, f)) {
        const char *name = strstr(line, "/railmpi-");
        if (name && strstr(name, "-host"))
            name = NULL; /* the host's health segment */
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in_seg = 0;
            if (name && n < max) {
                const char *dash = strrchr(name, '-');
                maps[n] = (seg_map_t){.rank = atoi(dash + 1), .size_kb = (long)((hi - lo) >> 10), .rss_kb = -1};
                in_seg = 1;
                n++;
            }
            continue;
        }
        long kb;
        if (in_seg && sscanf(line, "Rss: %ld kB", &kb) == 1)
            maps[n - 1].rss_kb = kb;
    }
    fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *expect = getenv("SHM_PREFAULT_EXPECT");
    int ahead = !(expect && !strcmp(expect, "off"));

    seg_map_t maps[64];
    int n = read_maps(maps, 64);
    MPI_Comm node;
    int nlocal;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nlocal);
    MPI_Comm_free(&node);
    if (nlocal > 1) {
        /* the own inbox and every peer's on this host */
        CHECK(n == nlocal, "%d shared-memory segments mapped, expected %d", n, nlocal);
        long ring_kb = 0;
        for (int i = 0; i < n; i++)
            if (maps[i].rank == rank)
                ring_kb = maps[i].size_kb / nlocal; /* a ring per local sender, and a little header */
        CHECK(ring_kb >= 16, "no inbox of my own among the mappings");
        for (int i = 0; i < n; i++) {
            const seg_map_t *m = &maps[i];
            CHECK(m->rss_kb >= 0, "no resident size for rank %d's segment", m->rank);
            long want = m->rank == rank ? m->size_kb * 9 / 10 : ring_kb * 9 / 10;
            if (ahead)
                CHECK(m->rss_kb >= want, "rank %d's segment: %ld KiB of %ld resident, expected at least %ld",
                      m->rank, m->rss_kb, m->size_kb, want);
            else
                CHECK(m->rss_kb < ring_kb / 4, "rank %d's segment: %ld KiB resident (of %ld) without mapping ahead",
                      m->rank, m->rss_kb, m->size_kb);
        }
    } else {
        CHECK(n == 0, "a rank alone on its host mapped %d shared-memory segments", n);
    }

    /* a lap and a half of each ring (1 MiB rings, 128-byte frames: 8192 a lap) */
    enum { MSGS = 12288 };
    for (int step = 1; step < size; step++) {
        int to = (rank + step) % size, from = (rank - step + size) % size;
        for (int i = 0; i < MSGS; i++) {
            int out[2] = {rank, i}, in[2] = {-1, -1};
            MPI_Sendrecv(out, 2, MPI_INT, to, 7, in, 2, MPI_INT, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(in[0] == from && in[1] == i, "message %d from %d arrived as {%d, %d}", i, from, in[0], in[1]);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("shm_prefault: %d ranks, %d on rank 0's host, queues %s\n", size, nlocal,
               nlocal == 1 ? "none" : ahead ? "mapped in ahead" : "mapped as touched");
    MPI_Finalize();
    return 0;
}
