/* What programs built with MPICH's `use mpi_f08` need beyond the generated
 * entry points (docs/fortran.md): MPICH's f08 sentinel objects and the
 * array sections its *_f08ts_ procedures receive as gfortran descriptors. */
#include "fortran.h"

#include <stdio.h>
#include <string.h>

/* Defined here as MPICH defines them; a program that uses one has its own
 * copy (a copy relocation) and the library sees that one through the GOT. */
RM_FEXPORT MPI_Fint f08_bottom;
RM_FEXPORT MPI_Fint f08_in_place;
RM_FEXPORT MPI_Fint f08_status_ignore[MPI_F_STATUS_SIZE];
RM_FEXPORT MPI_Fint f08_statuses_ignore[MPI_F_STATUS_SIZE];
RM_FEXPORT MPI_Fint f08_errcodes_ignore;
RM_FEXPORT MPI_Fint f08_unweighted;
RM_FEXPORT MPI_Fint f08_weights_empty;
RM_FEXPORT char f08_argv_null;
RM_FEXPORT char f08_argvs_null;

/* The section as rank extents and byte strides; 0 when it is contiguous
 * (or has no elements: nothing moves), 1 when it is not. An assumed-size
 * last dimension (extent -1) is contiguous by definition. */
static int f_sect_shape(const struct f_gfc_desc *d, ptrdiff_t *ext, ptrdiff_t *sm, size_t *n)
{
    ptrdiff_t span = d->span ? d->span : (ptrdiff_t)d->elem_len;
    ptrdiff_t want = (ptrdiff_t)d->elem_len;
    int contig = 1;
    *n = 1;
    for (int k = 0; k < d->rank; k++) {
        ext[k] = d->dim[k].ubound - d->dim[k].lbound + 1;
        sm[k] = d->dim[k].stride * span;
        if (ext[k] < 0 && k == d->rank - 1) return 0;
        if (ext[k] <= 0) { *n = 0; return 0; }
        if (ext[k] > 1 && sm[k] != want) contig = 0;
        want *= ext[k];
        *n *= (size_t)ext[k];
    }
    return !contig;
}

/* Copy between the section and a packed buffer, element by element in
 * array element order; to_tmp chooses the direction. */
static void f_sect_copy(const struct f_gfc_desc *d, const ptrdiff_t *ext, const ptrdiff_t *sm,
                        size_t n, char *tmp, int to_tmp)
{
    ptrdiff_t idx[15] = {0};
    size_t len = d->elem_len;
    for (size_t i = 0; i < n; i++) {
        char *p = d->base_addr;
        for (int k = 0; k < d->rank; k++) p += idx[k] * sm[k];
        if (to_tmp) memcpy(tmp + i * len, p, len);
        else memcpy(p, tmp + i * len, len);
        for (int k = 0; k < d->rank && ++idx[k] == ext[k]; k++) idx[k] = 0;
    }
}

int f_sect_begin(const char *fn, const struct f_gfc_desc *d, int mode, int pack,
                 struct f_sect *s, void **addr)
{
    ptrdiff_t ext[15], sm[15];
    size_t n;
    s->d = d;
    s->tmp = NULL;
    s->copy_out = 0;
    *addr = d->base_addr;
    if (mode == F_SECT_ADDR || d->rank <= 0 || d->rank > 15 || !f_sect_shape(d, ext, sm, &n))
        return MPI_SUCCESS;
    if (!pack) {
        fprintf(stderr, "railmpi: %s (mpi_f08): a non-contiguous array section cannot be "
                "the buffer of a nonblocking, persistent, one-sided or attached-buffer call "
                "(pass a contiguous array)\n", fn);
        return MPI_ERR_BUFFER;
    }
    /* as the `mpi` module's copy-in/copy-out would: the C call sees the
     * elements of the section one after another */
    s->tmp = malloc(n * d->elem_len);
    if (!s->tmp) return MPI_ERR_NO_MEM;
    f_sect_copy(d, ext, sm, n, s->tmp, 1);
    s->copy_out = mode == F_SECT_OUT;
    *addr = s->tmp;
    return MPI_SUCCESS;
}

/* Nested hvectors of dt over the section's dimensions, innermost first:
 * one element per array element. */
static int f_sect_hvectors(const struct f_gfc_desc *d, const ptrdiff_t *ext, const ptrdiff_t *sm,
                           MPI_Datatype dt, MPI_Datatype *out)
{
    MPI_Datatype t = dt;
    int rc = MPI_SUCCESS;
    for (int k = 0; k < d->rank && rc == MPI_SUCCESS; k++) {
        MPI_Datatype next;
        rc = MPI_Type_create_hvector((int)ext[k], 1, sm[k], t, &next);
        if (t != dt) MPI_Type_free(&t);
        t = next;
    }
    *out = t;
    return rc;
}

