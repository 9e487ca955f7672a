/* Two separately started jobs meet (tests/scripts/dynamic.sh):
 *   dynamic server FILE | client FILE     MPI_Open_port / Comm_accept / Comm_connect
 *   dynamic joinserver FILE | joinclient FILE   MPI_Comm_join over a TCP connection
 *   dynamic pubserver NAME | pubclient NAME     the same, the port found through the name service
 *   dynamic spawn DIR [HOST]              MPI_Comm_spawn of 3 children (mode child) in wdir DIR
 *                                         (on HOST, info key host, which they check)
 *   dynamic spawnmulti DIR [HOST]         MPI_Comm_spawn_multiple: 2 + 1 children (mode child2),
 *                                         on HOST if given
 *   dynamic spawnbad [HOST]               a program that does not exist (on HOST): MPI_ERR_SPAWN,
 *                                         errcodes
 *   dynamic spawnmissing                  the same, without the unknown host after it
 *   dynamic spawnft DIR HOST              2 children on HOST; rank 0 streams 1 MiB messages to
 *                                         child 0 and back for 6 s, checked word by word, and
 *                                         prints "streaming" once under way (a rail is failed
 *                                         meanwhile: tests/cluster/dynamic_hosts.sh)
 *   dynamic closed NAME                   MPI_ERR_PORT for closed, unanswered, bad ports;
 *                                         MPI_ERR_NAME, MPI_ERR_SERVICE from the name service
 * FILE passes the port name (or TCP port) from one job to the other. */
#include <mpi.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fprintf(stderr, "FAIL line %d: ", __LINE__);                  \
            fprintf(stderr, __VA_ARGS__);                                 \
            fprintf(stderr, "\n");                                        \
            MPI_Abort(MPI_COMM_WORLD, 1);                                 \
        }                                                                 \
    } while (0)

static void put_file(const char *file, const char *s)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    FILE *f = fopen(tmp, "w");
    CHECK(f, "cannot write %s", tmp);
    fprintf(f, "%s\n", s);
    fclose(f);
    rename(tmp, file);
}

static void get_file(const char *file, char *s, int len)
{
    for (int i = 0; i < 600; i++) { /* 60 s */
        FILE *f = fopen(file, "r");
        if (f) {
            CHECK(fgets(s, len, f), "empty %s", file);
            fclose(f);
            s[strcspn(s, "\n")] = 0;
            return;
        }
        usleep(100000);
    }
    CHECK(0, "no %s after 60 s", file);
}

