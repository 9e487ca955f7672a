/* The MPI_T functions of Open MPI's ABI that take MPI_T handles
 * (docs/abi.md). MPI_T handles are pointers in both ABIs and pass as they
 * are, but for Open MPI's MPI_T_PVAR_ALL_HANDLES ((MPI_T_pvar_handle)-1);
 * verbosity, binding, scope and class come back with Open MPI's values; the
 * MPI object a variable is bound to is converted by the binding the engine
 * gives the variable. The engine checks the arguments. */
#include "ompi_conv.h"
#include "abi_tables.h"

typedef struct ompi_mpit_cvar_handle_t *abi_T_cvar_handle;
typedef struct mca_base_pvar_handle_t *abi_T_pvar_handle;
typedef struct mca_base_pvar_session_t *abi_T_pvar_session;
typedef struct mca_base_var_enum_t *abi_T_enum;

#define ABI_T_PVAR_ALL_HANDLES ((abi_T_pvar_handle)(intptr_t)-1)

static void int_out(int *p, int (*conv)(int))
{
    if (p)
        *p = conv(*p);
}

int PMPI_T_enum_get_info(abi_T_enum enumtype, int *num, char *name, int *name_len)
{
    return err_out(RMI_PMPI_T_enum_get_info((MPI_T_enum)(void *)enumtype, num, name, name_len));
}
#pragma weak MPI_T_enum_get_info = PMPI_T_enum_get_info

int PMPI_T_enum_get_item(abi_T_enum enumtype, int indx, int *value, char *name, int *name_len)
{
    return err_out(RMI_PMPI_T_enum_get_item((MPI_T_enum)(void *)enumtype, indx, value, name, name_len));
}
#pragma weak MPI_T_enum_get_item = PMPI_T_enum_get_item

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         abi_Datatype *datatype, abi_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    int dt = 0;
    int rc = RMI_PMPI_T_cvar_get_info(cvar_index, name, name_len, verbosity, datatype ? &dt : NULL,
                                      (MPI_T_enum *)(void *)enumtype, desc, desc_len, bind, scope);
    if (rc != MPI_SUCCESS)
        return err_out(rc);
    int_out(verbosity, verbosity_out);
    int_out(bind, bind_out);
    int_out(scope, scope_out);
    if (datatype)
        *datatype = h_out_Datatype(dt);
    return MPI_SUCCESS;
}
#pragma weak MPI_T_cvar_get_info = PMPI_T_cvar_get_info

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         abi_Datatype *datatype, abi_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *readonly, int *continuous, int *atomic)
{
    int dt = 0;
    int rc = RMI_PMPI_T_pvar_get_info(pvar_index, name, name_len, verbosity, var_class,
                                      datatype ? &dt : NULL, (MPI_T_enum *)(void *)enumtype, desc,
                                      desc_len, bind, readonly, continuous, atomic);
    if (rc != MPI_SUCCESS)
        return err_out(rc);
    int_out(verbosity, verbosity_out);
    int_out(var_class, pvarclass_out);
    int_out(bind, bind_out);
    if (datatype)
        *datatype = h_out_Datatype(dt);
    return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_get_info = PMPI_T_pvar_get_info

/* the engine's form of the object a variable is bound to: obj_handle points
 * at the program's handle of the class `bind` names */
typedef union {
    int h;
    MPI_File f;
} bound_t;

static void *bound_in(int bind, void *obj_handle, bound_t *b)
{
    if (!obj_handle || bind == MPI_T_BIND_NO_OBJECT)
        return obj_handle;
    if (bind == MPI_T_BIND_MPI_FILE)
        b->f = f_in(*(abi_File *)obj_handle);
    else
        b->h = h_in(*(void **)obj_handle);
    return b;
}

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, abi_T_cvar_handle *handle, int *count)
{
    char name[2], desc[2];
    int nl = sizeof name, dl = sizeof desc, verb, bind = MPI_T_BIND_NO_OBJECT, scope;
    MPI_Datatype dt;
    MPI_T_enum en;
    bound_t b;
    if (RMI_PMPI_T_cvar_get_info(cvar_index, name, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope) !=
        MPI_SUCCESS)
        bind = MPI_T_BIND_NO_OBJECT; /* the engine reports the bad index below */
    return err_out(RMI_PMPI_T_cvar_handle_alloc(cvar_index, bound_in(bind, obj_handle, &b),
                                                (MPI_T_cvar_handle *)(void *)handle, count));
}
#pragma weak MPI_T_cvar_handle_alloc = PMPI_T_cvar_handle_alloc

int PMPI_T_cvar_handle_free(abi_T_cvar_handle *handle)
{
    return err_out(RMI_PMPI_T_cvar_handle_free((MPI_T_cvar_handle *)(void *)handle));
}
#pragma weak MPI_T_cvar_handle_free = PMPI_T_cvar_handle_free

