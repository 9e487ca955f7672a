/* The global lock that makes MPI_THREAD_MULTIPLE safe: taken at every MPI
 * entry point when the thread level is MULTIPLE, dropped while a blocking
 * call yields so other threads can make progress. Recursive, so internal
 * layers may re-enter the bindings (callbacks, attribute copy functions). */
#ifndef RM_UTIL_LOCK_H
#define RM_UTIL_LOCK_H

#include <pthread.h>
#include <stdint.h>

extern int rm_lock_enabled;
extern pthread_mutex_t rm_big_lock;

void rm_lock_setup(int enabled);

static inline void rm_lock(void)
{
    if (rm_lock_enabled)
        pthread_mutex_lock(&rm_big_lock);
}

static inline void rm_unlock(void)
{
    if (rm_lock_enabled)
        pthread_mutex_unlock(&rm_big_lock);
}

/* Give the core away while waiting; lets other threads (and, on an
 * oversubscribed host, other ranks) run. Counted in rm_lock_yields (MPI_T). */
void rm_lock_yield(void);
extern uint64_t rm_lock_yields;
/* Called (lock held) by every rm_lock_yield, i.e. by a wait that has spun
 * without completing; NULL: nothing. A layer above sets it to look for
 * what no progress pass would notice (a peer process that is gone). */
extern void (*rm_lock_idle_hook)(void);

#endif
