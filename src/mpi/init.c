/* Start-up and shut-down, and the environment queries. */
#include "boot/boot.h"
#include "coll/coll.h"
#include "coll/op.h"
#include "comm/attr.h"
#include "mpi/mpiimpl.h"
#include "rma/rma.h"
#include "util/config.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Objects the MPICH ABI exports as data. */
static int mpi_unweighted_dummy, mpi_weights_empty_dummy;
int *const MPI_UNWEIGHTED = &mpi_unweighted_dummy;
int *const MPI_WEIGHTS_EMPTY = &mpi_weights_empty_dummy;
MPI_Fint *MPI_F_STATUS_IGNORE = NULL;
MPI_Fint *MPI_F_STATUSES_IGNORE = NULL;

/* A program that used only sessions: the engine stops as MPI_Finalize
 * would stop it, at exit. */
static void mpi_engine_exit(void)
{
    if (mpi_state.engine && !mpi_state.initialized) {
        rm_lock();
        mpi_engine_stop();
        rm_unlock();
    }
}

int mpi_engine_start(const char *fn_name_, int required, int *provided)
{
    if (mpi_state.engine) {
        if (provided)
            *provided = mpi_state.thread_level;
        return MPI_SUCCESS;
    }
    mpi_state.world_rank = -1;
    if (rm_config_load_once() < 0)
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn_name_, "invalid RAILMPI_* setting (see above)");
    int err = mpi_mixed_check(fn_name_);
    if (err != MPI_SUCCESS)
        return err;

    boot_info_t bi;
    rm_status_t st = boot_init(&bi);
    if (st < 0)
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn_name_, "cannot reach the launcher: %s",
                             rm_status_str(st));
    rm_log_rank = bi.rank;
    mpi_state.world_rank = bi.rank;
    mpi_state.world_size = bi.size;
    mpi_state.appnum = bi.appnum;
    /* never below the job's own size: a PMIx server counts allocated slots,
     * which a spawned job may oversubscribe */
    mpi_state.universe = bi.universe > bi.size ? bi.universe : bi.size;

    if (required < MPI_THREAD_SINGLE)
        required = MPI_THREAD_SINGLE;
    if (required > MPI_THREAD_MULTIPLE)
        required = MPI_THREAD_MULTIPLE;
    mpi_state.thread_level = required;
    mpi_state.main_thread = pthread_self();
    rm_lock_setup(required == MPI_THREAD_MULTIPLE);
    if (provided)
        *provided = required;

    if (gethostname(mpi_state.processor_name, sizeof mpi_state.processor_name) != 0)
        strcpy(mpi_state.processor_name, "localhost");
    mpi_state.processor_name[sizeof mpi_state.processor_name - 1] = 0;

    mpi_err_initial_load();
    if ((st = dtype_init()) < 0 || (st = op_init()) < 0)
        goto fail;
    if ((st = proto_init(bi.rank, bi.size, bi.kvsname)) < 0 || (st = proto_ft_init()) < 0)
        goto fail;
    if ((st = comm_init(bi.rank, bi.size)) < 0 || (st = rma_init()) < 0 || (st = mpi_spawn_init()) < 0 ||
        (st = proto_async_start()) < 0)
        goto fail;
    mpi_state.engine = 1;
    static int at_exit;
    if (!at_exit++)
        atexit(mpi_engine_exit);
    return MPI_SUCCESS;
fail:
    return mpi_err_raise(NULL, mpi_err_from_status(st), fn_name_, "start-up failed: %s",
                         rm_status_str(st));
}

static int mpi_init_common(int required, int *provided)
{
    static const char *const fn_name_ = "MPI_Init";
    if (mpi_state.initialized)
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn_name_, "MPI is already initialized");
    if (mpi_state.finalized)
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn_name_, "MPI cannot be initialized again after MPI_Finalize");
    /* with sessions alive the engine runs at their thread level */
    int err = mpi_engine_start(fn_name_, required, provided);
    if (err == MPI_SUCCESS)
        mpi_state.initialized = 1;
    return err;
}

RM_ALIAS(Init)
int PMPI_Init(int *argc, char ***argv)
{
    return mpi_init_common(MPI_THREAD_SINGLE, NULL);
}

RM_ALIAS(Init_thread)
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    return mpi_init_common(required, provided);
}

/* MPI-3.1 8.7.1: before anything is torn down, MPI_COMM_SELF is freed as
 * far as its attributes go (newest first), then MPI_COMM_WORLD's go the same
 * way, as MPICH does, and then those on predefined datatypes (which MPICH
 * deletes later in its shutdown). MPI stays fully usable inside the callbacks
 * (MPI_Finalized says false); what they set on either communicator is
 * deleted in a further round. Callback errors are not reported, as in MPICH:
 * the program is leaving anyway. */
static void mpi_finalize_attrs(void)
{
    for (int round = 0; round < 16 && (comm_self->attrs || comm_world->attrs); round++) {
        int rc = attr_delete_all(&comm_self->attrs, ATTR_COMM, MPI_COMM_SELF);
        if (rc != MPI_SUCCESS)
            rm_log_debug("MPI_Finalize: a delete callback on MPI_COMM_SELF returned %d", rc);
        rc = attr_delete_all(&comm_world->attrs, ATTR_COMM, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS)
            rm_log_debug("MPI_Finalize: a delete callback on MPI_COMM_WORLD returned %d", rc);
    }
    attr_delete_predefined_types();
}

