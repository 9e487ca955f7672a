/* The shm transport between two real processes: ordering, payload
 * integrity across ring wrap-around, back-pressure when the ring is full,
 * single-copy reads, and no segment left behind in /dev/shm. */
#include "net/net.h"
#include "util/config.h"

#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FAIL(...) do { printf("FAIL[%d]: ", getpid()); printf(__VA_ARGS__); printf("\n"); fflush(stdout); _exit(1); } while (0)

enum { NFRAMES = 20000 };

static int got, bad;
static uint64_t expect_seq = 1;
static unsigned char big[1 << 20];

static void on_recv(void *owner, int rail, const net_frame_hdr_t *hdr, const void *upper, const void *payload)
{
    if (hdr->seq != expect_seq)
        FAIL("frame seq %llu, expected %llu", (unsigned long long)hdr->seq, (unsigned long long)expect_seq);
    expect_seq++;
    uint32_t n;
    memcpy(&n, upper, sizeof n);
    if (hdr->len != n % 3000)
        FAIL("frame %u: len %u, expected %u", n, hdr->len, n % 3000);
    const unsigned char *p = payload;
    for (uint32_t i = 0; i < hdr->len; i++)
        if (p[i] != (unsigned char)(n + i))
            bad++;
    got++;
}

static void on_error(void *owner, int rail, rm_status_t why)
{
    FAIL("transport error on rail %d: %s", rail, rm_status_str(why));
}

static int node_of[2] = {0, 0};
static char jobid[64]; /* one per test run, so parallel runs never collide */

static void run(int rank, int syncfd_r, int syncfd_w)
{
    rm_config_load();
    net_env_t env = {.world_rank = rank, .world_size = 2, .node_of = node_of, .node = 0,
                     .job_id = "unit-shm", .up = {.recv = on_recv, .error = on_error}};
    env.job_id = jobid;
    const net_ops_t *ops = net_transport_find("shm");
    if (!ops)
        FAIL("shm transport missing");
    net_iface_t *ifc;
    if (ops->open(&env, 0, &ifc) != RM_OK)
        FAIL("open");
    char addr[128], peer_addr[128];
    ops->addr_pack(ifc, addr, sizeof addr);
    /* exchange names through the pipes (what the launcher's KVS does) */
    if (write(syncfd_w, addr, sizeof addr) != sizeof addr || read(syncfd_r, peer_addr, sizeof peer_addr) != sizeof peer_addr)
        FAIL("exchange");
    net_path_t *path;
    if (ops->connect(ifc, !rank, peer_addr, NULL, &path) != RM_OK)
        FAIL("connect");
    char c = 1;
    if (write(syncfd_w, &c, 1) != 1 || read(syncfd_r, &c, 1) != 1)
        FAIL("sync");
    ops->ready(ifc);

    if (rank == 0) {
        unsigned char buf[3000];
        int full = 0;
        for (uint32_t n = 0; n < NFRAMES; n++) {
            net_frame_hdr_t h = {.seq = n + 1, .len = n % 3000, .hlen = sizeof n};
            for (uint32_t i = 0; i < h.len; i++)
                buf[i] = (unsigned char)(n + i);
            struct iovec iov = {buf, h.len};
            rm_status_t st;
            while ((st = ops->send(path, &h, &n, &iov, 1)) == RM_ERR_NO_RESOURCE) {
                if (!full++ && write(syncfd_w, &c, 1) != 1) /* the receiver starts reading now */
                    FAIL("full sync");
                ops->progress(ifc);
            }
            if (st != RM_OK)
                FAIL("send %u: %s", n, rm_status_str(st));
        }
        if (!full)
            FAIL("the receiver never fell behind: back-pressure untested");
        /* the peer reads our big buffer by single copy */
        for (size_t i = 0; i < sizeof big; i++)
            big[i] = (unsigned char)(i * 7);
        uint64_t a = (uint64_t)(uintptr_t)big;
        if (write(syncfd_w, &a, sizeof a) != sizeof a || read(syncfd_r, &c, 1) != 1)
            FAIL("cma sync");
    } else {
        /* read nothing until the sender has found the ring full: the frames
         * outweigh any ring, so back-pressure is met whatever the speeds */
        if (read(syncfd_r, &c, 1) != 1)
            FAIL("the sender never found the ring full");
        while (got < NFRAMES)
            ops->progress(ifc);
        if (bad)
            FAIL("%d corrupted bytes", bad);
        uint64_t a;
        if (read(syncfd_r, &a, sizeof a) != sizeof a)
            FAIL("cma addr");
        rm_status_t st = ops->read_remote(path, big, a, sizeof big);
        if (st == RM_OK) {
            for (size_t i = 0; i < sizeof big; i++)
                if (big[i] != (unsigned char)(i * 7))
                    FAIL("single-copy byte %zu differs", i);
        } else if (st != RM_ERR_UNSUPPORTED) {
            FAIL("read_remote: %s", rm_status_str(st));
        }
        if (write(syncfd_w, &c, 1) != 1)
            FAIL("cma done");
    }
    ops->path_close(path);
    ops->close(ifc);
}

int main(void)
{
    int a[2], b[2];
    if (pipe(a) || pipe(b))
        return 1;
    alarm(30);
    snprintf(jobid, sizeof jobid, "unit-shm-%d", (int)getpid());
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the test */
        alarm(30);
        run(1, a[0], b[1]);
        _exit(0);
    }
    run(0, b[0], a[1]);
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        FAIL("receiver failed");
    for (int r = 0; r < 2; r++) {
        char path[128];
        snprintf(path, sizeof path, "/dev/shm/railmpi-%s-%d", jobid, r);
        if (access(path, F_OK) == 0)
            FAIL("%s left behind", path);
    }
    printf("OK\n");
    return 0;
}
