/* ranks: 1 2 */
/* Environment calls: init state, thread level, clocks, names, versions, memory. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define CHECK(c, m) do { if (!(c)) { printf("FAIL: %s\n", m); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

int main(int argc, char **argv)
{
    int flag, provided;
    MPI_Initialized(&flag);
    if (flag) {
        printf("FAIL: initialized before MPI_Init\n");
        return 1;
    }
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "THREAD_MULTIPLE not provided");
    int q;
    MPI_Query_thread(&q);
    CHECK(q == provided, "Query_thread");
    MPI_Is_thread_main(&flag);
    CHECK(flag, "Is_thread_main");
    MPI_Initialized(&flag);
    CHECK(flag, "Initialized");
    double t0 = MPI_Wtime(), tick = MPI_Wtick();
    CHECK(tick > 0 && tick < 0.01, "Wtick");
    double t1 = MPI_Wtime();
    CHECK(t1 >= t0, "Wtime goes backwards");
    char name[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(name, &len);
    CHECK(len > 0 && (int)strlen(name) == len, "processor name");
    int v, sv;
    MPI_Get_version(&v, &sv);
    CHECK(v == 4 && sv == 1 && v == MPI_VERSION && sv == MPI_SUBVERSION, "version 4.1");
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(lib, &len);
    CHECK(strstr(lib, "railmpi") != NULL || strstr(lib, "MPICH") != NULL || strstr(lib, "Open MPI") != NULL,
          "library version");
    void *mem;
    MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &mem);
    memset(mem, 1, 1 << 20);
    MPI_Free_mem(mem);
    int *tag_ub;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    CHECK(flag && *tag_ub >= 32767, "MPI_TAG_UB");
    MPI_Info info, dup;
    char val[64];
    int nkeys;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alpha", "1");
    MPI_Info_set(info, "beta", "two");
    MPI_Info_set(info, "alpha", "3");
    MPI_Info_get_nkeys(info, &nkeys);
    CHECK(nkeys == 2, "Info keys");
    MPI_Info_get(info, "alpha", sizeof val - 1, val, &flag);
    CHECK(flag && !strcmp(val, "3"), "Info_get");
    MPI_Info_dup(info, &dup);
    MPI_Info_delete(info, "alpha");
    MPI_Info_get(info, "alpha", sizeof val - 1, val, &flag);
    CHECK(!flag, "deleted key still there");
    MPI_Info_get_nthkey(dup, 1, val);
    CHECK(!strcmp(val, "beta"), "Info_get_nthkey");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    int rc = MPI_Info_delete(info, "nothere"), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_INFO_NOKEY, "delete of a missing key");
    MPI_Info_free(&info);
    MPI_Info_free(&dup);
    CHECK(info == MPI_INFO_NULL, "Info_free");
    MPI_Info_get(MPI_INFO_ENV, "maxprocs", sizeof val - 1, val, &flag);
    CHECK(flag, "MPI_INFO_ENV maxprocs");
    /* on one host there is no network rail to move traffic off */
    int moved = -1;
    CHECK(MPIX_Rail_migrate(0, 1, &moved) == MPI_SUCCESS && moved == 0, "MPIX_Rail_migrate on one host");
    CHECK(MPIX_Rail_migrate(0, 0, NULL) == MPI_SUCCESS, "MPIX_Rail_migrate back");
    rc = MPIX_Rail_migrate(-1, 1, &moved);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "MPIX_Rail_migrate with a negative rail");
    MPI_Finalize();
    MPI_Finalized(&flag);
    CHECK(flag, "Finalized");
    printf("OK\n");
    return 0;
}
