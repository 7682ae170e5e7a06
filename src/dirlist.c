/* dirlist.c: one readdir of a directory, sorted, looked up by bisection. */
#include "dirlist.h"
#include "util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct dl_ent {
	char *name;
	unsigned char type;
};

static int dl_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dl_ent *)a)->name, ((const struct dl_ent *)b)->name);
}

void dirlist_read(struct dirlist *dl, const char *dir)
{
	memset(dl, 0, sizeof *dl);
	DIR *d = opendir(dir);
	if (!d)
		return;
	dl->ok = 1;
	struct dl_ent *e = NULL;
	size_t cap = 0;
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (dl->n == cap)
			e = xrealloc(e, (cap = cap ? cap * 2 : 64) * sizeof *e);
		e[dl->n++] = (struct dl_ent){ xstrdup(de->d_name), de->d_type };
	}
	closedir(d);
	if (!dl->n) {
		free(e);
		return;
	}
	qsort(e, dl->n, sizeof *e, dl_cmp);
	dl->names = xmalloc(dl->n * sizeof *dl->names);
	dl->types = xmalloc(dl->n);
	for (size_t i = 0; i < dl->n; i++) {
		dl->names[i] = e[i].name;
		dl->types[i] = e[i].type;
	}
	free(e);
}

void dirlist_free(struct dirlist *dl)
{
	for (size_t i = 0; i < dl->n; i++)
		free(dl->names[i]);
	free(dl->names);
	free(dl->types);
	memset(dl, 0, sizeof *dl);
}

/* Index of name in the listing, -1 when absent. */
static long dl_find(const struct dirlist *dl, const char *name)
{
	size_t lo = 0, hi = dl->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(dl->names[mid], name);
		if (!c)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int dirlist_has(const struct dirlist *dl, const char *dir, const char *name, int want_dir)
{
	long at = dl_find(dl, name);
	if (at < 0)
		return 0;
	unsigned char t = dl->types[at];
	if (t == DT_DIR || t == DT_REG)
		return (t == DT_DIR) == !!want_dir;
	/* a symbolic link (followed, as stat(2) does) or a type not given */
	char *p = util_path_join(dir, name);
	int r = want_dir ? util_is_dir(p) : util_is_file(p);
	free(p);
	return r;
}
