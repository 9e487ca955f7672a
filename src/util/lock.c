#include "util/lock.h"

#include <sched.h>

int rm_lock_enabled;
uint64_t rm_lock_yields;
void (*rm_lock_idle_hook)(void);
pthread_mutex_t rm_big_lock;

void rm_lock_setup(int enabled)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rm_big_lock, &a);
    pthread_mutexattr_destroy(&a);
    rm_lock_enabled = enabled;
}

void rm_lock_yield(void)
{
    rm_lock_yields++;
    if (rm_lock_idle_hook)
        rm_lock_idle_hook();
    if (rm_lock_enabled) {
        /* a recursive lock may be held more than once: this only works
         * because blocking waits are entered from the outermost call */
        pthread_mutex_unlock(&rm_big_lock);
        sched_yield();
        pthread_mutex_lock(&rm_big_lock);
    } else {
        sched_yield();
    }
}
