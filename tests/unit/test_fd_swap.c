/* proto_fd_swap, the exchange between the leaders of two jobs (dynamic
 * processes): both ends send and receive at once, so payloads far larger
 * than the socket buffers cross without both ends blocking in a write. */
#include "proto/proto.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define N (8u << 20)

static int swap_side(int fd, unsigned char mark)
{
    unsigned char *out = malloc(N), *in = malloc(N);
    if (!out || !in)
        return 1;
    for (size_t i = 0; i < N; i++)
        out[i] = (unsigned char)(i * 7 + mark);
    if (proto_fd_swap(fd, out, N, in, N) != RM_OK) {
        fprintf(stderr, "FAIL: swap (side %u)\n", mark);
        return 1;
    }
    for (size_t i = 0; i < N; i++) {
        if (in[i] != (unsigned char)(i * 7 + (mark ^ 1))) {
            fprintf(stderr, "FAIL: byte %zu is %u (side %u)\n", i, in[i], mark);
            return 1;
        }
    }
    free(out);
    free(in);
    return 0;
}

int main(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return 1;
    alarm(60); /* a swap that blocks both ends must not hang the suite */
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        _exit(swap_side(sv[1], 1));
    }
    close(sv[1]);
    int rc = swap_side(sv[0], 0), st = 0;
    waitpid(pid, &st, 0);
    if (rc || !WIFEXITED(st) || WEXITSTATUS(st)) {
        fprintf(stderr, "FAIL: the swap between the two ends failed\n");
        return 1;
    }
    /* the other end gone: an error, not a hang */
    int sw[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sw);
    close(sw[1]);
    char b[4] = "abc", r[4];
    if (proto_fd_swap(sw[0], b, sizeof b, r, sizeof r) == RM_OK) {
        fprintf(stderr, "FAIL: a swap with a closed end succeeded\n");
        return 1;
    }
    close(sw[0]);
    printf("OK: fd swap\n");
    return 0;
}
