/* sweep_cell.c: one cell of a sweep, run where an executor started it:
 * `kbtui live --headless` as a child with the model's key as its only key,
 * its end classified (done, failed, killed), the state recorded, and the
 * row of a finished run appended. */
#include "sweep.h"
#include "jsonx.h"
#include "parser.h"
#include "textsafe.h"
#include "util.h"

#include <cjson/cJSON.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t sweep_cell_signal;
static volatile pid_t sweep_cell_child;
static int sweep_cell_in_slurm;

/* SIGTERM from scancel, a time limit, preemption or kbtui sweep --cancel,
 * SIGINT from a terminal: the child (in its own process group) is told
 * once, and records its end; we record ours. Slurm signals every process
 * of the job itself: a second SIGTERM could catch kbtui live after it
 * stopped handling them, before its last line. */
static void sweep_cell_on_signal(int sig)
{
	int first = !sweep_cell_signal;
	sweep_cell_signal = sig;
	if (first && sweep_cell_child > 0 && !sweep_cell_in_slurm)
		kill(sweep_cell_child, SIGTERM);
}

static void sweep_mkdir(const char *dir, const char *sub)
{
	char *p = sub ? util_path_join(dir, sub) : xstrdup(dir);
	mkdir(p, 0777);
	free(p);
}

/* The cell's lock; -1 when another process holds it. A reader of the
 * state takes it for an instant, so a few tries. */
static int sweep_cell_lock(const char *dir, const char *run_id)
{
	char *path = sweep_cell_file(dir, run_id, "lock");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(path);
	if (fd < 0)
		return -1;
	for (int i = 0; i < 40; i++) {
		struct timespec ts = {0, 50 * 1000 * 1000};
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		nanosleep(&ts, NULL);
	}
	close(fd);
	return -1;
}

/* An earlier attempt's run directory goes to attempts/<run_id>.N: a cell
 * is never written twice, and nothing is lost. */
static int sweep_cell_move_aside(const char *dir, const char *run_id, char **err)
{
	char *rel = xasprintf("runs/%s", run_id), *from = util_path_join(dir, rel), *to = NULL;
	int rc = 0;
	free(rel);
	if (util_is_dir(from)) {
		sweep_mkdir(dir, "attempts");
		for (int n = 1; !to || util_is_dir(to); n++) {
			free(to);
			rel = xasprintf("attempts/%s.%d", run_id, n);
			to = util_path_join(dir, rel);
			free(rel);
		}
		if (rename(from, to) < 0) {
			*err = xasprintf("cannot move %s to %s: %s", from, to, strerror(errno));
			rc = -1;
		}
	}
	free(from);
	free(to);
	return rc;
}

/* kbtui live's arguments for the cell (strings owned, NULL-terminated).
 * Values go as --opt=VALUE: a model name or a path that starts with '-'
 * is then never read as an option of its own. */
static char **sweep_cell_argv(const struct sweep_config *c, int cell, const char *exe, const char *rundir)
{
	const struct sweep_cell *ce = &c->cells[cell];
	const struct sweep_model *m = &c->models[ce->model];
	char **v = xcalloc(32, sizeof *v);
	int n = 0;
	v[n++] = xstrdup(exe);
	v[n++] = xstrdup("live");
	v[n++] = xstrdup("--headless");
	v[n++] = xasprintf("--provider=%s", m->provider);
	v[n++] = xasprintf("--model=%s", m->model);
	if (m->base_url)
		v[n++] = xasprintf("--base-url=%s", m->base_url);
	if (m->effort && *m->effort)
		v[n++] = xasprintf("--effort=%s", m->effort);
	if (m->thinking > 0)
		v[n++] = xasprintf("--thinking=%d", m->thinking);
	v[n++] = xasprintf("--problem=%s", c->problems[ce->problem]);
	if (c->problems_dir)
		v[n++] = xasprintf("--problems=%s", c->problems_dir);
	if (c->deck)
		v[n++] = xasprintf("--deck=%s", c->deck);
	if (c->budget_s > 0)
		v[n++] = xasprintf("--budget=%.0fs", c->budget_s);
	if (c->max_turns > 0)
		v[n++] = xasprintf("--max-turns=%d", c->max_turns);
	if (c->no_eval)
		v[n++] = xstrdup("--no-eval");
	if (c->sandbox)
		v[n++] = xasprintf("--sandbox=%s", c->sandbox);
	v[n++] = xasprintf("--out=%s", rundir);
	return v;
}

