/* objscan.c: the symbol table and the constructor sections of an ELF64
 * relocatable object, bounds-checked (the object is hostile). */
#include "objscan.h"
#include "util.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct objscan_file {
	const unsigned char *d;
	size_t n;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const char *shstr;
	size_t shstr_n;
};

/* off..off+len lies in the file, 8-byte aligned (tables are read in place) */
static int os_range(const struct objscan_file *f, uint64_t off, uint64_t len)
{
	return off % 8 == 0 && off <= f->n && len <= f->n - off;
}

/* a string table needs no alignment */
static int os_brange(const struct objscan_file *f, uint64_t off, uint64_t len)
{
	return off <= f->n && len <= f->n - off;
}

static const char *os_str(const char *tab, size_t n, uint64_t i)
{
	if (!tab || i >= n || !memchr(tab + i, '\0', n - i))
		return NULL;
	return tab + i;
}

static const char *os_secname(const struct objscan_file *f, unsigned i)
{
	const char *s = i < f->eh->e_shnum ? os_str(f->shstr, f->shstr_n, f->sh[i].sh_name) : NULL;
	return s ? s : "?";
}

static void os_push(char ***v, int *n, char *s)
{
	*v = xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
	(*v)[(*n)++] = s;
}

/* The name for section sec + off: a function or object symbol defined
 * there, else "section+off". */
static char *os_target(const struct objscan_file *f, const Elf64_Sym *syms, size_t nsym, const char *str,
                       size_t nstr, unsigned sec, uint64_t off)
{
	for (size_t i = 0; i < nsym; i++) {
		int t = ELF64_ST_TYPE(syms[i].st_info);
		const char *nm = os_str(str, nstr, syms[i].st_name);
		if (syms[i].st_shndx == sec && syms[i].st_value == off && (t == STT_FUNC || t == STT_NOTYPE) && nm && *nm)
			return xstrdup(nm);
	}
	return xasprintf("%s+%llu", os_secname(f, sec), (unsigned long long)off);
}

/* Entries of an init array section idx, through its RELA section. */
static void os_init_entries(struct objscan *o, const struct objscan_file *f, unsigned idx, const Elf64_Sym *syms,
                            size_t nsym, const char *str, size_t nstr)
{
	int found = 0;
	for (unsigned r = 0; r < f->eh->e_shnum; r++) {
		const Elf64_Shdr *rs = &f->sh[r];
		if (rs->sh_type != SHT_RELA || rs->sh_info != idx || !os_range(f, rs->sh_offset, rs->sh_size))
			continue;
		const Elf64_Rela *ra = (const Elf64_Rela *)(f->d + rs->sh_offset);
		for (size_t k = 0; k < rs->sh_size / sizeof *ra; k++) {
			size_t si = ELF64_R_SYM(ra[k].r_info);
			if (si >= nsym)
				continue;
			const Elf64_Sym *s = &syms[si];
			const char *nm = os_str(str, nstr, s->st_name);
			char *t = ELF64_ST_TYPE(s->st_info) == STT_SECTION || !nm || !*nm
			              ? os_target(f, syms, nsym, str, nstr, s->st_shndx, (uint64_t)ra[k].r_addend)
			              : xstrdup(nm);
			os_push(&o->init, &o->ninit, t);
			found++;
		}
	}
	/* entries without relocations (absolute addresses): counted, unnamed */
	for (uint64_t k = (uint64_t)found; k < f->sh[idx].sh_size / 8; k++)
		os_push(&o->init, &o->ninit, xasprintf("%s[%llu]", os_secname(f, idx), (unsigned long long)k));
}