int PMPI_T_cvar_read(abi_T_cvar_handle handle, void *buf)
{
    return err_out(RMI_PMPI_T_cvar_read((MPI_T_cvar_handle)(void *)handle, buf));
}
#pragma weak MPI_T_cvar_read = PMPI_T_cvar_read

int PMPI_T_cvar_write(abi_T_cvar_handle handle, const void *buf)
{
    return err_out(RMI_PMPI_T_cvar_write((MPI_T_cvar_handle)(void *)handle, buf));
}
#pragma weak MPI_T_cvar_write = PMPI_T_cvar_write

int PMPI_T_pvar_session_create(abi_T_pvar_session *session)
{
    return err_out(RMI_PMPI_T_pvar_session_create((MPI_T_pvar_session *)(void *)session));
}
#pragma weak MPI_T_pvar_session_create = PMPI_T_pvar_session_create

int PMPI_T_pvar_session_free(abi_T_pvar_session *session)
{
    return err_out(RMI_PMPI_T_pvar_session_free((MPI_T_pvar_session *)(void *)session));
}
#pragma weak MPI_T_pvar_session_free = PMPI_T_pvar_session_free

int PMPI_T_pvar_handle_alloc(abi_T_pvar_session session, int pvar_index, void *obj_handle,
                             abi_T_pvar_handle *handle, int *count)
{
    char name[2], desc[2];
    int nl = sizeof name, dl = sizeof desc, verb, cls, bind = MPI_T_BIND_NO_OBJECT, ro, cont, at;
    MPI_Datatype dt;
    MPI_T_enum en;
    bound_t b;
    if (RMI_PMPI_T_pvar_get_info(pvar_index, name, &nl, &verb, &cls, &dt, &en, desc, &dl, &bind, &ro,
                                 &cont, &at) != MPI_SUCCESS)
        bind = MPI_T_BIND_NO_OBJECT;
    return err_out(RMI_PMPI_T_pvar_handle_alloc((MPI_T_pvar_session)(void *)session, pvar_index,
                                                bound_in(bind, obj_handle, &b),
                                                (MPI_T_pvar_handle *)(void *)handle, count));
}
#pragma weak MPI_T_pvar_handle_alloc = PMPI_T_pvar_handle_alloc

int PMPI_T_pvar_handle_free(abi_T_pvar_session session, abi_T_pvar_handle *handle)
{
    return err_out(RMI_PMPI_T_pvar_handle_free((MPI_T_pvar_session)(void *)session,
                                               (MPI_T_pvar_handle *)(void *)handle));
}
#pragma weak MPI_T_pvar_handle_free = PMPI_T_pvar_handle_free

static MPI_T_pvar_handle pvar_in(abi_T_pvar_handle h)
{
    return h == ABI_T_PVAR_ALL_HANDLES ? MPI_T_PVAR_ALL_HANDLES : (MPI_T_pvar_handle)(void *)h;
}

int PMPI_T_pvar_start(abi_T_pvar_session session, abi_T_pvar_handle handle)
{
    return err_out(RMI_PMPI_T_pvar_start((MPI_T_pvar_session)(void *)session, pvar_in(handle)));
}
#pragma weak MPI_T_pvar_start = PMPI_T_pvar_start

int PMPI_T_pvar_stop(abi_T_pvar_session session, abi_T_pvar_handle handle)
{
    return err_out(RMI_PMPI_T_pvar_stop((MPI_T_pvar_session)(void *)session, pvar_in(handle)));
}
#pragma weak MPI_T_pvar_stop = PMPI_T_pvar_stop

int PMPI_T_pvar_reset(abi_T_pvar_session session, abi_T_pvar_handle handle)
{
    return err_out(RMI_PMPI_T_pvar_reset((MPI_T_pvar_session)(void *)session, pvar_in(handle)));
}
#pragma weak MPI_T_pvar_reset = PMPI_T_pvar_reset

int PMPI_T_pvar_read(abi_T_pvar_session session, abi_T_pvar_handle handle, void *buf)
{
    return err_out(RMI_PMPI_T_pvar_read((MPI_T_pvar_session)(void *)session, pvar_in(handle), buf));
}
#pragma weak MPI_T_pvar_read = PMPI_T_pvar_read

int PMPI_T_pvar_write(abi_T_pvar_session session, abi_T_pvar_handle handle, const void *buf)
{
    return err_out(RMI_PMPI_T_pvar_write((MPI_T_pvar_session)(void *)session, pvar_in(handle), buf));
}
#pragma weak MPI_T_pvar_write = PMPI_T_pvar_write

int PMPI_T_pvar_readreset(abi_T_pvar_session session, abi_T_pvar_handle handle, void *buf)
{
    return err_out(
        RMI_PMPI_T_pvar_readreset((MPI_T_pvar_session)(void *)session, pvar_in(handle), buf));
}
#pragma weak MPI_T_pvar_readreset = PMPI_T_pvar_readreset
