/* Data representations: "native" and "internal" (the same bytes as memory),
 * "external32" (the datatype engine's pack), and the ones an application
 * registers with MPI_Register_datarep, kept for the life of the library. */
#include "io/io.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static io_datarep_t *io_reps;

int io_datarep_find(const char *name, enum io_rep *rep, io_datarep_t **u)
{
    *u = NULL;
    if (!strcmp(name, "native") || !strcmp(name, "internal")) {
        *rep = IO_REP_NATIVE;
        return 0;
    }
    if (!strcmp(name, "external32")) {
        *rep = IO_REP_EXTERNAL32;
        return 0;
    }
    for (io_datarep_t *r = io_reps; r; r = r->next)
        if (!strcmp(r->name, name)) {
            *rep = IO_REP_USER;
            *u = r;
            return 0;
        }
    return -ENOENT;
}

int io_datarep_register(const char *name, MPI_Datarep_conversion_function *rd,
                        MPI_Datarep_conversion_function *wr,
                        MPI_Datarep_conversion_function_c *rd_c,
                        MPI_Datarep_conversion_function_c *wr_c, MPI_Datarep_extent_function *ext,
                        void *state)
{
    enum io_rep rep;
    io_datarep_t *u;
    if (io_datarep_find(name, &rep, &u) == 0)
        return -EEXIST;
    io_datarep_t *r = calloc(1, sizeof *r);
    if (!r)
        return -ENOMEM;
    strncpy(r->name, name, sizeof r->name - 1);
    r->rd = rd;
    r->wr = wr;
    r->rd_c = rd_c;
    r->wr_c = wr_c;
    r->extent = ext;
    r->state = state;
    r->next = io_reps;
    io_reps = r;
    return 0;
}

int io_datarep_converts(const io_datarep_t *u, int write)
{
    return write ? u->wr || u->wr_c : u->rd || u->rd_c;
}

int io_datarep_convert(const io_datarep_t *u, int write, void *userbuf, const dtype_t *dt,
                       MPI_Count count, char *filebuf)
{
    MPI_Datarep_conversion_function_c *fc = write ? u->wr_c : u->rd_c;
    if (fc)
        return fc(userbuf, dt->handle, count, filebuf, 0, u->state) == MPI_SUCCESS ? 0 : -EILSEQ;
    MPI_Datarep_conversion_function *fn = write ? u->wr : u->rd;
    /* MPI-4.1 14.5.3: the same buffer, successive positions */
    for (MPI_Count done = 0; done < count;) {
        MPI_Count n = count - done > INT_MAX ? INT_MAX : count - done;
        if (fn(userbuf, dt->handle, (int)n, filebuf + done * dt->size, (MPI_Offset)done,
               u->state) != MPI_SUCCESS)
            return -EILSEQ;
        done += n;
    }
    return 0;
}
