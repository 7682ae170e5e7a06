/* objscan.h: what a compiled solution object (ELF64 relocatable, as nvcc -c
 * writes it for the host) defines, needs and runs before main, read without
 * binutils, so that the eval loop can refuse it before the device is
 * needed. */
#ifndef KB_OBJSCAN_H
#define KB_OBJSCAN_H

#include <stddef.h>

struct objscan_sym {
	char *name;          /* owned */
	int defined;         /* 0: undefined (the object needs it) */
	int global;          /* STB_GLOBAL or STB_WEAK */
	int weak;
};

struct objscan {
	struct objscan_sym *syms;
	int nsyms;
	/* functions .init_array / .preinit_array entries point at, by name
	 * (a section name "+offset" when no symbol is there); owned */
	char **init;
	int ninit;
	/* sections that run code around main besides .init_array: .ctors,
	 * .dtors, .fini_array, .preinit_array (names, owned) */
	char **runs;
	int nruns;
};

/* Reads path. NULL with *err (owned) naming the file and what was wrong. */
struct objscan *objscan_load(const char *path, char **err);
void objscan_free(struct objscan *o);

#endif
