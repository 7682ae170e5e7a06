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

/* A dataset's runs listed once, their solutions fingerprinted once, per
 * process: the flags of every run of a dataset compare each with the
 * earlier ones. */
struct contam_ds {
	char *root;
	char **ids;              /* runs/ folders, sorted (ids begin with their start time) */
	size_t n;
	struct contam_fp *fp;    /* per id, read on first use */
	unsigned char *have;
};
static struct contam_ds *contam_dss;
static size_t contam_ndss;

static int contam_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static struct contam_ds *contam_ds_get(const char *root)
{
	for (size_t i = 0; i < contam_ndss; i++)
		if (!strcmp(contam_dss[i].root, root))
			return &contam_dss[i];
	contam_dss = xrealloc(contam_dss, (contam_ndss + 1) * sizeof *contam_dss);
	struct contam_ds *c = &contam_dss[contam_ndss++];
	memset(c, 0, sizeof *c);
	c->root = xstrdup(root);
	char *runs = util_path_join(root, "runs");
	DIR *d = opendir(runs);
	struct dirent *de;
	size_t cap = 0;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (c->n == cap)
			c->ids = xrealloc(c->ids, (cap = cap ? cap * 2 : 64) * sizeof *c->ids);
		c->ids[c->n++] = xstrdup(de->d_name);
	}
	if (d)
		closedir(d);
	free(runs);
	if (c->n)
		qsort(c->ids, c->n, sizeof *c->ids, contam_strcmp);
	c->fp = xcalloc(c->n + 1, sizeof *c->fp);
	c->have = xcalloc(c->n + 1, 1);
	return c;
}

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

static const struct contam_fp *contam_ds_fp(struct contam_ds *c, size_t k)
{
	if (c->have[k])
		return &c->fp[k];
	char *runs = util_path_join(c->root, "runs"), *dir = util_path_join(runs, c->ids[k]);
	char *path = contam_solution_path(dir);
	size_t len = 0;
	char *text = path ? util_read_file(path, &len) : NULL;
	contam_fingerprint(text ? text : "", text ? len : 0, &c->fp[k]);
	c->have[k] = 1;
	free(text);
	free(path);
	free(dir);
	free(runs);
	return &c->fp[k];
}

/* The final solution of r as the transcript shows it, and the event that
 * wrote it. Borrowed. */
static const char *contam_final_solution(const struct run *cr, long *ev)
{
	struct run *r = (struct run *)cr;  /* run_files: built on first use, a cache */
	const struct ftrack *ft = run_files(r);
	for (size_t f = 0; f < ftrack_nfiles(ft); f++) {
		if (!ftrack_is_solution(ftrack_file_path(ft, f)))
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

int contam_solution_match(const struct run *r, const char *problem, char **other, double *overlap, size_t *shared,
                          long *ev)
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
	const char *sol = contam_final_solution(r, ev);
	int rc = -1;
	struct contam_ds *c = sol ? contam_ds_get(*root ? root : ".") : NULL;
	if (c && c->n) {
		struct contam_fp mine;
		contam_fingerprint(sol, strlen(sol), &mine);
		double best = 0;
		size_t best_n = 0, seen = 0;
		const char *best_id = NULL;
		/* the earlier runs of the same problem, the latest first, at most
		 * CONTAM_MAX_EARLIER of them: a big dataset's flags stay linear */
		size_t lo = 0, hi = c->n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (strcmp(c->ids[mid], id) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t k = lo; k-- > 0 && seen < CONTAM_MAX_EARLIER && mine.n >= CONTAM_MIN_SHARED;) {
			if (problem && *problem && !util_ends_with(c->ids[k], problem))
				continue;
			seen++;
			size_t n = contam_shared(&mine, contam_ds_fp(c, k));
			double share = (double)n / (double)mine.n;
			if (n >= CONTAM_MIN_SHARED && share > best) {
				best = share;
				best_n = n;
				best_id = c->ids[k];
			}
		}
		contam_fp_free(&mine);
		if (best_id && best >= CONTAM_THRESHOLD) {
			*other = xstrdup(best_id);
			*overlap = best;
			*shared = best_n;
			rc = 0;
		}
	}
	free(root);
	free(id);
	return rc;
}
