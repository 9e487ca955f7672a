/* The standard ABI's MPI_T event trampolines (src/abi/abi_mpit.c) over a
 * stand-in for the engine that keeps what it is given: the program's
 * callback, dropped handler and free callback get the ABI's callback safety
 * levels, their own user data and the registration; levels that are not the
 * ABI's and engine errors come back as the ABI's error codes. */
#include <stdio.h>
#include <stdlib.h>

#include "abi_conv.h"

const int abi_pre_in_table[ABI_PREDEFINED_LIMIT];

static struct MPIR_T_event_registration_s *const REG = (struct MPIR_T_event_registration_s *)0x1000;
static MPI_T_event_cb_function *e_cb[4];
static void *e_ud[4];
static MPI_T_event_dropped_cb_function *e_dropped;
static MPI_T_event_free_cb_function *e_free;
static void *e_free_ud;

int RMI_PMPI_T_event_register_callback(MPI_T_event_registration r, MPI_T_cb_safety s, MPI_Info info, void *ud,
                                       MPI_T_event_cb_function *fn)
{
    (void)info;
    if (r != REG)
        return MPI_T_ERR_INVALID_HANDLE;
    if ((int)s < MPI_T_CB_REQUIRE_NONE || s > MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE)
        return MPI_T_ERR_INVALID;
    e_cb[s] = fn;
    e_ud[s] = ud;
    return MPI_SUCCESS;
}

int RMI_PMPI_T_event_set_dropped_handler(MPI_T_event_registration r, MPI_T_event_dropped_cb_function *fn)
{
    if (r != REG)
        return MPI_T_ERR_INVALID_HANDLE;
    e_dropped = fn;
    return MPI_SUCCESS;
}

int RMI_PMPI_T_event_handle_free(MPI_T_event_registration r, void *ud, MPI_T_event_free_cb_function *fn)
{
    if (r != REG)
        return MPI_T_ERR_INVALID_HANDLE;
    e_free = fn;
    e_free_ud = ud;
    return MPI_SUCCESS;
}

/* the ABI's functions (abi_mpit.c) with the ABI's values */
int PMPI_T_event_register_callback(MPI_T_event_registration, MPI_T_cb_safety, abi_Info, void *,
                                   MPI_T_event_cb_function *);
int PMPI_T_event_set_dropped_handler(MPI_T_event_registration, MPI_T_event_dropped_cb_function *);
int PMPI_T_event_handle_free(MPI_T_event_registration, void *, MPI_T_event_free_cb_function *);
enum { ABI_NONE = 0, ABI_RESTRICTED = 1, ABI_THREAD_SAFE = 3, ABI_ASYNC = 7, ABI_T_ERR_INVALID = 1006,
       ABI_T_ERR_INVALID_HANDLE = 1010 };

static int fails;
#define EXPECT(c, ...)                                                                             \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            fails++;                                                                               \
        }                                                                                          \
    } while (0)

static int seen_level = -1, seen_calls;
static void *seen_ud, *seen_reg, *seen_inst;
static MPI_Count seen_count;

static void prog_cb(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    seen_inst = e, seen_reg = r, seen_level = (int)s, seen_ud = ud, seen_calls++;
}

static void prog_dropped(MPI_Count n, MPI_T_event_registration r, int src, MPI_T_cb_safety s, void *ud)
{
    (void)src;
    seen_count = n, seen_reg = r, seen_level = (int)s, seen_ud = ud, seen_calls++;
}

static void prog_free(MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    seen_reg = r, seen_level = (int)s, seen_ud = ud, seen_calls++;
}

