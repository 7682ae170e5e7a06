/* dirlist.h: the names in one directory, read once with readdir, so that
 * "is runs/<id> there?" for every run of a big dataset is a lookup, not a
 * stat(2) each (14,000 of them were a quarter of opening the index). */
#ifndef KB_DIRLIST_H
#define KB_DIRLIST_H

#include <stddef.h>

struct dirlist {
	char **names;             /* sorted (strcmp), owned */
	unsigned char *types;     /* d_type of each (DT_UNKNOWN when the file system does not say) */
	size_t n;
	int ok;                   /* the directory could be read */
};

/* Reads dir; an unreadable or absent directory is an empty list with ok 0. */
void dirlist_read(struct dirlist *dl, const char *dir);
void dirlist_free(struct dirlist *dl);

/* Whether dir/name is a directory (want_dir) or a regular file: the
 * listing answers when it names the type; a link or an unknown type is
 * stat(2)ed, as before, at dir/name. A name the listing lacks is absent. */
int dirlist_has(const struct dirlist *dl, const char *dir, const char *name, int want_dir);

#endif
