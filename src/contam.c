/* contam.c: another run's directory named, read or copied; solutions
 * compared by winnowed token k-gram fingerprints. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "contam.h"
#include "ftrack.h"
#include "idcache.h"
#include "run.h"
#include "util.h"

/* ---- fingerprints ------------------------------------------------------------------ */

/* The hash of the next token of s at *p, 0 at the end: identifiers and
 * keywords as written, every number one token, every string one token,
 * other characters one each; blanks and comments skipped. */
static unsigned long long contam_token(const char *s, size_t len, size_t *p)
{
	size_t i = *p;
	for (;;) {
		while (i < len && isspace((unsigned char)s[i]))
			i++;
		if (i < len && (s[i] == '#' || (s[i] == '/' && i + 1 < len && s[i + 1] == '/'))) {
			while (i < len && s[i] != '\n')
				i++;
			continue;
		}
		if (i + 1 < len && s[i] == '/' && s[i + 1] == '*') {
			const char *e = len - i > 2 ? strstr(s + i + 2, "*/") : NULL;
			i = e && (size_t)(e - s) < len ? (size_t)(e - s) + 2 : len;
			continue;
		}
		break;
	}
	if (i >= len) {
		*p = len;
		return 0;
	}
	size_t start = i;
	char tag = 0;
	if (isalpha((unsigned char)s[i]) || s[i] == '_') {
		while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '_'))
			i++;
	} else if (isdigit((unsigned char)s[i])) {
		while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '.'))
			i++;
		tag = 'N';
	} else if (s[i] == '"' || s[i] == '\'') {
		char q = s[i++];
		while (i < len && s[i] != q && s[i] != '\n')
			i += s[i] == '\\' && i + 1 < len ? 2 : 1;
		if (i < len)
			i++;
		tag = 'S';
	} else {
		i++;
	}
	*p = i;
	unsigned long long h = tag ? idcache_fnv(IDCACHE_FNV0, &tag, 1) : idcache_fnv(IDCACHE_FNV0, s + start, i - start);
	return h ? h : 1;
}

static int contam_cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
	return x < y ? -1 : x > y;
}

void contam_fingerprint(const char *text, size_t len, struct contam_fp *out)
{
	memset(out, 0, sizeof *out);
	size_t nt = 0, cap = 256, p = 0;
	unsigned long long *tok = xmalloc(cap * sizeof *tok), t;
	while ((t = contam_token(text, len, &p))) {
		if (nt == cap)
			tok = xrealloc(tok, (cap *= 2) * sizeof *tok);
		tok[nt++] = t;
	}
	if (nt < CONTAM_K) {
		free(tok);
		return;
	}
	/* the k-gram hashes, then the minimum of each window (the rightmost
	 * on ties), each kept once */
	size_t ng = nt - CONTAM_K + 1;
	unsigned long long *g = xmalloc(ng * sizeof *g);
	for (size_t i = 0; i < ng; i++)
		g[i] = idcache_fnv(IDCACHE_FNV0, tok + i, CONTAM_K * sizeof *tok);
	out->h = xmalloc((ng + 1) * sizeof *out->h);
	long last = -1;
	size_t nw = ng >= CONTAM_W ? ng - CONTAM_W + 1 : 1;
	for (size_t w = 0; w < nw; w++) {
		size_t m = w;
		for (size_t j = w; j < w + CONTAM_W && j < ng; j++)
			if (g[j] <= g[m])
				m = j;
		if ((long)m != last)
			out->h[out->n++] = g[m];
		last = (long)m;
	}
	qsort(out->h, out->n, sizeof *out->h, contam_cmp);
	size_t k = 0;
	for (size_t i = 0; i < out->n; i++)
		if (!k || out->h[k - 1] != out->h[i])
			out->h[k++] = out->h[i];
	out->n = k;
	free(g);
	free(tok);
}

void contam_fp_free(struct contam_fp *fp)
{
	free(fp->h);
	memset(fp, 0, sizeof *fp);
}

size_t contam_shared(const struct contam_fp *a, const struct contam_fp *b)
{
	size_t i = 0, j = 0, n = 0;
	while (i < a->n && j < b->n) {
		if (a->h[i] == b->h[j]) {
			n++;
			i++;
			j++;
		} else if (a->h[i] < b->h[j]) {
			i++;
		} else {
			j++;
		}
	}
	return n;
}

/* ---- run ids in text ---------------------------------------------------------------- */

