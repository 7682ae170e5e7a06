/* reeval.c: the pieces of a re-evaluation that know nothing of the screen:
 * the solution at a step, the agent's own numbers there, the problem, a
 * work directory, and the comparison table. */
#include "config.h"

#include "reeval.h"
#include "benchlog.h"
#include "eval.h"
#include "ftrack.h"
#include "jsonx.h"
#include "run.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *reeval_base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

const char *reeval_ext(const char *path)
{
	const char *b = path ? reeval_base(path) : "";
	return !strcmp(b, "solution.py") ? "py" : !strcmp(b, "solution.cu") ? "cu" : NULL;
}

const char *reeval_solution_at(struct run *run, size_t ev, const char **path, long *changed_at)
{
	const struct ftrack *ft = run_files(run);
	const char *best = NULL;
	long best_at = -1;
	for (size_t f = 0; ft && f < ftrack_nfiles(ft); f++) {
		const char *p = ftrack_file_path(ft, f);
		long at;
		if (!reeval_ext(p))
			continue;
		const char *text = ftrack_file_at(ft, f, ev, &at);
		if (text && (!best || at > best_at)) {
			best = text;
			best_at = at;
			if (path)
				*path = p;
		}
	}
	if (changed_at)
		*changed_at = best_at;
	return best;
}

/* Whether a tool result holds benchmark numbers (not just a PASS line). */
static int reeval_is_bench(const char *text, int *check)
{
	int bench = 0;
	*check = 0;
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");
		struct benchlog_line l;
		switch (benchlog_classify(p, n, &l)) {
		case BL_VARIANT: case BL_SHAPE_PEAK: case BL_PEAK: case BL_HTIME: bench = 1; break;
		case BL_PASS: *check = 1; break;
		case BL_FAIL: *check = -1; break;
		default: break;
		}
		p += n;
		if (*p)
			p++;
	}
	return bench;
}

void reeval_agent_at(const struct run *run, size_t ev, struct reeval_agent *a)
{
	memset(a, 0, sizeof *a);
	a->bench_ev = a->check_ev = -1;
	for (size_t i = ev < run->nev ? ev + 1 : run->nev; i-- > 0;) {
		const struct event *e = &run->ev[i];
		int check;
		if (e->kind != EV_TOOL_RESULT || !e->text)
			continue;
		int bench = reeval_is_bench(e->text, &check);
		if (bench && !a->bench) {
			a->bench = benchlog_new();
			benchlog_feed(a->bench, e->text, strlen(e->text));
			benchlog_finish(a->bench);
			a->bench_ev = (long)i;
		}
		if (check && !a->check) {
			a->check = check;
			a->check_ev = (long)i;
		}
		if (a->bench && a->check)
			break;
	}
}

void reeval_agent_free(struct reeval_agent *a)
{
	benchlog_free(a->bench);
	memset(a, 0, sizeof *a);
}

static char *reeval_dir_of(const struct run *run)
{
	if (!run->source)
		return NULL;
	const char *slash = strrchr(run->source, '/');
	return slash ? xstrndup(run->source, (size_t)(slash - run->source)) : xstrdup(".");
}

/* "..._04_kahan_softmax" -> "04_kahan_softmax": the last "NN_" after '_'. */
static char *reeval_problem_in_name(const char *name)
{
	const char *found = NULL;
	for (const char *p = name; *p; p++)
		if ((p == name || p[-1] == '_') && isdigit((unsigned char)p[0]) && isdigit((unsigned char)p[1]) &&
		    p[2] == '_' && isalpha((unsigned char)p[3]))
			found = p;
	return found ? xstrdup(found) : NULL;
}

char *reeval_problem(const struct run *run)
{
	if (run->meta.problem && *run->meta.problem)
		return xstrdup(run->meta.problem);
	char *dir = reeval_dir_of(run), *res = NULL;
	if (!dir)
		return NULL;
	char *path = util_path_join(dir, "result.json");
	size_t len;
	char *text = util_is_file(path) ? util_read_file(path, &len) : NULL;
	cJSON *j = text ? jx_parse(text, len) : NULL;
	const cJSON *p = j ? cJSON_GetObjectItemCaseSensitive(j, "problem") : NULL;
	if (cJSON_IsString(p) && *p->valuestring)
		res = xstrdup(p->valuestring);
	cJSON_Delete(j);
	free(text);
	free(path);
	if (!res) {
		char *abs = realpath(dir, NULL);
		res = reeval_problem_in_name(reeval_base(abs ? abs : dir));
		free(abs);
	}
	free(dir);
	return res;
}

static int reeval_mkdirs(char *p)
{
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		int bad = mkdir(p, 0700) < 0 && errno != EEXIST;
		*s = '/';
		if (bad)
			return -1;
	}
	return mkdir(p, 0700) < 0 && errno != EEXIST ? -1 : 0;
}