int f_sect_typed(const char *fn, const struct f_gfc_desc *d, MPI_Fint *count, MPI_Fint *dtype,
                 struct f_sect *s, void **addr)
{
    ptrdiff_t ext[15], sm[15];
    size_t n;
    MPI_Aint lb, extent;
    s->d = d;
    s->tmp = NULL;
    s->copy_out = 0;
    s->has_type = 0;
    *addr = d->base_addr;
    if (d->rank <= 0 || d->rank > 15 || !f_sect_shape(d, ext, sm, &n))
        return MPI_SUCCESS;
    MPI_Datatype dt = (MPI_Datatype)*dtype, t = MPI_DATATYPE_NULL;
    int rc = MPI_Type_get_extent(dt, &lb, &extent);
    if (rc != MPI_SUCCESS) return rc;
    /* the section runs along one dimension (the others have one element) */
    int dims = 0;
    ptrdiff_t stride = 0;
    for (int k = 0; k < d->rank; k++)
        if (ext[k] > 1) { dims++; stride = sm[k]; }
    int one_elem = lb == 0 && extent == (MPI_Aint)d->elem_len;
    if (one_elem && dims == 1 && stride > 0) {
        /* DATATYPE stretched to the stride: COUNT, per-process counts and
         * displacements keep their meaning */
        rc = MPI_Type_create_resized(dt, 0, stride, &t);
    } else if (one_elem && count && *count >= 0 && (size_t)*count == n) {
        /* COUNT covers the whole section: one element of a type laid over it */
        rc = f_sect_hvectors(d, ext, sm, dt, &t);
        if (rc == MPI_SUCCESS) *count = 1;
    } else {
        fprintf(stderr, "railmpi: %s (mpi_f08): this non-contiguous array section cannot be "
                "described to a call that uses its buffer after it returns: one element of "
                "DATATYPE per array element, and a section along one dimension with a positive "
                "stride or COUNT elements over the whole section (pass a contiguous array)\n", fn);
        return MPI_ERR_BUFFER;
    }
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&t);
    if (rc != MPI_SUCCESS) {
        if (t != MPI_DATATYPE_NULL && t != dt) MPI_Type_free(&t);
        return rc;
    }
    s->has_type = 1;
    s->type = t;
    *dtype = (MPI_Fint)t;
    return MPI_SUCCESS;
}

int f_sect_shared(const char *fn, int nb, const struct f_gfc_desc *const *d, MPI_Fint *dtype,
                  struct f_sect *s, void **addr)
{
    ptrdiff_t ext[15], sm[15];
    size_t n;
    MPI_Aint lb, extent;
    ptrdiff_t stride = 0; /* that every buffer with more than one element needs */
    int ok = 1, strided = 0;
    for (int i = 0; i < nb; i++) {
        s[i].d = d[i];
        s[i].tmp = NULL;
        s[i].copy_out = 0;
        s[i].has_type = 0;
        addr[i] = d[i]->base_addr;
        if (d[i]->rank <= 0 || d[i]->rank > 15) continue; /* a scalar or a sentinel */
        int dims = 0;
        ptrdiff_t st = (ptrdiff_t)d[i]->elem_len;
        if (f_sect_shape(d[i], ext, sm, &n)) {
            strided = 1;
            for (int k = 0; k < d[i]->rank; k++)
                if (ext[k] > 1) { dims++; st = sm[k]; }
            if (dims != 1 || st <= 0) ok = 0;
        } else if (n <= 1) {
            continue;
        }
        if (stride && st != stride) ok = 0;
        stride = st;
    }
    if (!strided) return MPI_SUCCESS;
    MPI_Datatype dt = (MPI_Datatype)*dtype, t;
    int rc = MPI_Type_get_extent(dt, &lb, &extent);
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; i < nb; i++)
        if (d[i]->rank > 0 && extent != (MPI_Aint)d[i]->elem_len) ok = 0;
    if (!ok || lb != 0) {
        fprintf(stderr, "railmpi: %s (mpi_f08): buffers that share DATATYPE in a call that uses "
                "them after it returns must be sections along one dimension with the same "
                "positive stride, one element of DATATYPE per array element (pass contiguous "
                "arrays)\n", fn);
        return MPI_ERR_BUFFER;
    }
    rc = MPI_Type_create_resized(dt, 0, stride, &t);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&t);
    if (rc != MPI_SUCCESS) return rc;
    s[0].has_type = 1; /* one reference, dropped with the first buffer */
    s[0].type = t;
    *dtype = (MPI_Fint)t;
    return MPI_SUCCESS;
}

void f_sect_end(struct f_sect *s)
{
    /* a pending operation keeps its own reference to the type */
    if (s->has_type) MPI_Type_free(&s->type);
    s->has_type = 0;
    if (!s->tmp) return;
    if (s->copy_out) {
        ptrdiff_t ext[15], sm[15];
        size_t n;
        f_sect_shape(s->d, ext, sm, &n);
        f_sect_copy(s->d, ext, sm, n, s->tmp, 0);
    }
    free(s->tmp);
    s->tmp = NULL;
}

/* MPI_F_SYNC_REG (MPI-3.1 17.1.7) only has to be an external call the
 * compiler cannot see through. */
RM_FEXPORT void mpi_f_sync_reg_f08ts_(const struct f_gfc_desc *buf)
{
    (void)buf;
}
RM_FALIAS(mpi_f_sync_reg_f08ts_, pmpi_f_sync_reg_f08ts_)