static int contam_digits(const char *s, int n)
{
	for (int i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

const char *contam_find_id(const char *s, const char *own, size_t *len, const char **from)
{
	for (const char *p = *from; p && *p; p++) {
		if ((p > s && isalnum((unsigned char)p[-1])) || !contam_digits(p, 8) || p[8] != '_' ||
		    !contam_digits(p + 9, 6) || p[15] != '_' || !isalnum((unsigned char)p[16]))
			continue;
		size_t n = 16;
		while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '-' || p[n] == '.')
			n++;
		while (n > 16 && (p[n - 1] == '.' || p[n - 1] == '-'))
			n--;
		*from = p + n;
		if (own && !strncmp(own, p, n))
			continue;  /* this run, or a cut form of its id */
		*len = n;
		return p;
	}
	*from = NULL;
	return NULL;
}

int contam_lists(const char *cmd, const char *at)
{
	static const char *const listers[] = { "ls", "find", "tree", "du", "stat", "wc", "echo", "pwd", NULL };
	const char *seg = at;
	while (seg > cmd && !strchr(";|&\n(", seg[-1]))
		seg--;
	while (*seg == ' ' || *seg == '\t')
		seg++;
	size_t n = strcspn(seg, " \t;|&\n");
	for (int i = 0; listers[i]; i++)
		if (strlen(listers[i]) == n && !strncmp(seg, listers[i], n))
			return 1;
	return 0;
}

char *contam_run_id(const struct run *r)
{
	/* the folder first: a harness's own id (a session's) names no folder */
	if (r->source) {
		char *d = xstrdup(r->source), *slash = strrchr(d, '/');
		char *id = NULL;
		if (slash) {
			*slash = '\0';
			slash = strrchr(d, '/');
			if (slash && slash - d >= 4 && !strncmp(slash - 4, "runs", 4))
				id = xstrdup(slash + 1);
		}
		free(d);
		if (id)
			return id;
	}
	return r->meta.run_id && *r->meta.run_id ? xstrdup(r->meta.run_id) : NULL;
}

/* ---- solutions compared ------------------------------------------------------------------ */

/* A dataset's solutions fingerprinted once per process: the flags of every
 * run of a dataset compare each with all the earlier ones. */
struct contam_sol {
	char *root, *id;
	struct contam_fp fp;
};
static struct contam_sol *contam_cache;
static size_t contam_ncache;

/* The solution file of a run folder (solution.py, solution.cu ...),
 * owned; NULL when none. */
static char *contam_solution_path(const char *dir)
{
	DIR *d = opendir(dir);
	char *hit = NULL;
	struct dirent *de;
	while (d && !hit && (de = readdir(d)))
		if (!strncmp(de->d_name, "solution.", 9) && strcmp(de->d_name + 9, "json"))
			hit = util_path_join(dir, de->d_name);
	if (d)
		closedir(d);
	return hit;
}

static const struct contam_fp *contam_run_fp(const char *root, const char *id)
{
	for (size_t i = 0; i < contam_ncache; i++)
		if (!strcmp(contam_cache[i].root, root) && !strcmp(contam_cache[i].id, id))
			return &contam_cache[i].fp;
	char *runs = util_path_join(root, "runs"), *dir = util_path_join(runs, id);
	char *path = contam_solution_path(dir);
	size_t len = 0;
	char *text = path ? util_read_file(path, &len) : NULL;
	contam_cache = xrealloc(contam_cache, (contam_ncache + 1) * sizeof *contam_cache);
	struct contam_sol *s = &contam_cache[contam_ncache++];
	s->root = xstrdup(root);
	s->id = xstrdup(id);
	contam_fingerprint(text ? text : "", text ? len : 0, &s->fp);
	free(text);
	free(path);
	free(dir);
	free(runs);
	return &s->fp;
}

/* The final solution of r as the transcript shows it, and the event that
 * wrote it. Borrowed. */
static const char *contam_final_solution(const struct run *cr, long *ev)
{
	struct run *r = (struct run *)cr;  /* run_files: built on first use, a cache */
	const struct ftrack *ft = run_files(r);
	for (size_t f = 0; f < ftrack_nfiles(ft); f++) {
		const char *p = ftrack_file_path(ft, f), *b = strrchr(p, '/');
		if (strncmp(b ? b + 1 : p, "solution.", 9))
			continue;
		size_t nv = ftrack_file_nversions(ft, f);
		for (size_t k = nv; k-- > 0;) {
			const char *s = ftrack_file_version(ft, f, k, ev);
			if (s && *ev >= 0)
				return s;
		}
	}
	return NULL;
}

int contam_solution_match(const struct run *r, char **other, double *overlap, size_t *shared, long *ev)
{
	char *id = contam_run_id(r);
	if (!id || !r->source) {
		free(id);
		return -1;
	}
	/* ROOT/runs/ID/transcript: three folders up */
	char *root = xstrdup(r->source);
	for (int k = 0; k < 3; k++) {
		char *slash = strrchr(root, '/');
		if (slash)
			*slash = '\0';
		else
			root[0] = '\0';
	}
	char *runs = util_path_join(*root ? root : ".", "runs");
	const char *sol = contam_final_solution(r, ev);
	int rc = -1;
	DIR *d = sol && util_is_dir(runs) ? opendir(runs) : NULL;
	if (d) {
		struct contam_fp mine;
		contam_fingerprint(sol, strlen(sol), &mine);
		double best = 0;
		size_t best_n = 0;
		char *best_id = NULL;
		struct dirent *de;
		while (mine.n >= CONTAM_MIN_SHARED && (de = readdir(d))) {
			if (de->d_name[0] == '.' || strcmp(de->d_name, id) >= 0)
				continue;  /* only earlier runs (ids begin with their start time) */
			const struct contam_fp *fp = contam_run_fp(*root ? root : ".", de->d_name);
			size_t n = contam_shared(&mine, fp);
			double share = (double)n / (double)mine.n;
			if (n >= CONTAM_MIN_SHARED && share > best) {
				best = share;
				best_n = n;
				free(best_id);
				best_id = xstrdup(de->d_name);
			}
		}
		closedir(d);
		contam_fp_free(&mine);
		if (best_id && best >= CONTAM_THRESHOLD) {
			*other = best_id;
			*overlap = best;
			*shared = best_n;
			rc = 0;
		} else {
			free(best_id);
		}
	}
	free(runs);
	free(root);
	free(id);
	return rc;
}