static int os_header(struct objscan_file *f, char **err, const char *path)
{
	f->eh = (const Elf64_Ehdr *)f->d;
	if (f->n < sizeof *f->eh || memcmp(f->d, ELFMAG, SELFMAG) != 0) {
		*err = xasprintf("%s: not an ELF object", path);
		return -1;
	}
	if (f->d[EI_CLASS] != ELFCLASS64 || f->d[EI_DATA] != ELFDATA2LSB || f->eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !os_range(f, f->eh->e_shoff, (uint64_t)f->eh->e_shnum * sizeof(Elf64_Shdr)) ||
	    f->eh->e_shstrndx >= f->eh->e_shnum) {
		*err = xasprintf("%s: not a 64-bit little-endian ELF object with a section table", path);
		return -1;
	}
	f->sh = (const Elf64_Shdr *)(f->d + f->eh->e_shoff);
	const Elf64_Shdr *ss = &f->sh[f->eh->e_shstrndx];
	if (!os_brange(f, ss->sh_offset, ss->sh_size)) {
		*err = xasprintf("%s: section names out of the file", path);
		return -1;
	}
	f->shstr = (const char *)(f->d + ss->sh_offset);
	f->shstr_n = ss->sh_size;
	return 0;
}

static int os_scan(struct objscan *o, struct objscan_file *f, char **err, const char *path)
{
	const Elf64_Sym *syms = NULL;
	const char *str = NULL;
	size_t nsym = 0, nstr = 0;
	for (unsigned i = 0; i < f->eh->e_shnum; i++) {
		const Elf64_Shdr *s = &f->sh[i];
		if (s->sh_type != SHT_SYMTAB)
			continue;
		if (!os_range(f, s->sh_offset, s->sh_size) || s->sh_link >= f->eh->e_shnum ||
		    !os_brange(f, f->sh[s->sh_link].sh_offset, f->sh[s->sh_link].sh_size)) {
			*err = xasprintf("%s: symbol table out of the file", path);
			return -1;
		}
		syms = (const Elf64_Sym *)(f->d + s->sh_offset);
		nsym = s->sh_size / sizeof *syms;
		str = (const char *)(f->d + f->sh[s->sh_link].sh_offset);
		nstr = f->sh[s->sh_link].sh_size;
	}
	for (size_t i = 1; i < nsym; i++) {
		const char *nm = os_str(str, nstr, syms[i].st_name);
		int b = ELF64_ST_BIND(syms[i].st_info), t = ELF64_ST_TYPE(syms[i].st_info);
		if (!nm || !*nm || t == STT_SECTION || t == STT_FILE)
			continue;
		o->syms = xrealloc(o->syms, (size_t)(o->nsyms + 1) * sizeof *o->syms);
		struct objscan_sym *y = &o->syms[o->nsyms++];
		y->name = xstrdup(nm);
		y->defined = syms[i].st_shndx != SHN_UNDEF;
		y->global = b == STB_GLOBAL || b == STB_WEAK || b == STB_GNU_UNIQUE;
		y->weak = b == STB_WEAK;
	}
	for (unsigned i = 0; i < f->eh->e_shnum; i++) {
		const char *nm = os_secname(f, i);
		unsigned t = f->sh[i].sh_type;
		if (t == SHT_INIT_ARRAY || t == SHT_PREINIT_ARRAY || !strncmp(nm, ".init_array", 11))
			os_init_entries(o, f, i, syms, nsym, str, nstr);
		if (t == SHT_PREINIT_ARRAY || t == SHT_FINI_ARRAY || !strncmp(nm, ".ctors", 6) || !strncmp(nm, ".dtors", 6) ||
		    !strncmp(nm, ".fini_array", 11) || !strncmp(nm, ".preinit_array", 14))
			os_push(&o->runs, &o->nruns, xstrdup(nm));
	}
	return 0;
}

struct objscan *objscan_load(const char *path, char **err)
{
	size_t n = 0;
	char *data = util_read_file(path, &n);
	struct objscan_file f = {0};
	struct objscan *o;
	if (!data) {
		*err = xasprintf("%s: cannot read the compiled object", path);
		return NULL;
	}
	f.d = (const unsigned char *)data;
	f.n = n;
	o = xcalloc(1, sizeof *o);
	if (os_header(&f, err, path) < 0 || os_scan(o, &f, err, path) < 0) {
		objscan_free(o);
		o = NULL;
	}
	free(data);
	return o;
}

void objscan_free(struct objscan *o)
{
	if (!o)
		return;
	for (int i = 0; i < o->nsyms; i++)
		free(o->syms[i].name);
	for (int i = 0; i < o->ninit; i++)
		free(o->init[i]);
	for (int i = 0; i < o->nruns; i++)
		free(o->runs[i]);
	free(o->syms);
	free(o->init);
	free(o->runs);
	free(o);
}
