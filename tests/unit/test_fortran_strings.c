/* Fortran strings to C (src/fortran/f_strings.c): trailing and leading
 * blanks, blank-padded output, MPI_COMM_SPAWN's ARGV lists ended by a blank
 * entry, ARRAY_OF_ARGV(COUNT, *) read column by column, the MPI_ARGV_NULL
 * and MPI_ARGVS_NULL sentinels of MPICH's COMMON /MPIPRIVC/. */
#include "fortran.h"

#include <stdio.h>
#include <string.h>

struct f_privc mpiprivc_; /* the library defines it; this test links one file */
char f08_argv_null, f08_argvs_null; /* MPICH's mpi_f08 sentinels, as above */

static int fails;
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); fails++; } } while (0)

int main(void)
{
    char *c = f_str_in("  ab c   ", 9);
    EXPECT(c && strcmp(c, "ab c") == 0, "str_in: '%s'", c);
    free(c);
    c = f_str_in("    ", 4);
    EXPECT(c && c[0] == 0, "blank str_in");
    free(c);

    char f[8];
    f_str_out("xyz", f, sizeof f);
    EXPECT(memcmp(f, "xyz     ", 8) == 0, "str_out pads with blanks");
    f_str_out("0123456789", f, sizeof f);
    EXPECT(memcmp(f, "01234567", 8) == 0, "str_out truncates");

    /* CHARACTER*5 ARGV(4) = 'a', '-n 3', ' ', 'zz' */
    char **argv = NULL;
    EXPECT(f_argv_in("a    -n 3      zz   ", 5, &argv) == MPI_SUCCESS, "argv_in");
    EXPECT(argv && argv[0] && strcmp(argv[0], "a") == 0 && strcmp(argv[1], "-n 3") == 0 && argv[2] == NULL,
           "argv ends at the blank entry");
    f_argv_free(argv);
    EXPECT(f_argv_in(mpiprivc_.argv_null, 1, &argv) == MPI_SUCCESS && argv == MPI_ARGV_NULL, "MPI_ARGV_NULL");
    EXPECT(f_argv_in(&f08_argv_null, 1, &argv) == MPI_SUCCESS && argv == MPI_ARGV_NULL, "mpi_f08's MPI_ARGV_NULL");
    f_argv_free(argv);

    /* CHARACTER*2 ARGVS(2, 3): column-major, (i, j) = argument j of command i:
     * command 1: 'p', 'q';  command 2: 'r' */
    const char argvs_f[] = "p r " "q   " "    ";
    char ***argvs = NULL;
    EXPECT(f_argvs_in(argvs_f, 2, 2, &argvs) == MPI_SUCCESS, "argvs_in");
    EXPECT(argvs && strcmp(argvs[0][0], "p") == 0 && strcmp(argvs[0][1], "q") == 0 && argvs[0][2] == NULL,
           "first command's arguments");
    EXPECT(argvs && strcmp(argvs[1][0], "r") == 0 && argvs[1][1] == NULL, "second command's arguments");
    f_argvs_free(argvs, 2);
    EXPECT(f_argvs_in(mpiprivc_.argvs_null, 2, 1, &argvs) == MPI_SUCCESS && argvs == MPI_ARGVS_NULL, "MPI_ARGVS_NULL");
    EXPECT(f_argvs_in(&f08_argvs_null, 2, 1, &argvs) == MPI_SUCCESS && argvs == MPI_ARGVS_NULL, "mpi_f08's MPI_ARGVS_NULL");

    char **cmds = NULL;
    EXPECT(f_str_arr_in("./a  ./bb ", 2, 5, &cmds) == MPI_SUCCESS, "str_arr_in");
    EXPECT(cmds && strcmp(cmds[0], "./a") == 0 && strcmp(cmds[1], "./bb") == 0 && cmds[2] == NULL, "commands");
    f_argv_free(cmds);

    if (fails) return 1;
    printf("OK\n");
    return 0;
}
