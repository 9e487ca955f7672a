/* Open MPI's Fortran handles (docs/abi.md, "Open MPI's ABI"): the integers
 * MPI_<T>_c2f gives and MPI_<T>_f2c takes in libmpi.so.40, which Open MPI's
 * mpif.h and modules (libmpi_mpifh.so.40, src/abi/ompi_fortran.c) use too.
 *
 * A predefined object carries its integer (Open MPI's mpif.h value) in its
 * second word, and ompi_f_pre (generated, ompi_objects.c) maps the integers
 * back. Any other handle of a class gets the next integer above the class's
 * predefined ones the first time it is converted, and keeps it: a table per
 * class holds the handles by integer, a hash the integers by handle. The
 * engine reuses a freed object's handle, so the table grows with the number
 * of objects alive at once, not with the number ever created.
 *
 * Beside them, the objects Open MPI's mpif.h names for its sentinels. */
#include <pthread.h>
#include "ompi_conv.h"
#include "abi_tables.h"

/* an integer given out before its handle exists (MPI_COMM_IDUP from Fortran:
 * the engine writes the communicator into a cell when the request
 * completes) has the cell's address with this bit as its key until then */
#define F_PENDING (1ull << 63)

struct ftab {
    pthread_mutex_t mu;
    int npending;
    uint64_t *key; /* handle by integer - base */
    int n, cap;
    int *slot;     /* open addressing: 1 + index into key, 0 empty */
    int nslot;     /* a power of two, at least four times n */
};

static struct ftab ftabs[OMPI_F_NCLASS] = {
    [0 ... OMPI_F_NCLASS - 1] = {.mu = PTHREAD_MUTEX_INITIALIZER},
};

static unsigned fhash(uint64_t k, int nslot)
{
    return (unsigned)((k * 0x9E3779B97F4A7C15ull) >> 32) & (unsigned)(nslot - 1);
}

static int ftab_grow(struct ftab *t)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        uint64_t *k = realloc(t->key, (size_t)cap * sizeof *k);
        if (!k)
            return -1;
        t->key = k;
        t->cap = cap;
    }
    /* an entry has up to two slots (a pending one's cell, then its handle):
     * at most half of them are taken */
    if (4 * (t->n + 1) > t->nslot) {
        int nslot = t->nslot ? 2 * t->nslot : 128;
        int *s = calloc((size_t)nslot, sizeof *s);
        if (!s)
            return -1;
        for (int i = 0; i < t->n; i++) {
            unsigned j = fhash(t->key[i], nslot);
            while (s[j])
                j = (j + 1) & (unsigned)(nslot - 1);
            s[j] = i + 1;
        }
        free(t->slot);
        t->slot = s;
        t->nslot = nslot;
    }
    return 0;
}

static void ftab_insert_slot(struct ftab *t, uint64_t k, int idx)
{
    unsigned j = fhash(k, t->nslot);
    while (t->slot[j])
        j = (j + 1) & (unsigned)(t->nslot - 1);
    t->slot[j] = idx + 1;
}

/* entry i is pending: its handle, when the engine has written it (then the
 * entry is the handle's from now on), else 0. Called locked. */
static uint64_t pending_resolve(struct ftab *t, int i)
{
    uint64_t *cell = (uint64_t *)(uintptr_t)(t->key[i] & ~F_PENDING);
    uint64_t h = __atomic_load_n(cell, __ATOMIC_ACQUIRE);
    if (!h)
        return 0;
    /* the engine reuses freed objects' handles: an older entry of the same
     * handle (of a freed object) gives way, so that the handle's integer is
     * the one given out; the older integer converts to the null handle */
    for (unsigned j = fhash(h, t->nslot); t->slot[j]; j = (j + 1) & (unsigned)(t->nslot - 1))
        if (t->key[t->slot[j] - 1] == h)
            t->key[t->slot[j] - 1] = 0;
    t->key[i] = h;
    t->npending--;
    free(cell);
    /* the slot of the cell's key stays; it leads to the same entry */
    ftab_insert_slot(t, h, i);
    return h;
}