static void sweep_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* The last non-empty line of a file (owned), NULL when none. */
static char *sweep_last_line(const char *path, const char *prefix)
{
	size_t len;
	char *buf = util_read_file(path, &len), *last = NULL;
	for (char *p = buf, *end = buf ? buf + len : NULL; p && p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n && (!prefix || !strncmp(p, prefix, strlen(prefix)))) {
			free(last);
			last = xstrndup(p, n > 400 ? 400 : n);
		}
		p = nl ? nl + 1 : end;
	}
	free(buf);
	return last;
}

/* What kbtui live's summary line says: "kbtui live: END after N turns, C
 * tool calls, I tokens in, O out, S s; run in DIR". */
struct sweep_live_end {
	char *end;                /* "done", "time budget spent", "error" ... (owned) */
	int turns;
	long long tok_in, tok_out;
};

static int sweep_live_summary(const char *log, struct sweep_live_end *e)
{
	char *line = sweep_last_line(log, "kbtui live: "), *after;
	int calls = 0;
	memset(e, 0, sizeof *e);
	if (!line || !(after = strstr(line, " after "))) {
		free(line);
		return -1;
	}
	e->end = xstrndup(line + 12, (size_t)(after - line - 12));
	if (sscanf(after, " after %d turns, %d tool calls, %lld tokens in, %lld out", &e->turns, &calls, &e->tok_in,
	           &e->tok_out) != 4)
		e->turns = -1;
	free(line);
	return 0;
}

static char *sweep_hostname(void)
{
	char h[256] = "";
	gethostname(h, sizeof h - 1);
	return xstrdup(h);
}

/* The files of the run directory, relative to the sweep, sorted. */
static cJSON *sweep_cell_files(const char *dir, const char *run_id)
{
	char *rel = xasprintf("runs/%s", run_id), *rd = util_path_join(dir, rel);
	cJSON *a = cJSON_CreateArray();
	struct dirent **names = NULL;
	int n = scandir(rd, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char *p = util_path_join(rd, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && util_is_file(p)) {
			char *f = xasprintf("%s/%s", rel, names[i]->d_name);
			cJSON_AddItemToArray(a, cJSON_CreateString(f));
			free(f);
		}
		free(p);
		free(names[i]);
	}
	free(names);
	free(rd);
	free(rel);
	return a;
}

/* The runs.jsonl row of a finished cell, in the dataset's keys. */
static char *sweep_cell_row(const struct sweep_config *c, const char *dir, int cell, const struct sweep_live_end *e,
                            double secs)
{
	const struct sweep_cell *ce = &c->cells[cell];
	const struct sweep_model *m = &c->models[ce->model];
	char *rel = xasprintf("runs/%s/result.json", ce->run_id), *path = util_path_join(dir, rel);
	char *tr = xasprintf("runs/%s/transcript.jsonl", ce->run_id), *trp = util_path_join(dir, tr), *s;
	size_t len;
	char *buf = util_read_file(path, &len);
	cJSON *res = buf ? jx_parse(buf, len) : NULL, *o = cJSON_CreateObject();
	const cJSON *pf = jx_get(res, "peak_fraction");
	const struct parser_ops *fmt = NULL;
	char head[4096];
	FILE *f = fopen(trp, "rb");
	if (f) {
		size_t k = fread(head, 1, sizeof head - 1, f);
		head[k] = 0;
		fmt = parser_sniff(head, k);
		fclose(f);
	}
	cJSON_AddStringToObject(o, "run_id", ce->run_id);
	cJSON_AddStringToObject(o, "label", m->label);
	cJSON_AddStringToObject(o, "harness", "kbtui-live");
	cJSON_AddStringToObject(o, "provider", m->provider);
	cJSON_AddStringToObject(o, "model", m->model);
	cJSON_AddStringToObject(o, "effort", m->effort ? m->effort : "");
	cJSON_AddStringToObject(o, "problem", c->problems[ce->problem]);
	cJSON_AddBoolToObject(o, "correct", jx_bool(res, "correct", 0));
	cJSON_AddBoolToObject(o, "has_solution", jx_bool(res, "has_solution", 0));
	if (cJSON_IsNumber(pf))
		cJSON_AddNumberToObject(o, "peak_fraction", pf->valuedouble);
	else
		cJSON_AddNullToObject(o, "peak_fraction");
	cJSON_AddNumberToObject(o, "elapsed_seconds", (double)(long long)(secs + 0.5));
	cJSON_AddBoolToObject(o, "session_complete", !strcmp(e->end, "done"));
	cJSON_AddStringToObject(o, "end", e->end);
	if (e->turns >= 0) {
		cJSON_AddNumberToObject(o, "turns", e->turns);
		cJSON_AddNumberToObject(o, "tokens", (double)(e->tok_in + e->tok_out));
	}
	if (jx_str(res, "hardware"))
		cJSON_AddStringToObject(o, "hardware", jx_str(res, "hardware"));
	cJSON_AddStringToObject(o, "transcript", tr);
	cJSON_AddNullToObject(o, "annotation");
	if (fmt)
		cJSON_AddStringToObject(o, "format", fmt->name);
	cJSON_AddStringToObject(o, "leaderboard", "kbtui-sweep");
	cJSON_AddItemToObject(o, "files", sweep_cell_files(dir, ce->run_id));
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	cJSON_Delete(res);
	free(buf);
	free(path);
	free(rel);
	free(tr);
	free(trp);
	return s;
}

