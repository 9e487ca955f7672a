/* The PMI-2 client (src/boot/pmi2.c) against a scripted launcher: each case
 * forks a client that runs the boot calls over one end of a socket pair with
 * the environment Slurm's pmi2 plugin gives a task, while this process plays
 * the launcher on the other end, checks every command byte for byte, and
 * answers well or badly. A malformed, truncated, stalled or refused reply
 * must end in an error, never in a hang; PMI_FD without PMI_JOBID, or in
 * Hydra's environment, must still choose PMI-1. */
#include "boot/boot.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int fails;

static void failf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    fails++;
}

/* ---- the launcher's side ------------------------------------------------ */

static int srv_fill(int fd, char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 15000) <= 0)
            return -1;
        ssize_t r = read(fd, buf + got, n - got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

static void srv_expect_line(int fd, const char *want)
{
    char buf[256];
    size_t n = 0;
    while (n + 1 < sizeof buf && srv_fill(fd, buf + n, 1) == 0 && buf[n] != '\n')
        n++;
    buf[n] = 0;
    if (strcmp(buf, want))
        failf("launcher got '%s', expected '%s'", buf, want);
}

static void srv_expect(int fd, const char *want)
{
    char hdr[7] = {0}, body[8192];
    if (srv_fill(fd, hdr, 6) < 0) {
        failf("launcher: no command, expected '%s'", want);
        return;
    }
    int len = atoi(hdr);
    if (len <= 0 || len >= (int)sizeof body || srv_fill(fd, body, (size_t)len) < 0) {
        failf("launcher: bad command header '%s', expected '%s'", hdr, want);
        return;
    }
    body[len] = 0;
    char want_hdr[24];
    snprintf(want_hdr, sizeof want_hdr, "%-6zu", strlen(want));
    if (strcmp(body, want) || strcmp(hdr, want_hdr))
        failf("launcher got '%s%s', expected '%s%s'", hdr, body, want_hdr, want);
}

static void srv_raw(int fd, const char *bytes)
{
    if (write(fd, bytes, strlen(bytes)) < 0)
        failf("launcher: write: %s", strerror(errno));
}

static void srv_send(int fd, const char *body)
{
    char msg[8192];
    snprintf(msg, sizeof msg, "%-6zu%s", strlen(body), body);
    srv_raw(fd, msg);
}

/* until the client hangs up (it exits after its error) */
static void srv_wait_close(int fd)
{
    char c;
    if (srv_fill(fd, &c, 1) == 0)
        failf("launcher: unexpected bytes from the client");
}

static void srv_hello(int fd)
{
    srv_expect_line(fd, "cmd=init pmi_version=2 pmi_subversion=0");
    srv_raw(fd, "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n");
}

static void srv_started(int fd)
{
    srv_hello(fd);
    srv_expect(fd, "cmd=fullinit;pmijobid=7.0;pmirank=1;threaded=FALSE;");
    srv_send(fd, "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=1;size=2;"
                 "appnum=-1;debugged=FALSE;pmiverbose=FALSE;");
    srv_expect(fd, "cmd=job-getid;");
    srv_send(fd, "cmd=job-getid-response;rc=0;jobid=7.0;");
}

/* ---- the cases ---------------------------------------------------------- */

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "client: line %d: %s\n", __LINE__, #cond); return __LINE__ % 200 + 1; } } while (0)

static void srv_full(int fd)
{
    srv_started(fd);
    srv_expect(fd, "cmd=kvs-put;key=rm-host-1;value=a=b,c;");
    srv_send(fd, "cmd=kvs-put-response;rc=0;");
    srv_expect(fd, "cmd=kvs-fence;");
    /* a header padded on the left, and a reply arriving in two pieces */
    char msg[64];
    snprintf(msg, sizeof msg, "%6zu%s", strlen("cmd=kvs-fence-response;rc=0;"),
             "cmd=kvs-fence-response;rc=0;");
    if (write(fd, msg, 16) != 16)
        failf("launcher: short write");
    usleep(50000);
    srv_raw(fd, msg + 16);
    srv_expect(fd, "cmd=kvs-get;jobid=7.0;srcid=-1;key=rm-host-0;");
    srv_send(fd, "cmd=kvs-get-response;rc=0;found=TRUE;value=node0;");
    srv_expect(fd, "cmd=kvs-get;jobid=7.0;srcid=-1;key=missing;");
    srv_send(fd, "cmd=kvs-get-response;rc=0;found=FALSE;");
    srv_expect(fd, "cmd=kvs-get;jobid=7.0;srcid=-1;key=rm-host-0;");
    srv_send(fd, "cmd=kvs-get-response;rc=0;found=TRUE;value=a-value-too-long-for-the-buffer;");
    srv_expect(fd, "cmd=finalize;");
    srv_send(fd, "cmd=finalize-response;rc=0;");
}

static int cli_full(void)
{
    boot_info_t bi;
    char v[16];
    CHECK(boot_init(&bi) == RM_OK);
    CHECK(bi.rank == 1 && bi.size == 2 && bi.appnum == 0 && !bi.singleton);
    CHECK(!strcmp(bi.kvsname, "7.0"));
    CHECK(boot_put("rm-host-1", "a=b,c") == RM_OK);
    /* refused before the wire: ';' ends a PMI-2 value, '=' a key; limits */
    CHECK(boot_put("rm-x", "a;b") == RM_ERR_INVALID);
    CHECK(boot_put("rm=x", "ab") == RM_ERR_INVALID);
    static char big[1100];
    memset(big, 'x', sizeof big - 1);
    CHECK(boot_put("rm-x", big) == RM_ERR_INVALID);
    CHECK(boot_fence() == RM_OK);
    CHECK(boot_get(0, "rm-host-0", v, sizeof v) == RM_OK && !strcmp(v, "node0"));
    CHECK(boot_get(0, "missing", v, sizeof v) == RM_ERR_NOT_FOUND);
    CHECK(boot_get(0, "rm-host-0", v, sizeof v) == RM_ERR_TRUNCATE);
    CHECK(boot_finalize() == RM_OK);
    return 0;
}

/* launcher side: answer fullinit with `reply` (raw bytes), then wait */
static const char *bad_reply;
static size_t bad_reply_len;
static void srv_bad_fullinit(int fd)
{
    srv_hello(fd);
    srv_expect(fd, "cmd=fullinit;pmijobid=7.0;pmirank=1;threaded=FALSE;");
    if (write(fd, bad_reply, bad_reply_len) != (ssize_t)bad_reply_len)
        failf("launcher: short write");
    srv_wait_close(fd);
}

static rm_status_t expect_st;
static int cli_init_fails(void)
{
    boot_info_t bi;
    rm_status_t st = boot_init(&bi);
    if (st != expect_st) {
        fprintf(stderr, "client: boot_init returned %d, expected %d\n", st, expect_st);
        return 1;
    }
    return 0;
}

static void srv_closes_midway(int fd)
{
    srv_hello(fd);
    srv_expect(fd, "cmd=fullinit;pmijobid=7.0;pmirank=1;threaded=FALSE;");
    srv_raw(fd, "50    cmd=fullinit-resp"); /* and the launcher dies */
}

static void srv_no_v2(int fd)
{
    srv_expect_line(fd, "cmd=init pmi_version=2 pmi_subversion=0");
    srv_raw(fd, "cmd=response_to_init rc=1 pmi_version=1 pmi_subversion=1\n");
    srv_wait_close(fd);
}

static void srv_dies_in_fence(int fd)
{
    srv_started(fd);
    srv_expect(fd, "cmd=kvs-fence;");
}

static int cli_fence_fails(void)
{
    boot_info_t bi;
    CHECK(boot_init(&bi) == RM_OK);
    CHECK(boot_fence() == RM_ERR_IO);
    return 0;
}

static void srv_get_no_found(int fd)
{
    srv_started(fd);
    srv_expect(fd, "cmd=kvs-get;jobid=7.0;srcid=-1;key=k;");
    srv_send(fd, "cmd=kvs-get-response;rc=0;value=v;");
    srv_expect(fd, "cmd=kvs-get;jobid=7.0;srcid=-1;key=k;");
    srv_send(fd, "cmd=kvs-get-response;rc=3;errmsg=no such kvs;");
    srv_wait_close(fd);
}

static int cli_get_fails(void)
{
    boot_info_t bi;
    char v[64];
    CHECK(boot_init(&bi) == RM_OK);
    CHECK(boot_get(0, "k", v, sizeof v) == RM_ERR_IO);
    CHECK(boot_get(0, "k", v, sizeof v) == RM_ERR_IO);
    return 0;
}

/* PMI_FD without PMI_JOBID is Hydra or mpiexec: PMI-1 */
static void srv_pmi1(int fd)
{
    srv_expect_line(fd, "cmd=init pmi_version=1 pmi_subversion=1");
    /* then hang up: the client's error is expected */
}

/* jobid: 1 Slurm's environment, 0 no PMI_JOBID, 2 Hydra's with a PMI_JOBID
 * left by an enclosing srun step */
static int run_case(const char *name, void (*srv)(int), int (*cli)(void), int jobid, int max_s)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
        failf("%s: socketpair", name);
        return -1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        char fd[16];
        snprintf(fd, sizeof fd, "%d", sv[1]);
        setenv("PMI_FD", fd, 1);
        setenv("PMI_RANK", "1", 1);
        setenv("PMI_SIZE", "2", 1);
        if (jobid)
            setenv("PMI_JOBID", "7.0", 1);
        else
            unsetenv("PMI_JOBID");
        if (jobid == 2)
            setenv("MPI_LOCALNRANKS", "2", 1);
        else
            unsetenv("MPI_LOCALNRANKS");
        alarm(30); /* a hang is a failure, not a stuck test */
        _exit(cli());
    }
    close(sv[1]);
    int before = fails;
    srv(sv[0]);
    close(sv[0]);
    int st;
    waitpid(pid, &st, 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (!WIFEXITED(st) || WEXITSTATUS(st))
        failf("%s: client %s %d", name, WIFEXITED(st) ? "exited with" : "killed by signal",
              WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    else if (s > max_s)
        failf("%s: took %.1f s (limit %d)", name, s, max_s);
    printf("%s %s (%.1f s)\n", fails == before ? "ok  " : "FAIL", name, s);
    return 0;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    unsetenv("PMI_PORT");
    run_case("full session", srv_full, cli_full, 1, 5);

    /* framed: `reply` goes out with a correct length prefix; raw: as it is */
    struct { const char *name; int framed; const char *reply; rm_status_t st; } bad[] = {
        {"length prefix not a number", 0, "abcdefcmd=fullinit-response;rc=0;", RM_ERR_INVALID},
        {"length prefix with digits apart", 0, "1 2   cmd=fullinit-response;rc=0;", RM_ERR_INVALID},
        {"length prefix beyond 64 KiB", 0, "999999cmd=fullinit-response;rc=0;", RM_ERR_INVALID},
        {"length prefix zero", 0, "0     ", RM_ERR_INVALID},
        {"reply to another command", 1, "cmd=kvs-put-response;rc=0;", RM_ERR_IO},
        {"reply not starting with cmd", 1, "rc=0;cmd=fullinit-response;", RM_ERR_IO},
        {"reply without rc", 1, "cmd=fullinit-response;rank=0;size=2;", RM_ERR_IO},
        {"reply with rc != 0", 1, "cmd=fullinit-response;rc=14;errmsg=launcher trouble;", RM_ERR_IO},
        {"reply without rank", 1, "cmd=fullinit-response;rc=0;size=2;", RM_ERR_IO},
        {"reply with rank >= size", 1, "cmd=fullinit-response;rc=0;rank=2;size=2;", RM_ERR_IO},
        {"reply with a NUL byte", 0, "5     cmd=\0", RM_ERR_INVALID},
        /* the rest never comes: the client gives up after the stall limit */
        {"launcher stalls mid-reply", 0, "50    cmd=fullinit-resp", RM_ERR_TIMED_OUT},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        static char framed[256];
        if (bad[i].framed)
            snprintf(framed, sizeof framed, "%-6zu%s", strlen(bad[i].reply), bad[i].reply);
        bad_reply = bad[i].framed ? framed : bad[i].reply;
        bad_reply_len = bad[i].framed ? strlen(framed) : strlen(bad[i].reply) + (strstr(bad[i].name, "NUL") != NULL);
        expect_st = bad[i].st;
        run_case(bad[i].name, srv_bad_fullinit, cli_init_fails, 1,
                 bad[i].st == RM_ERR_TIMED_OUT ? 20 : 5);
    }
    expect_st = RM_ERR_IO;
    run_case("launcher dies mid-reply", srv_closes_midway, cli_init_fails, 1, 5);
    expect_st = RM_ERR_UNSUPPORTED;
    run_case("launcher refuses version 2", srv_no_v2, cli_init_fails, 1, 5);
    run_case("launcher dies during a fence", srv_dies_in_fence, cli_fence_fails, 1, 5);
    run_case("malformed and refused gets", srv_get_no_found, cli_get_fails, 1, 5);
    expect_st = RM_ERR_IO;
    run_case("PMI_FD without PMI_JOBID speaks PMI-1", srv_pmi1, cli_init_fails, 0, 5);
    run_case("Hydra with a stray PMI_JOBID speaks PMI-1", srv_pmi1, cli_init_fails, 2, 5);

    if (fails) {
        printf("FAIL: %d check(s)\n", fails);
        return 1;
    }
    printf("OK\n");
    return 0;
}
