/* sweep_status.c: the state of a sweep's cells, read from its directory
 * alone (state files, their locks, runs.jsonl, the transcripts of running
 * cells); runs.jsonl rows appended under a lock; leaderboard.json
 * regenerated from them; the grid printed. */
#include "sweep.h"
#include "annot.h"
#include "cmd.h"
#include "jsonx.h"
#include "milestones.h"
#include "parser.h"
#include "run.h"
#include "textsafe.h"
#include "util.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *sweep_state_name(enum sweep_state s)
{
	switch (s) {
	case SWEEP_QUEUED: return "queued";
	case SWEEP_RUNNING: return "running";
	case SWEEP_DONE: return "done";
	case SWEEP_FAILED: return "failed";
	case SWEEP_KILLED: return "killed";
	}
	return "?";
}

char *sweep_cell_file(const char *dir, const char *run_id, const char *ext)
{
	char *rel = xasprintf("cells/%s.%s", run_id, ext), *p = util_path_join(dir, rel);
	free(rel);
	return p;
}

int sweep_lock_held(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), held = 0;
	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0)
		held = errno == EWOULDBLOCK;
	close(fd);   /* releases a lock we got at once */
	return held;
}

cJSON *sweep_state_load(const char *dir, const char *run_id)
{
	char *path = sweep_cell_file(dir, run_id, "json");
	size_t len;
	char *buf = util_read_file(path, &len);
	cJSON *o = buf ? jx_parse(buf, len) : NULL;
	free(buf);
	free(path);
	return o;
}

int sweep_json_save(const char *path, const cJSON *o, char **err)
{
	char *s = cJSON_Print(o);
	s = xrealloc(s, strlen(s) + 2);
	strcat(s, "\n");
	int rc = annot_replace(path, s, strlen(s), err);
	free(s);
	return rc;
}

int sweep_state_save(const char *dir, const char *run_id, const cJSON *o, char **err)
{
	char *path = sweep_cell_file(dir, run_id, "json");
	int rc = sweep_json_save(path, o, err);
	free(path);
	return rc;
}

/* ---- runs.jsonl ---------------------------------------------------------------- */

/* The rows of DIR/runs.jsonl as an array (owned; empty when none). */
static cJSON *sweep_rows_load(const char *dir)
{
	char *path = util_path_join(dir, "runs.jsonl");
	size_t len;
	char *buf = util_read_file(path, &len);
	cJSON *rows = cJSON_CreateArray();
	for (char *p = buf, *end = buf ? buf + len : NULL; p && p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		cJSON *o = n ? jx_parse(p, n) : NULL;
		/* a line without its newline is a writer that died mid-write: no row */
		if (o && nl && jx_str(o, "run_id"))
			cJSON_AddItemToArray(rows, o);
		else
			cJSON_Delete(o);
		p = nl ? nl + 1 : end;
	}
	free(buf);
	free(path);
	return rows;
}

static const cJSON *sweep_rows_find(const cJSON *rows, const char *run_id)
{
	const cJSON *r;
	cJSON_ArrayForEach(r, rows)
		if (!strcmp(jx_str(r, "run_id"), run_id))
			return r;
	return NULL;
}

int sweep_row_exists(const char *dir, const char *run_id)
{
	cJSON *rows = sweep_rows_load(dir);
	int found = sweep_rows_find(rows, run_id) != NULL;
	cJSON_Delete(rows);
	return found;
}