/* Starts kbtui live; its pid, or -1 with *err. */
static pid_t sweep_cell_spawn(char **argv, char **env, const char *out, const char *errf, char **err)
{
	int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int fe = open(errf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	pid_t pid;
	if (fo < 0 || fe < 0) {
		*err = xasprintf("cannot create %s: %s", fo < 0 ? out : errf, strerror(errno));
		if (fo >= 0)
			close(fo);
		if (fe >= 0)
			close(fe);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		/* our death (SIGKILL) ends the run too: no orphan keeps the API busy */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		setpgid(0, 0);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		dup2(in, 0);
		dup2(fo, 1);
		dup2(fe, 2);
		execve(argv[0], argv, env);
		dprintf(2, "kbtui sweep: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fo);
	close(fe);
	if (pid < 0)
		*err = xasprintf("fork: %s", strerror(errno));
	return pid;
}

static void sweep_cell_state_set(cJSON *st, const char *state, const char *reason)
{
	cJSON_DeleteItemFromObject(st, "state");
	cJSON_AddStringToObject(st, "state", state);
	cJSON_DeleteItemFromObject(st, "reason");
	if (reason)
		cJSON_AddStringToObject(st, "reason", reason);
}

/* Runs kbtui live and waits; the state's end is set from what happened. */
static int sweep_cell_live(const struct sweep_config *c, const char *dir, int cell, const char *exe, const char *key,
                           cJSON *st)
{
	const struct sweep_cell *ce = &c->cells[cell];
	const struct sweep_model *m = &c->models[ce->model];
	char *rel = xasprintf("runs/%s", ce->run_id), *rundir = util_path_join(dir, rel), *err = NULL;
	char *outp = util_path_join(rundir, "live.log"), *errp = util_path_join(rundir, "live.err");
	char *keyvar = xasprintf("%s=%s", !strcmp(m->provider, "anthropic") ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY", key);
	const char *extra[] = {keyvar, NULL};
	char **argv = sweep_cell_argv(c, cell, exe, rundir), **env = sweep_env_clean(c, extra);
	struct sigaction sa = {0}, old_term, old_int, old_hup;
	struct timespec t0, t1;
	int status = 0, rc = 1;
	pid_t pid;

	memset(keyvar, 0, strlen(keyvar));
	free(keyvar);
	mkdir(rundir, 0777);
	sa.sa_handler = sweep_cell_on_signal;
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGHUP, &sa, &old_hup);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sweep_cell_in_slurm = getenv("SLURM_JOB_ID") != NULL;
	pid = sweep_cell_spawn(argv, env, outp, errp, &err);
	sweep_env_free(env);
	sweep_strv_free(argv);
	if (pid > 0) {
		sweep_cell_child = pid;
		if (sweep_cell_signal && !sweep_cell_in_slurm)   /* a signal before we knew the child */
			kill(pid, SIGTERM);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		sweep_cell_child = 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cJSON_DeleteItemFromObject(st, "ended");
	cJSON_AddNumberToObject(st, "ended", (double)time(NULL));

	struct sweep_live_end e;
	int have_end = pid > 0 && sweep_live_summary(outp, &e) == 0;
	char *last = sweep_last_line(errp, NULL);
	if (pid < 0) {
		sweep_cell_state_set(st, "failed", err);
	} else if (sweep_cell_signal || (have_end && !strcmp(e.end, "aborted"))) {
		char *why = xasprintf("stopped by %s (scancel, a Slurm time limit or preemption, kbtui sweep --cancel)",
		                      sweep_cell_signal ? strsignal(sweep_cell_signal) : "a signal");
		sweep_cell_state_set(st, "killed", why);
		free(why);
	} else if (have_end && strcmp(e.end, "error")) {
		char *row = sweep_cell_row(c, dir, cell, &e, secs);
		int dup = 0;
		if (sweep_row_append(dir, row, ce->run_id, &dup, &err) < 0) {
			sweep_cell_state_set(st, "failed", err);
		} else {
			sweep_cell_state_set(st, "done", NULL);
			cJSON_AddStringToObject(st, "end", e.end);
			rc = 0;
		}
		free(row);
	} else if (have_end) {
		sweep_cell_state_set(st, "failed", last ? last : "the model failed (no reason given)");
	} else if (WIFSIGNALED(status)) {
		char *why = xasprintf("kbtui live was killed by %s", strsignal(WTERMSIG(status)));
		sweep_cell_state_set(st, "killed", why);
		free(why);
	} else {
		char *why = xasprintf("kbtui live exited with status %d%s%s", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		                      last ? ": " : "", last ? last : "");
		sweep_cell_state_set(st, "failed", why);
		free(why);
	}
	if (have_end)
		free(e.end);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	free(last);
	free(err);
	free(outp);
	free(errp);
	free(rundir);
	free(rel);
	return rc;
}

int sweep_cell_run(const struct sweep_config *c, const char *dir, int cell, const char *exe, FILE *log)
{
	const struct sweep_cell *ce = &c->cells[cell];
	const struct sweep_model *m = &c->models[ce->model];
	const char *key = getenv(m->key_env), *aj = getenv("SLURM_ARRAY_JOB_ID"), *at = getenv("SLURM_ARRAY_TASK_ID");
	cJSON *prev, *st;
	char *err = NULL, *host;
	int lock, rc = 1;

	sweep_mkdir(dir, NULL);
	sweep_mkdir(dir, "cells");
	sweep_mkdir(dir, "runs");
	if ((lock = sweep_cell_lock(dir, ce->run_id)) < 0) {
		fprintf(log, "kbtui sweep: %s: another process runs it\n", ce->run_id);
		return 2;
	}
	if (sweep_row_exists(dir, ce->run_id)) {
		fprintf(log, "kbtui sweep: %s: already done\n", ce->run_id);
		close(lock);
		return 0;
	}
	prev = sweep_state_load(dir, ce->run_id);
	st = cJSON_CreateObject();
	cJSON_AddStringToObject(st, "run_id", ce->run_id);
	cJSON_AddStringToObject(st, "state", "running");
	cJSON_AddNumberToObject(st, "attempt", prev ? jx_num(prev, "attempt", 1) + 1 : 1);
	cJSON_AddNumberToObject(st, "started", (double)time(NULL));
	host = sweep_hostname();
	cJSON_AddStringToObject(st, "host", host);
	cJSON_AddNumberToObject(st, "pid", (double)getpid());
	if (aj && at) {
		char *job = xasprintf("%s_%s", aj, at);
		cJSON_AddStringToObject(st, "job", job);
		free(job);
	}
	cJSON_Delete(prev);
	if (sweep_cell_move_aside(dir, ce->run_id, &err) < 0) {
		sweep_cell_state_set(st, "failed", err);
	} else if (!key || !*key) {
		char *why = xasprintf("%s is not set in this cell's environment (key_env of '%s')", m->key_env, m->label);
		sweep_cell_state_set(st, "failed", why);
		free(why);
	} else if (sweep_state_save(dir, ce->run_id, st, &err) < 0) {
		sweep_cell_state_set(st, "failed", err);
	} else {
		fprintf(log, "kbtui sweep: %s: started on %s (attempt %d)\n", ce->run_id, host,
		        (int)jx_num(st, "attempt", 1));
		fflush(log);
		rc = sweep_cell_live(c, dir, cell, exe, key, st);
	}
	free(err);
	err = NULL;
	if (sweep_state_save(dir, ce->run_id, st, &err) < 0) {
		textsafe_fprintf(log, "kbtui sweep: %s\n", err);
		free(err);
		err = NULL;
	}
	if (rc == 0 && sweep_leaderboard_write(c, dir, &err) < 0) {
		textsafe_fprintf(log, "kbtui sweep: %s\n", err);
		free(err);
	}
	{
		const char *reason = jx_str(st, "reason");
		char *safe = reason ? textsafe(reason, strlen(reason), 0) : NULL;
		fprintf(log, "kbtui sweep: %s: %s%s%s\n", ce->run_id, jx_str(st, "state"), safe ? ": " : "", safe ? safe : "");
		free(safe);
	}
	fflush(log);
	free(host);
	cJSON_Delete(st);
	close(lock);
	return rc;
}