/* Everything MPI_Init or the first session started, after the last user. */
void mpi_engine_stop(void)
{
    proto_bsend_finalize(); /* every buffered message goes out first */
    proto_drain();
    /* nobody leaves while a peer may still read from its memory */
    /* with dead ranks, or MPI_COMM_WORLD revoked, among the survivors */
    rm_status_t st = proto_ft_nfailed || comm_world->revoked ? proto_ft_final_barrier(comm_world)
                                                             : coll_barrier(comm_world);
    if (st < 0)
        rm_log_error("MPI_Finalize: final barrier failed: %s", rm_status_str(st));
    proto_ft_detect_stop(); /* peers that leave from here on are not dead */
    attr_finalize(); /* objects never freed lose their attributes without callbacks */
    rma_finalize();
    comm_ports_close_all(); /* ports left open */
    comm_finalize();
    proto_bsend_finalize(); /* the buffers the communicators held */
    mpi_info_finalize();
    mpi_hw_finalize();
    mpi_err_user_finalize();
    proto_finalize();
    proto_ft_finalize();
    coll_finalize();
    op_finalize();
    dtype_finalize();
    boot_finalize();
    mpi_state.engine = 0;
}

RM_ALIAS(Finalize)
int PMPI_Finalize(void)
{
    MPI_BEGIN("MPI_Finalize");
    if (!mpi_state.initialized)
        MPI_FAIL(NULL, MPI_ERR_OTHER, "MPI_Init was not called");
    mpi_finalize_attrs();
    if (!mpi_state.sessions) /* else the last MPI_Session_finalize stops it */
        mpi_engine_stop();
    mpi_state.finalized = 1;
    MPI_END();
}

RM_ALIAS(Initialized)
int PMPI_Initialized(int *flag)
{
    if (!flag)
        return MPI_ERR_ARG;
    *flag = mpi_state.initialized;
    return MPI_SUCCESS;
}

RM_ALIAS(Finalized)
int PMPI_Finalized(int *flag)
{
    if (!flag)
        return MPI_ERR_ARG;
    *flag = mpi_state.finalized;
    return MPI_SUCCESS;
}

RM_ALIAS(Query_thread)
int PMPI_Query_thread(int *provided)
{
    MPI_BEGIN("MPI_Query_thread");
    CHECK_ARG(NULL, provided, "provided is NULL");
    *provided = mpi_state.thread_level;
    MPI_END();
}

RM_ALIAS(Is_thread_main)
int PMPI_Is_thread_main(int *flag)
{
    MPI_BEGIN("MPI_Is_thread_main");
    CHECK_ARG(NULL, flag, "flag is NULL");
    *flag = pthread_equal(pthread_self(), mpi_state.main_thread);
    MPI_END();
}

RM_ALIAS(Abort)
int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    char msg[256];
    snprintf(msg, sizeof msg, "railmpi: rank %d called MPI_Abort with error code %d",
             mpi_state.world_rank, errorcode);
    fprintf(stderr, "%s\n", msg);
    fflush(stderr);
    fflush(stdout);
    if (mpi_state.engine)
        boot_abort(errorcode, msg);
    _exit(errorcode);
}

RM_ALIAS(Wtime)
double PMPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

RM_ALIAS(Wtick)
double PMPI_Wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

RM_ALIAS(Get_processor_name)
int PMPI_Get_processor_name(char *name, int *resultlen)
{
    MPI_BEGIN("MPI_Get_processor_name");
    CHECK_ARG(NULL, name && resultlen, "name or resultlen is NULL");
    strcpy(name, mpi_state.processor_name);
    *resultlen = (int)strlen(name);
    MPI_END();
}

RM_ALIAS(Get_version)
int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return MPI_ERR_ARG;
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

RM_ALIAS(Get_library_version)
int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return MPI_ERR_ARG;
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "railmpi %s (MPI %d.%d, MPICH ABI): multi-rail, network-fault-tolerant MPI",
                     RAILMPI_VERSION, MPI_VERSION, MPI_SUBVERSION);
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}

RM_ALIAS(Alloc_mem)
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    MPI_BEGIN("MPI_Alloc_mem");
    if (size < 0)
        MPI_FAIL(NULL, MPI_ERR_SIZE, "negative size %ld", (long)size);
    CHECK_ARG(NULL, baseptr, "baseptr is NULL");
    void *p = malloc(size ? (size_t)size : 1);
    if (!p)
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "cannot allocate %ld bytes", (long)size);
    *(void **)baseptr = p;
    MPI_END();
}

RM_ALIAS(Free_mem)
int PMPI_Free_mem(void *base)
{
    MPI_BEGIN("MPI_Free_mem");
    free(base);
    MPI_END();
}

RM_ALIAS(Pcontrol)
int PMPI_Pcontrol(const int level, ...)
{
    /* profiling hook: no built-in profiler listens */
    (void)level;
    return MPI_SUCCESS;
}