/* Traffic both ways over a new intercommunicator; `high` orders the merge. */
static void exercise(MPI_Comm inter, int high)
{
    int rank, size, rsize, flag;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &size);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag, "not an intercommunicator");
    /* every process sends to remote rank 0; remote rank 0 hears everyone */
    int mine = (high ? 1000 : 2000) + rank, got;
    MPI_Request rq;
    MPI_Isend(&mine, 1, MPI_INT, 0, 7, inter, &rq);
    if (rank == 0) {
        int seen = 0;
        for (int i = 0; i < rsize; i++) {
            MPI_Status st;
            MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 7, inter, &st);
            CHECK(got == (high ? 2000 : 1000) + st.MPI_SOURCE, "got %d from %d", got, st.MPI_SOURCE);
            seen |= 1 << st.MPI_SOURCE;
        }
        CHECK(seen == (1 << rsize) - 1, "heard from %x", seen);
    }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    /* a large message (rendezvous over TCP) from each rank 0 to the other */
    int n = 1 << 20;
    int *big = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        big[i] = i * 3 + high;
    if (rank == 0) {
        MPI_Sendrecv(big, n, MPI_INT, 0, 8, in, n, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++)
            CHECK(in[i] == i * 3 + !high, "big[%d] = %d", i, in[i]);
    }
    free(big);
    free(in);
    /* an intercommunicator collective and the merged intracommunicator */
    int v = high ? 0 : 42;
    if (high)
        MPI_Bcast(&v, 1, MPI_INT, 0, inter);
    else
        MPI_Bcast(&v, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    CHECK(v == 42, "bcast gave %d", v);
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, high, &merged);
    int mrank, msize, sum = 0, one = 1;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(msize == size + rsize, "merged size %d", msize);
    CHECK(mrank == (high ? rsize + rank : rank), "merged rank %d", mrank);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == msize, "allreduce %d", sum);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    CHECK(inter == MPI_COMM_NULL, "disconnect left the handle");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 1 ? argv[1] : "";
    const char *file = argc > 2 ? argv[2] : "";
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter;
    if (!strcmp(mode, "server")) {
        if (rank == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            CHECK(!strncmp(port, "railmpi-port:", 13), "port name %s", port);
            put_file(file, port);
        }
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        exercise(inter, 0);
        if (rank == 0)
            MPI_Close_port(port);
    } else if (!strcmp(mode, "client")) {
        if (rank == 0)
            get_file(file, port, sizeof port);
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        exercise(inter, 1);
    } else if (!strcmp(mode, "pubserver")) {
        if (rank == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            MPI_Publish_name(file, MPI_INFO_NULL, port);
        }
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        exercise(inter, 0);
        if (rank == 0) {
            MPI_Unpublish_name(file, MPI_INFO_NULL, port);
            MPI_Close_port(port);
        }
    } else if (!strcmp(mode, "pubclient")) {
        if (rank == 0) {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* name service calls: no object (MPI-4.1 9.3) */
            int rc = MPI_ERR_NAME;
            for (int i = 0; i < 600 && rc != MPI_SUCCESS; i++) { /* 60 s */
                rc = MPI_Lookup_name(file, MPI_INFO_NULL, port);
                if (rc != MPI_SUCCESS)
                    usleep(100000);
            }
            CHECK(rc == MPI_SUCCESS, "no name %s after 60 s", file);
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        }
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        exercise(inter, 1);
    } else if (!strcmp(mode, "spawn")) {
        MPI_Comm parent;
        MPI_Comm_get_parent(&parent);
        CHECK(parent == MPI_COMM_NULL, "a job started by mpiexec has a parent");
        char self[4096];
        ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
        self[l > 0 ? l : 0] = 0;
        /* what the parent's ranks were given with -genv reaches the children */
        const char *mark = getenv("DYN_MARK");
        const char *host = argc > 3 ? argv[3] : NULL;
        char *args[] = {"child", (char *)file, (char *)(mark ? mark : "-"), (char *)host, NULL};
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "wdir", file);
        if (host)
            MPI_Info_set(info, "host", host);
        int codes[3] = {-1, -1, -1};
        MPI_Comm_spawn(self, args, 3, info, 0, MPI_COMM_WORLD, &inter, codes);
        MPI_Info_free(&info);
        for (int i = 0; i < 3; i++)
            CHECK(codes[i] == MPI_SUCCESS, "errcodes[%d] = %d", i, codes[i]);
        int rsize;
        MPI_Comm_remote_size(inter, &rsize);
        CHECK(rsize == 3, "spawned %d", rsize);
        exercise(inter, 0);
    } else if (!strcmp(mode, "child")) {
        MPI_Comm parent;
        MPI_Comm_get_parent(&parent);
        CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
        char cwd[4096];
        CHECK(getcwd(cwd, sizeof cwd) && !strcmp(cwd, file), "started in %s, not %s", cwd, file);
        const char *mark = getenv("DYN_MARK");
        CHECK(argc > 3 && !strcmp(mark ? mark : "-", argv[3]), "DYN_MARK %s, the parent's %s", mark ? mark : "-",
              argc > 3 ? argv[3] : "?");
        if (argc > 4) { /* the host asked for (mpiexec names each rank's host) */
            const char *on = getenv("RAILMPI_HOST_ID");
            CHECK(on && !strcmp(on, argv[4]), "a child runs on host %s, not %s", on ? on : "(unnamed)", argv[4]);
        }
        int flag, *usize;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
        CHECK(flag && *usize >= 3, "MPI_UNIVERSE_SIZE");
        exercise(parent, 1);
        MPI_Comm_get_parent(&parent);
        CHECK(parent == MPI_COMM_NULL, "the parent is still there after MPI_Comm_disconnect");
    } else if (!strcmp(mode, "spawnmulti")) {
        char self[4096];
        ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
        self[l > 0 ? l : 0] = 0;
        const char *host = argc > 3 ? argv[3] : NULL;
        char *a0[] = {"child2", (char *)file, "A", (char *)host, NULL};
        char *a1[] = {"child2", (char *)file, "B", (char *)host, NULL};
        char *cmds[] = {self, self}, **argvs[] = {a0, a1};
        int np[] = {2, 1}, codes[3] = {-1, -1, -1};
        MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
        MPI_Info_create(&infos[1]);
        MPI_Info_set(infos[1], "wdir", file);
        if (host) { /* both commands on HOST */
            MPI_Info_create(&infos[0]);
            MPI_Info_set(infos[0], "host", host);
            MPI_Info_set(infos[1], "host", host);
        }
        MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD, &inter, codes);
        MPI_Info_free(&infos[1]);
        if (host)
            MPI_Info_free(&infos[0]);
        for (int i = 0; i < 3; i++)
            CHECK(codes[i] == MPI_SUCCESS, "errcodes[%d] = %d", i, codes[i]);
        exercise(inter, 0);
    } else if (!strcmp(mode, "child2")) {
        MPI_Comm parent;
        MPI_Comm_get_parent(&parent);
        CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
        int size, flag, *appnum;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        CHECK(size == 3, "one MPI_COMM_WORLD of 3, not %d", size);
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
        const char *which = argc > 3 ? argv[3] : "";
        CHECK(flag && *appnum == (which[0] == 'B'), "MPI_APPNUM %d for command %s", flag ? *appnum : -1, which);
        CHECK((rank == 2) == (which[0] == 'B'), "rank %d runs command %s", rank, which);
        char cwd[4096];
        if (which[0] == 'B')
            CHECK(getcwd(cwd, sizeof cwd) && !strcmp(cwd, file), "started in %s, not %s", cwd, file);
        if (argc > 4) {
            const char *on = getenv("RAILMPI_HOST_ID");
            CHECK(on && !strcmp(on, argv[4]), "a child runs on host %s, not %s", on ? on : "(unnamed)", argv[4]);
        }
        exercise(parent, 1);
    } else if (!strcmp(mode, "spawnft") || !strcmp(mode, "childft")) {
        int child = !strcmp(mode, "childft"), n = 1 << 18;
        MPI_Comm peer;
        if (child) {
            MPI_Comm_get_parent(&peer);
            CHECK(peer != MPI_COMM_NULL, "a spawned process has no parent");
        } else {
            char self[4096];
            ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
            self[l > 0 ? l : 0] = 0;
            char *args[] = {"childft", (char *)file, NULL};
            MPI_Info info;
            MPI_Info_create(&info);
            MPI_Info_set(info, "host", argc > 3 ? argv[3] : "localhost");
            int codes[2] = {-1, -1};
            MPI_Comm_spawn(self, args, 2, info, 0, MPI_COMM_WORLD, &peer, codes);
            MPI_Info_free(&info);
            CHECK(codes[0] == MPI_SUCCESS && codes[1] == MPI_SUCCESS, "errcodes %d %d", codes[0], codes[1]);
        }
        int *buf = malloc(sizeof(int) * (size_t)n), *back = malloc(sizeof(int) * (size_t)n);
        double t0 = MPI_Wtime();
        for (int round = 0; rank == 0; round++) {
            if (child) {
                MPI_Recv(buf, n, MPI_INT, 0, 9, peer, MPI_STATUS_IGNORE);
                for (int i = 1; i < n; i++)
                    CHECK(buf[i] == round * 7 + i, "round %d word %d: %d", round, i, buf[i]);
                for (int i = 0; i < n; i++)
                    back[i] = i ? buf[i] + 1 : buf[0];
                MPI_Send(back, n, MPI_INT, 0, 10, peer);
                if (!buf[0])
                    break;
                continue;
            }
            buf[0] = MPI_Wtime() - t0 < 6.0;
            for (int i = 1; i < n; i++)
                buf[i] = round * 7 + i;
            MPI_Send(buf, n, MPI_INT, 0, 9, peer);
            MPI_Recv(back, n, MPI_INT, 0, 10, peer, MPI_STATUS_IGNORE);
            for (int i = 1; i < n; i++)
                CHECK(back[i] == buf[i] + 1, "round %d word %d came back %d", round, i, back[i]);
            if (round == 3) {
                printf("streaming\n");
                fflush(stdout);
            }
            if (!buf[0]) {
                printf("spawnft: %d rounds of 1 MiB both ways\n", round + 1);
                break;
            }
        }
        free(buf);
        free(back);
        MPI_Comm_disconnect(&peer);
    } else if (!strcmp(mode, "spawnbad") || !strcmp(mode, "spawnmissing")) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* name service calls: no object (MPI-4.1 9.3) */
        int codes[2] = {-1, -1}, cls;
        double t0 = MPI_Wtime();
        MPI_Info on = MPI_INFO_NULL;
        if (argc > 2) {
            MPI_Info_create(&on);
            MPI_Info_set(on, "host", file);
        }
        int rc = MPI_Comm_spawn("/nonexistent/railmpi-program", MPI_ARGV_NULL, 2, on, 0, MPI_COMM_WORLD,
                                &inter, codes);
        if (on != MPI_INFO_NULL)
            MPI_Info_free(&on);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_SPAWN, "spawning a missing program: class %d", cls);
        CHECK(inter == MPI_COMM_NULL, "an intercommunicator for a failed spawn");
        CHECK(codes[0] == MPI_ERR_SPAWN && codes[1] == MPI_ERR_SPAWN, "errcodes %d %d", codes[0], codes[1]);
        CHECK(MPI_Wtime() - t0 < 10, "took %.1f s", MPI_Wtime() - t0);
        if (!strcmp(mode, "spawnmissing"))
            goto done;
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "host", "no-such-host.invalid");
        rc = MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, info, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
        MPI_Info_free(&info);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_SPAWN, "spawning on an unknown host: class %d", cls);
    } else if (!strcmp(mode, "joinserver") || !strcmp(mode, "joinclient")) {
        int server = !strcmp(mode, "joinserver"), fd;
        if (server) {
            int lfd = socket(AF_INET, SOCK_STREAM, 0);
            struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
            socklen_t sl = sizeof sa;
            CHECK(bind(lfd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(lfd, 1) == 0 &&
                      getsockname(lfd, (struct sockaddr *)&sa, &sl) == 0, "listen");
            char p[16];
            snprintf(p, sizeof p, "%d", ntohs(sa.sin_port));
            put_file(file, p);
            fd = accept(lfd, NULL, NULL);
            close(lfd);
        } else {
            char p[16];
            get_file(file, p, sizeof p);
            fd = socket(AF_INET, SOCK_STREAM, 0);
            struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                                     .sin_port = htons((uint16_t)atoi(p))};
            CHECK(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect");
        }
        CHECK(fd >= 0, "no connection");
        CHECK(MPI_Comm_join(fd, &inter) == MPI_SUCCESS, "join");
        exercise(inter, !server);
        close(fd);
    } else if (!strcmp(mode, "usize")) {
        /* MPI_UNIVERSE_SIZE is what the launcher says (mpiexec -usize), on
         * every communicator */
        int flag, *usize, want = atoi(file);
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
        CHECK(flag && *usize == want, "MPI_UNIVERSE_SIZE %d, want %d", flag ? *usize : -1, want);
        MPI_Comm_get_attr(MPI_COMM_SELF, MPI_UNIVERSE_SIZE, &usize, &flag);
        CHECK(flag && *usize == want, "MPI_UNIVERSE_SIZE on SELF %d", flag ? *usize : -1);
        if (rank == 0)
            printf("usize ok\n");
    } else if (!strcmp(mode, "closed")) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* name service calls: no object (MPI-4.1 9.3) */
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        int cls, rc;
        double t0 = MPI_Wtime();
        /* a closed port: refused at once */
        MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Close_port(port);
        rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_PORT,
              "connect to a closed port: class %d", cls);
        CHECK(MPI_Wtime() - t0 < 10, "took %.1f s", MPI_Wtime() - t0);
        /* an open port nobody accepts on: the info timeout bounds the wait */
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "timeout", "1");
        MPI_Open_port(MPI_INFO_NULL, port);
        t0 = MPI_Wtime();
        rc = MPI_Comm_connect(port, info, 0, MPI_COMM_SELF, &inter);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_PORT, "unanswered port: class %d", cls);
        CHECK(MPI_Wtime() - t0 < 5, "unanswered port took %.1f s", MPI_Wtime() - t0);
        MPI_Close_port(port);
        MPI_Info_free(&info);
        /* names that are no port, and closing what is not open */
        rc = MPI_Comm_connect("nonsense", MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_PORT, "bad name: class %d", cls);
        rc = MPI_Comm_accept("railmpi-port:127.0.0.1:1:00", MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_PORT, "accept on a port not open here: class %d", cls);
        rc = MPI_Close_port(port);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_PORT, "closing a closed port: class %d", cls);
        /* the name service */
        char svc[300], got[MPI_MAX_PORT_NAME];
        snprintf(svc, sizeof svc, "%s with spaces=and%%signs", file);
        rc = MPI_Lookup_name(svc, MPI_INFO_NULL, got);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_NAME, "lookup of an unknown name: class %d", cls);
        CHECK(MPI_Publish_name(svc, MPI_INFO_NULL, "a port name") == MPI_SUCCESS, "publish");
        rc = MPI_Publish_name(svc, MPI_INFO_NULL, "another");
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_SERVICE, "second publish: class %d", cls);
        CHECK(MPI_Lookup_name(svc, MPI_INFO_NULL, got) == MPI_SUCCESS && !strcmp(got, "a port name"),
              "lookup gave '%s'", got);
        CHECK(MPI_Unpublish_name(svc, MPI_INFO_NULL, "a port name") == MPI_SUCCESS, "unpublish");
        rc = MPI_Unpublish_name(svc, MPI_INFO_NULL, "a port name");
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_SERVICE, "second unpublish: class %d", cls);
        rc = MPI_Lookup_name(svc, MPI_INFO_NULL, got);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_NAME, "lookup after unpublish: class %d", cls);
        /* a name left published goes with its job (checked by the script) */
        CHECK(MPI_Publish_name(file, MPI_INFO_NULL, "left") == MPI_SUCCESS, "publish to leave");
        MPI_Comm w = MPI_COMM_WORLD;
        rc = MPI_Comm_disconnect(&w);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_COMM, "disconnect of MPI_COMM_WORLD: class %d", cls);
    } else {
        CHECK(0, "unknown mode '%s'", mode);
    }
done:
    MPI_Finalize();
    if (rank == 0)
        printf("%s ok\n", mode);
    fflush(stdout);
    return 0;
}
