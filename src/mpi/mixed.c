/* One MPI library per process: MPI_Init, MPI_Init_thread and
 * MPI_Session_init fail with a message naming both libraries when another
 * MPI library is loaded beside this one (railmpi's other ABI, another copy
 * of railmpi, MPICH, Open MPI, ...), instead of leaving the process to crash
 * when the two mix their handles. docs/abi.md, "One MPI library per process".
 *
 * An MPI library is a loaded object that defines PMPI_Init itself (a
 * profiling library defines MPI_Init only). railmpi's libraries carry an ELF
 * note (below), so the message can say which of the two is railmpi's. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi/mpiimpl.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>

/* the note "railmpi" (type 1) in an allocated SHT_NOTE section: the linker
 * gives it a PT_NOTE segment that dl_iterate_phdr shows */
__asm__(".pushsection .note.railmpi,\"a\",@note\n"
        ".balign 4\n"
        ".long 8\n"
        ".long 4\n"
        ".long 1\n"
        ".asciz \"railmpi\"\n"
        ".balign 4\n"
        ".long 1\n"
        ".popsection\n");

#define MIXED_MAX 512

/* the names are the loader's (link_map l_name), valid while the objects stay */
typedef struct {
    uintptr_t self;
    int n;
    struct {
        const char *name;
        uintptr_t base;
        int railmpi;
    } lib[MIXED_MAX];
} mixed_scan_t;

static int mixed_has_note(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
            const char *name = p + sizeof *nh;
            size_t next = sizeof *nh + ((nh->n_namesz + 3) & ~3u) + ((nh->n_descsz + 3) & ~3u);
            if (nh->n_namesz == 8 && nh->n_type == 1 && name + 8 <= end && !memcmp(name, "railmpi", 8))
                return 1;
            p += next;
        }
    }
    return 0;
}

/* the loader's lock is held here: only record, look symbols up afterwards */
static int mixed_collect(struct dl_phdr_info *info, size_t size, void *arg)
{
    mixed_scan_t *s = arg;
    (void)size;
    if (!info->dlpi_name || !info->dlpi_name[0] || info->dlpi_addr == s->self || s->n == MIXED_MAX)
        return 0;
    s->lib[s->n].name = info->dlpi_name;
    s->lib[s->n].base = info->dlpi_addr;
    s->lib[s->n].railmpi = mixed_has_note(info);
    s->n++;
    return 0;
}

/* does the object loaded at base define PMPI_Init itself (not through one of
 * its dependencies)? */
static int mixed_defines_init(const char *name, uintptr_t base)
{
    void *h = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    int yes = 0;
    void *sym = dlsym(h, "PMPI_Init");
    Dl_info di;
    struct link_map *lm = NULL;
    if (sym && dladdr1(sym, &di, (void **)&lm, RTLD_DL_LINKMAP) && lm && lm->l_addr == base)
        yes = 1;
    dlclose(h);
    return yes;
}

int mpi_mixed_check(const char *fn_name_)
{
    Dl_info di;
    struct link_map *lm = NULL;
    if (!dladdr1((void *)mpi_mixed_check, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return MPI_SUCCESS; /* linked into the program itself: nothing to compare */
    mixed_scan_t s = { .self = lm->l_addr };
    dl_iterate_phdr(mixed_collect, &s);
    for (int i = 0; i < s.n; i++) {
        if (!s.lib[i].railmpi && !mixed_defines_init(s.lib[i].name, s.lib[i].base))
            continue;
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn_name_,
                             "two MPI libraries are loaded in this process: railmpi's %s (this one) and "
                             "%s%s; a process can use only one MPI library (do not link or dlopen both)",
                             di.dli_fname ? di.dli_fname : "library", s.lib[i].railmpi ? "railmpi's " : "",
                             s.lib[i].name);
    }
    return MPI_SUCCESS;
}