/* flock on DIR/runs.lock, waiting: writers hold it for a few writes. */
static int sweep_rows_lock(const char *dir, char **err)
{
	char *path = util_path_join(dir, "runs.lock");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		*err = xasprintf("%s: cannot lock: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

int sweep_row_append(const char *dir, const char *line, const char *run_id, int *dup, char **err)
{
	char *path = util_path_join(dir, "runs.jsonl"), *text = xasprintf("%s\n", line);
	int lock = sweep_rows_lock(dir, err), fd = -1, rc = -1;

	*dup = 0;
	if (lock < 0)
		goto out;
	if (sweep_row_exists(dir, run_id)) {
		*dup = 1;
		rc = 0;
		goto out;
	}
	fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		/* a writer that died mid-line (a lost NFS client) left no newline:
		 * ours starts a line of its own, the torn one stays no row */
		struct stat sb;
		char last = '\n';
		if (fstat(fd, &sb) == 0 && sb.st_size > 0 && pread(fd, &last, 1, sb.st_size - 1) == 1 && last != '\n') {
			char *t = xasprintf("\n%s", text);
			free(text);
			text = t;
		}
	}
	/* one write of the whole line: readers see all of it or none */
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || fsync(fd) < 0) {
		*err = xasprintf("%s: cannot append the row of %s: %s", path, run_id, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (lock >= 0)
		close(lock);
	free(text);
	free(path);
	return rc;
}

/* ---- leaderboard.json -------------------------------------------------------------- */

static void sweep_copy_field(cJSON *dst, const cJSON *src, const char *k)
{
	const cJSON *v = jx_get(src, k);
	cJSON_AddItemToObject(dst, k, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
}

static cJSON *sweep_leaderboard(const struct sweep_config *c, const cJSON *rows)
{
	cJSON *lb = cJSON_CreateObject(), *ps, *ms;
	const cJSON *r;
	const char *hw = NULL;

	cJSON_AddNumberToObject(lb, "schema_version", 1);
	cJSON_AddStringToObject(lb, "_note", "written by kbtui sweep from runs.jsonl");
	cJSON_ArrayForEach(r, rows)
		if (!hw)
			hw = jx_str(r, "hardware");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(lb, "hardware"), "name", hw ? hw : "unknown");
	ps = cJSON_AddArrayToObject(lb, "problems");
	for (int i = 0; i < c->nproblems; i++)
		cJSON_AddItemToArray(ps, cJSON_CreateString(c->problems[i]));
	ms = cJSON_AddArrayToObject(lb, "models");
	for (int m = 0; m < c->nmodels; m++) {
		cJSON *e = cJSON_CreateObject(), *res;
		int pass = 0, total = 0;
		cJSON_AddStringToObject(e, "label", c->models[m].label);
		cJSON_AddStringToObject(e, "harness", "kbtui-live");
		cJSON_AddStringToObject(e, "model", c->models[m].model);
		cJSON_AddStringToObject(e, "effort", c->models[m].effort ? c->models[m].effort : "");
		res = cJSON_AddObjectToObject(e, "results");
		for (int p = 0; p < c->nproblems; p++) {
			const cJSON *row = sweep_rows_find(rows, c->cells[m * c->nproblems + p].run_id);
			cJSON *cell;
			if (!row)
				continue;
			cell = cJSON_AddObjectToObject(res, c->problems[p]);
			cJSON_AddStringToObject(cell, "run_id", jx_str(row, "run_id"));
			sweep_copy_field(cell, row, "correct");
			sweep_copy_field(cell, row, "has_solution");
			sweep_copy_field(cell, row, "peak_fraction");
			sweep_copy_field(cell, row, "elapsed_seconds");
			pass += jx_bool(row, "correct", 0);
			total++;
		}
		cJSON_AddNumberToObject(e, "pass_count", pass);
		cJSON_AddNumberToObject(e, "total_runs", total);
		cJSON_AddItemToArray(ms, e);
	}
	return lb;
}

int sweep_leaderboard_write(const struct sweep_config *c, const char *dir, char **err)
{
	int lock = sweep_rows_lock(dir, err), rc = -1;
	char *path;
	cJSON *rows, *lb;
	if (lock < 0)
		return -1;
	rows = sweep_rows_load(dir);
	lb = sweep_leaderboard(c, rows);
	path = util_path_join(dir, "leaderboard.json");
	rc = sweep_json_save(path, lb, err);
	free(path);
	cJSON_Delete(lb);
	cJSON_Delete(rows);
	close(lock);
	return rc;
}

/* ---- the state of each cell ---------------------------------------------------------- */

/* turns, tokens and the last peak_fraction of a transcript being written */
static void sweep_progress(const char *dir, const char *run_id, struct sweep_cell_status *s)
{
	char *rel = xasprintf("runs/%s/transcript.jsonl", run_id), *path = util_path_join(dir, rel), *err = NULL;
	struct run *r = util_is_file(path) ? parser_load_file(path, NULL, &err) : NULL;
	free(rel);
	free(path);
	free(err);
	if (!r)
		return;
	long long in = 0, out = 0, cr = 0, cw = 0, re = 0;
	s->turns = (int)run_turns(r);
	run_tokens(r, &in, &out, &cr, &cw, &re);
	s->tokens = in + out;
	for (size_t i = r->nev; i-- > 0;)
		if (r->ev[i].kind == EV_TOOL_RESULT && r->ev[i].text) {
			double pf = milestones_text_peak(r->ev[i].text);
			if (pf >= 0) {
				s->peak_fraction = pf;
				break;
			}
		}
	run_free(r);
}

static void sweep_status_from_state(const char *dir, const char *run_id, const cJSON *o,
                                    struct sweep_cell_status *s)
{
	const char *state = jx_str(o, "state");
	char *lock = sweep_cell_file(dir, run_id, "lock");
	double started = jx_num(o, "started", 0), ended = jx_num(o, "ended", 0);
	s->attempt = (int)jx_num(o, "attempt", 1);
	s->host = xstrdup(jx_str(o, "host"));
	s->job = xstrdup(jx_str(o, "job"));
	s->reason = xstrdup(jx_str(o, "reason"));
	if (state && !strcmp(state, "running")) {
		if (sweep_lock_held(lock)) {
			s->state = SWEEP_RUNNING;
			s->elapsed = started > 0 ? (double)time(NULL) - started : -1;
			sweep_progress(dir, run_id, s);
		} else {
			/* its runner is gone without a word: SIGKILL, a lost node */
			s->state = SWEEP_KILLED;
			free(s->reason);
			s->reason = xstrdup("its runner died without recording an end (SIGKILL, node failure, "
			                    "time limit)");
		}
	} else if (state && (!strcmp(state, "killed") || !strcmp(state, "failed"))) {
		s->state = !strcmp(state, "killed") ? SWEEP_KILLED : SWEEP_FAILED;
		s->elapsed = ended > started && started > 0 ? ended - started : -1;
		sweep_progress(dir, run_id, s);
	}
	free(lock);
}

struct sweep_cell_status *sweep_status_read(const struct sweep_config *c, const char *dir)
{
	struct sweep_cell_status *st = xcalloc((size_t)(c->ncells ? c->ncells : 1), sizeof *st);
	cJSON *rows = sweep_rows_load(dir);
	for (int i = 0; i < c->ncells; i++) {
		struct sweep_cell_status *s = &st[i];
		const char *id = c->cells[i].run_id;
		const cJSON *row = sweep_rows_find(rows, id);
		cJSON *o;
		s->state = SWEEP_QUEUED;
		s->turns = -1;
		s->tokens = -1;
		s->peak_fraction = -1;
		s->elapsed = -1;
		o = sweep_state_load(dir, id);
		if (row) {
			const cJSON *pf = jx_get(row, "peak_fraction");
			s->state = SWEEP_DONE;
			s->elapsed = jx_num(row, "elapsed_seconds", -1);
			s->correct = jx_bool(row, "correct", 0);
			s->session_complete = jx_bool(row, "session_complete", 0);
			s->peak_fraction = cJSON_IsNumber(pf) ? pf->valuedouble : -1;
			s->turns = (int)jx_num(row, "turns", -1);
			s->tokens = jx_ll(row, "tokens", -1);
			s->attempt = o ? (int)jx_num(o, "attempt", 1) : 1;
			s->host = o ? xstrdup(jx_str(o, "host")) : NULL;
			s->job = o ? xstrdup(jx_str(o, "job")) : NULL;
		} else if (o) {
			sweep_status_from_state(dir, id, o, s);
		}
		cJSON_Delete(o);
	}
	cJSON_Delete(rows);
	return st;
}

void sweep_status_free(struct sweep_cell_status *st, int n)
{
	if (!st)
		return;
	for (int i = 0; i < n; i++) {
		free(st[i].reason);
		free(st[i].host);
		free(st[i].job);
		free(st[i].pending);
	}
	free(st);
}

/* ---- the grid --------------------------------------------------------------------- */

static void sweep_fmt_secs(char *b, size_t n, double s)
{
	if (s < 0)
		snprintf(b, n, "-");
	else if (s < 60)
		snprintf(b, n, "%.0fs", s);
	else if (s < 3600)
		snprintf(b, n, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(b, n, "%dh%02dm", (int)s / 3600, (int)s % 3600 / 60);
}

/* One cell of the grid, at most about 32 columns. */
char *sweep_cell_text(const struct sweep_cell_status *s)
{
	char t[16], tok[16];
	sweep_fmt_secs(t, sizeof t, s->elapsed);
	switch (s->state) {
	case SWEEP_QUEUED:
		return xstrdup(s->pending ? "queued (slurm)" : "queued");
	case SWEEP_RUNNING:
		util_fmt_count(tok, sizeof tok, s->tokens < 0 ? 0 : s->tokens);
		if (s->peak_fraction >= 0)
			return xasprintf("running %s t%d %s pf%.3f", t, s->turns < 0 ? 0 : s->turns, tok, s->peak_fraction);
		return xasprintf("running %s t%d %s", t, s->turns < 0 ? 0 : s->turns, tok);
	case SWEEP_DONE:
		if (s->peak_fraction >= 0)
			return xasprintf("done %s %.4f %s", s->correct ? "PASS" : "FAIL", s->peak_fraction, t);
		return xasprintf("done %s %s", s->correct ? "PASS" : "FAIL", t);
	case SWEEP_FAILED:
		return xstrdup("FAILED");
	case SWEEP_KILLED:
		return xstrdup("KILLED");
	}
	return xstrdup("?");
}

static void sweep_pad(FILE *out, const char *s, size_t w)
{
	size_t sw = textsafe_width(s, strlen(s));
	fputs(s, out);
	for (; sw < w; sw++)
		fputc(' ', out);
}

void sweep_status_print(const struct sweep_config *c, const struct sweep_cell_status *st, FILE *out)
{
	size_t lw = 5, *cw = xcalloc((size_t)c->nproblems + 1, sizeof *cw);
	char **text = xcalloc((size_t)c->ncells + 1, sizeof *text), **labels = xcalloc((size_t)c->nmodels + 1, sizeof *labels);
	int count[5] = {0};

	for (int m = 0; m < c->nmodels; m++) {
		labels[m] = textsafe(c->models[m].label, strlen(c->models[m].label), 0);
		if (textsafe_width(labels[m], strlen(labels[m])) > lw)
			lw = textsafe_width(labels[m], strlen(labels[m]));
	}
	for (int p = 0; p < c->nproblems; p++)
		cw[p] = strlen(c->problems[p]);
	for (int i = 0; i < c->ncells; i++) {
		text[i] = sweep_cell_text(&st[i]);
		if (strlen(text[i]) > cw[c->cells[i].problem])
			cw[c->cells[i].problem] = strlen(text[i]);
		count[st[i].state]++;
	}
	sweep_pad(out, "model", lw);
	for (int p = 0; p < c->nproblems; p++) {
		fputs("  ", out);
		sweep_pad(out, c->problems[p], cw[p]);
	}
	fputc('\n', out);
	for (int m = 0; m < c->nmodels; m++) {
		sweep_pad(out, labels[m], lw);
		for (int p = 0; p < c->nproblems; p++) {
			fputs("  ", out);
			sweep_pad(out, text[m * c->nproblems + p], cw[p]);
		}
		fputc('\n', out);
	}
	fprintf(out, "%d cells: %d done, %d running, %d queued, %d failed, %d killed\n", c->ncells,
	        count[SWEEP_DONE], count[SWEEP_RUNNING], count[SWEEP_QUEUED], count[SWEEP_FAILED], count[SWEEP_KILLED]);
	for (int i = 0; i < c->ncells; i++)
		if ((st[i].state == SWEEP_FAILED || st[i].state == SWEEP_KILLED) && st[i].reason) {
			char *why = textsafe(st[i].reason, strlen(st[i].reason), 0);
			fprintf(out, "%s %s: %s\n", c->cells[i].run_id, sweep_state_name(st[i].state), why);
			free(why);
		}
	for (int m = 0; m < c->nmodels; m++)
		free(labels[m]);
	for (int i = 0; i < c->ncells; i++)
		free(text[i]);
	free(labels);
	free(text);
	free(cw);
}

void sweep_status_json(const struct sweep_config *c, const char *dir, const struct sweep_cell_status *st, FILE *out)
{
	cJSON *o = cJSON_CreateObject(), *cells;
	char *s;
	cJSON_AddStringToObject(o, "dir", dir);
	cJSON *ms = cJSON_AddArrayToObject(o, "models"), *ps = cJSON_AddArrayToObject(o, "problems");
	for (int m = 0; m < c->nmodels; m++)
		cJSON_AddItemToArray(ms, cJSON_CreateString(c->models[m].label));
	for (int p = 0; p < c->nproblems; p++)
		cJSON_AddItemToArray(ps, cJSON_CreateString(c->problems[p]));
	cells = cJSON_AddArrayToObject(o, "cells");
	for (int i = 0; i < c->ncells; i++) {
		const struct sweep_cell_status *x = &st[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "run_id", c->cells[i].run_id);
		cJSON_AddStringToObject(j, "label", c->models[c->cells[i].model].label);
		cJSON_AddStringToObject(j, "problem", c->problems[c->cells[i].problem]);
		cJSON_AddStringToObject(j, "state", sweep_state_name(x->state));
		if (x->elapsed >= 0)
			cJSON_AddNumberToObject(j, "elapsed_seconds", x->elapsed);
		if (x->turns >= 0)
			cJSON_AddNumberToObject(j, "turns", x->turns);
		if (x->tokens >= 0)
			cJSON_AddNumberToObject(j, "tokens", (double)x->tokens);
		if (x->peak_fraction >= 0)
			cJSON_AddNumberToObject(j, "peak_fraction", x->peak_fraction);
		if (x->state == SWEEP_DONE)
			cJSON_AddBoolToObject(j, "correct", x->correct);
		cJSON_AddNumberToObject(j, "attempt", x->attempt);
		if (x->reason)
			cJSON_AddStringToObject(j, "reason", x->reason);
		if (x->host)
			cJSON_AddStringToObject(j, "host", x->host);
		if (x->job)
			cJSON_AddStringToObject(j, "job", x->job);
		if (x->pending)
			cJSON_AddStringToObject(j, "pending", x->pending);
		cJSON_AddItemToArray(cells, j);
	}
	s = cJSON_PrintUnformatted(o);
	cmd_put_json(out, s);
	free(s);
	cJSON_Delete(o);
}
