#include <elf.h>
#include <stdint.h>
/* find a function the linked object imports, through its own GOT (no dlsym) */
static void *imported(const char *want) {
    uintptr_t p = (uintptr_t)(void *)&imported & ~(uintptr_t)0xfff;
    while (memcmp((const void *)p, ELFMAG, SELFMAG) != 0) p -= 0x1000;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(p + eh->e_phoff);
    uintptr_t bias = p;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) { bias = p - ph[i].p_vaddr; break; }
    const Elf64_Dyn *dyn = 0;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_DYNAMIC) dyn = (const Elf64_Dyn *)(bias + ph[i].p_vaddr);
    uintptr_t strtab = 0, symtab = 0, jmprel = 0, rela = 0; size_t jsz = 0, rsz = 0;
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t v = dyn->d_un.d_ptr;
        switch (dyn->d_tag) {
        case DT_STRTAB: strtab = v; break;
        case DT_SYMTAB: symtab = v; break;
        case DT_JMPREL: jmprel = v; break;
        case DT_PLTRELSZ: jsz = v; break;
        case DT_RELA: rela = v; break;
        case DT_RELASZ: rsz = v; break;
        }
    }
    if (strtab < bias) strtab += bias;
    if (symtab < bias) symtab += bias;
    if (jmprel && jmprel < bias) jmprel += bias;
    if (rela && rela < bias) rela += bias;
    const Elf64_Sym *sym = (const Elf64_Sym *)symtab;
    for (int pass = 0; pass < 2; pass++) {
        const Elf64_Rela *r = (const Elf64_Rela *)(pass ? rela : jmprel);
        size_t n = (pass ? rsz : jsz) / sizeof *r;
        for (size_t i = 0; r && i < n; i++) {
            const char *name = (const char *)strtab + sym[ELF64_R_SYM(r[i].r_info)].st_name;
            if (ELF64_R_SYM(r[i].r_info) && strcmp(name, want) == 0)
                return *(void **)(bias + r[i].r_offset);
        }
    }
    return 0;
}
