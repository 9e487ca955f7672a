/* What mpiexec's files share (main.c: the job on this host and the top of a
 * multi-host job; proxy.c: a host's proxy; ft.c: process fault tolerance). */
#ifndef RM_MPIEXEC_JOB_H
#define RM_MPIEXEC_JOB_H

#include "pmi_server.h"
#include "remote.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct out_stream {
    int fd;
    char buf[4096];
    size_t len;
    FILE *to;
} out_stream_t;

typedef struct rank_proc {
    pid_t pid;
    int exited, status, finalized;
    int aborted; /* said MPI_Abort: its exit code is no news */
    int ctl_fd; /* write end of the rank's control pipe (operator commands), -1 if none */
    out_stream_t out, err;
} rank_proc_t;

typedef struct kv_entry {
    char *key, *val;
} kv_entry_t;

typedef struct job {
    int guard_fd;     /* pipe to the guardian, -1 if none */
    /* multi-host, top side: the processes in `ranks` are one proxy per host */
    int remote;
    char **hosts;
    int nhosts, ppn;
    int nhosts_listed; /* -hosts as given, idle ones too: where spawns may go */
    const char *launcher, *iface, *self;
    int listen_fd;
    ctl_conn_t *ctl;  /* per proxy */
    int *host_first, *host_count; /* per proxy: its ranks */
    int *host_dead;   /* per proxy: its ranks were reported dead (process fault tolerance) */
    int *ctl_sent;    /* kv entries already sent to each proxy */
    int nbarrier;
    kv_entry_t *kv;
    int nkv, capkv;
    int total;        /* ranks in the whole job */
    /* multi-host, proxy side */
    const char *proxy_addr;
    int proxy_id;
    ctl_conn_t up;    /* fd -1 when not a proxy */
    char host_id[256], launch_ip[64], job_secret[128], kvsname[128];
    int first, world; /* my ranks are first..first+n-1 of world */
    int usize;        /* MPI_UNIVERSE_SIZE (-usize; 0: the job's size) */
    /* the launch's launcher and hosts, from mpiexec: where spawns may go */
    char *spawn_launcher;
    char **spawn_hosts;
    int nspawn_hosts;
    int n;
    int label;
    double timeout;
    const char *bind;
    char **argv;      /* a proxy's own copy, from mpiexec (remote.h) */
    char **env_extra; /* NAME=VALUE, applied in order */
    int nenv_extra, capenv_extra;
    int genvnone;
    rank_proc_t *ranks;
    pmi_server_t *pmi;
    int failed;       /* first failure decides the exit code */
    /* process fault tolerance: a rank's death is news for the others, not
     * the job's end; the first one still decides the exit code */
    int proc_ft;
    int ft_code;
    /* the failure board: a shared page every local rank maps (RAILMPI_FT_FD),
     * [0] how many deaths are listed, [1..] their world ranks */
    int ft_fd;
    _Atomic uint32_t *ft_board;
    unsigned char *ft_listed; /* by world rank */
    int exit_code;
    int aborting;
    /* An MPI_Abort is acted on ABORT_GRACE s after it arrives: a rank often
     * aborts because a peer on its host died, and the death (a signal) is
     * the cause to report, not the abort it provoked. */
    int abort_rank;   /* -1: none pending */
    int abort_code;
    double abort_at;
    /* jobs this one spawned (MPI_Comm_spawn): their mpiexec, until reaped */
    pid_t *spawned;
    int nspawned;
    char **preput;    /* --preput KEY VALUE: pairs put in the key-value space */
    int npreput;
    /* a spawned job of several commands: --app N WDIR ARGC PROGRAM ARGS... */
    struct job_app {
        int n;
        const char *wdir;
        char **argv; /* NULL-terminated copy of the words */
    } *apps;
    int napps;
    /* operator control (top mpiexec only): see control.h */
    int control_fd;
    char control_path[108];
} job_t;

/* main.c */
double job_now(void); /* monotonic seconds */
int job_env_entry_valid(const char *kv);
/* Takes ownership of `kv` (NAME=VALUE). */
int job_env_add(job_t *j, char *kv);
/* -abi NAME (abi.c): 0, or the exit status after a message */
int job_abi_set(job_t *j, const char *abi);
/* The first failure decides the exit code; the job is ended. */
void job_fail(job_t *j, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* To every live local rank's control pipe; returns how many took it. */
int job_command_local(job_t *j, const char *cmd);
/* The processes mpiexec starts: the guardian that kills them if mpiexec is
 * killed (told each process group), and a child's own setup (its output to
 * the pipes, dying with mpiexec); a random job secret. */
void guardian_start(job_t *j);
void guardian_tell(job_t *j, int v);
void child_setup(pid_t parent, int out, int err, int keep_stdin);
void secret(char *out, size_t len);

/* top.c: a multi-host job's top side */
int job_start_remote(job_t *j);
void remote_accept(job_t *j);
void remote_input(job_t *j, int h);
void remote_kv_add(job_t *j, const char *key, const char *val);

/* proxy.c */
int proxy_connect(job_t *j);
void proxy_input(job_t *j);
/* the PMI server's events on a proxy: upstream to mpiexec */
void proxy_on_put(void *ctx, const char *key, const char *val);
void proxy_on_barrier(void *ctx);
int proxy_on_lost(void *ctx, int rank, int lost);

/* ft.c */
void job_ft_board(job_t *j);
void job_ft_list(job_t *j, int g);
void job_rank_failed(job_t *j, int g, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void remote_host_failed(job_t *j, int h, int st);
void remote_host_lost(job_t *j, int h, int g);
void job_chld_watch(void);
int job_chld_fd(void); /* -1 when not watched */
void job_chld_drain(void);

#endif