/* the integer of a handle that is not one of the objects */
static int f_created(int cls, uint64_t k)
{
    struct ftab *t = &ftabs[cls];
    int base = ompi_f_pre[cls].n, r = -1;
    pthread_mutex_lock(&t->mu);
    /* an integer given out for this handle before it existed */
    for (int i = 0; r < 0 && t->npending && i < t->n; i++)
        if ((t->key[i] & F_PENDING) && pending_resolve(t, i) == k)
            r = base + i;
    if (r < 0 && t->nslot) {
        for (unsigned j = fhash(k, t->nslot); t->slot[j]; j = (j + 1) & (unsigned)(t->nslot - 1)) {
            if (t->key[t->slot[j] - 1] == k) {
                r = base + t->slot[j] - 1;
                break;
            }
        }
    }
    if (r < 0 && ftab_grow(t) == 0) {
        t->key[t->n] = k;
        ftab_insert_slot(t, k, t->n);
        r = base + t->n++;
    }
    pthread_mutex_unlock(&t->mu);
    /* out of memory: the null object's integer */
    return r >= 0 ? r : ((const struct ompi_obj_head *)ompi_f_pre[cls].null)->f;
}

int ompi_f_out(int cls, const void *h)
{
    const struct ompi_f_pre *p = &ompi_f_pre[cls];
    uintptr_t v = (uintptr_t)h;
    if (!h)
        return ((const struct ompi_obj_head *)p->null)->f;
    if (cls == OMPI_F_FILE) {
        /* files are the engine's pointers, MPI_FILE_NULL an object */
        if (h == p->null)
            return ((const struct ompi_obj_head *)h)->f;
        return f_created(cls, v);
    }
    if (v >> 31 == 1)
        return f_created(cls, v);
    /* an object: a program linked without PIE has its own copy, whose
     * second word is the library's */
    int f = ((const struct ompi_obj_head *)h)->f;
    return f >= 0 ? f : ((const struct ompi_obj_head *)p->null)->f;
}

void *ompi_f_in(int cls, int f)
{
    const struct ompi_f_pre *p = &ompi_f_pre[cls];
    if (f >= 0 && f < p->n)
        return p->obj[f] ? p->obj[f] : p->null;
    if (f < p->n)
        return p->null;
    struct ftab *t = &ftabs[cls];
    uint64_t k = 0;
    pthread_mutex_lock(&t->mu);
    if (f - p->n < t->n) {
        k = t->key[f - p->n];
        if (k & F_PENDING)
            k = pending_resolve(t, f - p->n);
    }
    pthread_mutex_unlock(&t->mu);
    /* an integer never handed out is no handle: the null object */
    return k ? (void *)(uintptr_t)k : p->null;
}

/* libmpi_mpifh.so.40's MPI_COMM_IDUP: an integer for the communicator the
 * engine will write into *cell (zeroed, malloc'ed; freed here once written),
 * -1 when out of memory */
int railmpi_ompi_f_pending(int cls, void *cell);
int railmpi_ompi_f_pending(int cls, void *cell)
{
    struct ftab *t = &ftabs[cls];
    int r = -1;
    pthread_mutex_lock(&t->mu);
    if (ftab_grow(t) == 0) {
        uint64_t k = (uint64_t)(uintptr_t)cell | F_PENDING;
        t->key[t->n] = k;
        ftab_insert_slot(t, k, t->n);
        t->npending++;
        r = ompi_f_pre[cls].n + t->n++;
    }
    pthread_mutex_unlock(&t->mu);
    return r;
}

/* Open MPI's sentinels: the common blocks of its mpif.h (and the objects its
 * modules bind to them), of Fortran's sizes (MPI_STATUS_SIZE 6). A program
 * that names one has its own, which the dynamic linker prefers, so
 * libmpi_mpifh.so.40 compares against the addresses the program passes. */
extern MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_errcodes_ignore_[1],
    mpi_fortran_status_ignore_[6], mpi_fortran_statuses_ignore_[6], mpi_fortran_unweighted_[1],
    mpi_fortran_weights_empty_[1];
extern char mpi_fortran_argv_null_[1], mpi_fortran_argvs_null_[1];
MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_errcodes_ignore_[1],
    mpi_fortran_status_ignore_[6], mpi_fortran_statuses_ignore_[6], mpi_fortran_unweighted_[1],
    mpi_fortran_weights_empty_[1];
char mpi_fortran_argv_null_[1], mpi_fortran_argvs_null_[1];

/* MPI_F_STATUS_IGNORE and MPI_F_STATUSES_IGNORE of Open MPI's mpi.h: the
 * addresses of its mpif.h's blocks (the engine's variables, src/mpi/init.c,
 * which this library's MPI_Status_f2c and _c2f compare against too) */
__attribute__((constructor)) static void f_status_ignore_init(void)
{
    MPI_F_STATUS_IGNORE = mpi_fortran_status_ignore_;
    MPI_F_STATUSES_IGNORE = mpi_fortran_statuses_ignore_;
}
