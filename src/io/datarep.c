/* Data representations: "native" and "internal" (the same bytes as memory),
 * "external32" (the datatype engine's pack), and the ones an application
 * registers with MPI_Register_datarep, kept for the life of the library. */
#include "io/io.h"

#include <errno.h>
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
                        MPI_Datarep_conversion_function *wr, MPI_Datarep_extent_function *ext,
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
    r->extent = ext;
    r->state = state;
    r->next = io_reps;
    io_reps = r;
    return 0;
}