/* A name safe as one path component: the run's directory or file name. */
static char *reeval_slug(const struct run *run)
{
	char *dir = reeval_dir_of(run), *abs = dir ? realpath(dir, NULL) : NULL;
	const char *name = abs ? reeval_base(abs) : run->meta.run_id ? run->meta.run_id : "run";
	char *s = xstrndup(*name ? name : "run", 80);
	for (char *c = s; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.')
			*c = '_';
	if (s[0] == '.')
		s[0] = '_';
	free(abs);
	free(dir);
	return s;
}

char *reeval_workdir(const struct run *run, size_t ev, char **err)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME"), *tmp = getenv("TMPDIR");
	char *base = xdg && *xdg == '/' ? xasprintf("%s/kbtui/reeval", xdg)
	             : home && *home == '/' ? xasprintf("%s/.cache/kbtui/reeval", home)
	                                    : xasprintf("%s/kbtui-reeval", tmp && *tmp ? tmp : "/tmp");
	if (reeval_mkdirs(base) < 0) {
		*err = xasprintf("%s: cannot create: %s", base, strerror(errno));
		free(base);
		return NULL;
	}
	char *slug = reeval_slug(run);
	char *tmpl = xasprintf("%s/%s-ev%zu-XXXXXX", base, slug, ev + 1);
	free(slug);
	free(base);
	if (!mkdtemp(tmpl)) {
		*err = xasprintf("%s: cannot create: %s", tmpl, strerror(errno));
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

/* ---- the comparison ------------------------------------------------------ */

static void reeval_num(struct sbuf *b, double v, const char *fmt, int w)
{
	if (v < 0)
		sbuf_addf(b, "%*s", w, "-");
	else
		sbuf_addf(b, fmt, w, v);
}

static void reeval_cols(struct sbuf *b, double ms, double tflops, double gbps, double peak)
{
	reeval_num(b, ms, "%*.4f", 9);
	reeval_num(b, tflops, "%*.3f", 8);
	reeval_num(b, gbps, "%*.1f", 8);
	reeval_num(b, peak, "%*.4f", 7);
}

static int reeval_nshapes(const struct reeval_agent *a, const struct eval_result *ours)
{
	int n = ours ? ours->nshapes : 0;
	const struct benchlog *bl = a->bench;
	for (int i = 0; bl && i < bl->ne; i++)
		if ((bl->e[i].kind == BL_VARIANT || bl->e[i].kind == BL_HTIME) && bl->e[i].shape >= n &&
		    bl->e[i].shape < 1024)
			n = bl->e[i].shape + 1;
	if (bl && bl->nshape_peak > n)
		n = bl->nshape_peak;
	return n;
}

static const char *reeval_verdict(int check)
{
	return check > 0 ? "PASS" : check < 0 ? "FAIL" : "-";
}

void reeval_compare(const struct reeval_agent *a, const struct eval_result *ours, struct sbuf *out)
{
	const struct benchlog *bl = a->bench;
	int n = reeval_nshapes(a, ours);
	sbuf_addf(out, "%-5s %-33s | %s\n", "", "agent's benchmark", "ours");
	sbuf_addf(out, "%-5s %9s%8s%8s%7s  | %9s%8s%8s%7s\n", "shape", "ms", "TFLOPS", "GB/s", "peak", "ms", "TFLOPS",
	          "GB/s", "peak");
	for (int i = 0; i < n; i++) {
		const struct benchlog_entry *e = bl ? benchlog_find(bl, BL_VARIANT, i, "solution") : NULL;
		if (!e && bl)
			e = benchlog_find(bl, BL_HTIME, i, NULL);
		double peak = bl && i < bl->nshape_peak ? bl->shape_peak[i] : -1;
		sbuf_addf(out, "%-5d ", i);
		reeval_cols(out, e ? e->ms : -1, e ? e->tflops : -1, e ? e->gbps : -1, peak);
		sbuf_adds(out, "  | ");
		const struct eval_shape *s = ours && i < ours->nshapes ? &ours->shapes[i] : NULL;
		reeval_cols(out, s ? s->ms : -1, s ? s->tflops : -1, s ? s->gbps : -1, s ? s->peak_fraction : -1);
		sbuf_addc(out, '\n');
	}
	char ap[32] = "-", op[32] = "-";
	if (bl && bl->peak_fraction >= 0)
		snprintf(ap, sizeof ap, "%.4f", bl->peak_fraction);
	if (ours && ours->peak_fraction >= 0)
		snprintf(op, sizeof op, "%.4f", ours->peak_fraction);
	sbuf_addf(out, "%-18s %19s  | %32s\n", "peak_fraction", ap, ours ? op : "(running)");
	const char *ov = !ours ? "(running)" : ours->correct ? "PASS" : "FAIL";
	sbuf_addf(out, "%-18s %19s  | %32s\n", "check", reeval_verdict(a->check), ov);
}