int main(void)
{
    int a, b;
    MPI_T_event_instance inst = (MPI_T_event_instance)0x2000;
    abi_Info info_null = (abi_Info)(uintptr_t)0x108;

    /* the ABI's MPI_T_CB_REQUIRE_THREAD_SAFE (3) is the engine's second level */
    EXPECT(PMPI_T_event_register_callback(REG, (MPI_T_cb_safety)ABI_THREAD_SAFE, info_null, &a, prog_cb) == 0,
           "register at MPI_T_CB_REQUIRE_THREAD_SAFE");
    EXPECT(e_cb[MPI_T_CB_REQUIRE_THREAD_SAFE] && !e_cb[MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE],
           "not registered at the engine's MPI_T_CB_REQUIRE_THREAD_SAFE");
    e_cb[MPI_T_CB_REQUIRE_THREAD_SAFE](inst, REG, MPI_T_CB_REQUIRE_THREAD_SAFE, e_ud[MPI_T_CB_REQUIRE_THREAD_SAFE]);
    EXPECT(seen_calls == 1 && seen_level == ABI_THREAD_SAFE && seen_ud == &a && seen_reg == REG && seen_inst == inst,
           "callback: %d calls, level %d", seen_calls, seen_level);
    EXPECT(PMPI_T_event_register_callback(REG, (MPI_T_cb_safety)ABI_ASYNC, info_null, &b, prog_cb) == 0,
           "register at MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE");
    e_cb[MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE](inst, REG, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE,
                                            e_ud[MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE]);
    EXPECT(seen_calls == 2 && seen_level == ABI_ASYNC && seen_ud == &b, "callback: level %d", seen_level);
    /* 2 is no level of the ABI; an unknown registration is the engine's error */
    EXPECT(PMPI_T_event_register_callback(REG, (MPI_T_cb_safety)2, info_null, &a, prog_cb) == ABI_T_ERR_INVALID,
           "level 2 accepted");
    EXPECT(PMPI_T_event_register_callback((MPI_T_event_registration)0x3000, (MPI_T_cb_safety)ABI_NONE, info_null,
                                          &a, prog_cb) == ABI_T_ERR_INVALID_HANDLE,
           "unknown registration");
    /* a NULL procedure removes the callback */
    EXPECT(PMPI_T_event_register_callback(REG, (MPI_T_cb_safety)ABI_ASYNC, info_null, NULL, NULL) == 0 &&
               !e_cb[MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE],
           "removing a callback");

    /* the dropped handler gets the user data of the callback that missed the events */
    EXPECT(PMPI_T_event_set_dropped_handler(REG, prog_dropped) == 0 && e_dropped, "dropped handler");
    e_dropped(5, REG, 0, MPI_T_CB_REQUIRE_NONE, e_ud[MPI_T_CB_REQUIRE_THREAD_SAFE]);
    EXPECT(seen_calls == 3 && seen_count == 5 && seen_level == ABI_NONE && seen_ud == &a,
           "dropped: count %lld level %d", (long long)seen_count, seen_level);
    e_dropped(1, REG, 0, MPI_T_CB_REQUIRE_MPI_RESTRICTED, NULL);
    EXPECT(seen_calls == 4 && seen_level == ABI_RESTRICTED && seen_ud == NULL, "dropped without a callback");

    /* the free callback: the engine always gets the trampoline */
    EXPECT(PMPI_T_event_handle_free((MPI_T_event_registration)0x3000, &b, prog_free) == ABI_T_ERR_INVALID_HANDLE,
           "freeing an unknown registration");
    EXPECT(PMPI_T_event_handle_free(REG, &b, prog_free) == 0 && e_free, "handle_free");
    e_free(REG, MPI_T_CB_REQUIRE_THREAD_SAFE, e_free_ud);
    EXPECT(seen_calls == 5 && seen_level == ABI_THREAD_SAFE && seen_ud == &b && seen_reg == REG,
           "free callback: level %d", seen_level);
    /* without the program's free callback the record still goes */
    EXPECT(PMPI_T_event_handle_free(REG, NULL, NULL) == 0 && e_free, "handle_free without a callback");
    e_free(REG, MPI_T_CB_REQUIRE_NONE, e_free_ud);
    EXPECT(seen_calls == 5, "a free callback that was not given was called");

    if (fails)
        return 1;
    printf("OK\n");
    return 0;
}
