/* sweep_slurm.c: the Slurm executor: one `sbatch --array` job per start,
 * one task per cell, each task `kbtui sweep --run-cell DIR RUN_ID` on its
 * node; what is queued from squeue, the rest from the directory; cancel
 * is scancel. No scheduler of our own.
 *
 * DIR must be on a filesystem the nodes share, with kbtui at the same path
 * there. The keys never pass through Slurm: sbatch runs with an
 * environment from which every key variable was removed (so neither the
 * job script nor the environment Slurm saves holds one); the task reads
 * its model's key_env from the environment the node gives it (a
 * TaskProlog, or --sbatch-opt=--get-user-env with the key in the login
 * environment). */
#include "sweep.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* DIR/slurm/jobs: one line per submitted job: "JOBID RUN_ID..." (task i
 * runs the i-th run id). */
static char *sweep_slurm_jobs_path(const char *dir)
{
	return util_path_join(dir, "slurm/jobs");
}

/* Single quotes for sh: run ids and paths go into the job script. */
static void sweep_sh_quote(struct sbuf *b, const char *s)
{
	sbuf_addc(b, '\'');
	for (; *s; s++)
		if (*s == '\'')
			sbuf_adds(b, "'\\''");
		else
			sbuf_addc(b, *s);
	sbuf_addc(b, '\'');
}

static char *sweep_slurm_script(const struct sweep_config *c, const char *dir, const int *todo, int n, const char *exe)
{
	struct sbuf b;
	sbuf_init(&b);
	sbuf_adds(&b, "#!/bin/sh\n"
	              "# kbtui sweep: array task i runs the i-th cell below. Written by kbtui;\n"
	              "# it holds no key: each cell reads its model's key_env from the task's environment.\n"
	              "set --");
	for (int i = 0; i < n; i++) {
		sbuf_addc(&b, ' ');
		sweep_sh_quote(&b, c->cells[todo[i]].run_id);
	}
	sbuf_adds(&b, "\nshift \"${SLURM_ARRAY_TASK_ID:?not an array task}\"\nexec ");
	sweep_sh_quote(&b, exe);
	sbuf_adds(&b, " sweep --run-cell -- ");
	sweep_sh_quote(&b, dir);
	sbuf_adds(&b, " \"$1\"\n");
	return sbuf_detach(&b);
}

static int sweep_slurm_start(const struct sweep_config *c, const char *dir, const int *todo, int n, const char *exe,
                             FILE *out, char **err)
{
	char *sdir = util_path_join(dir, "slurm"), *script = sweep_slurm_script(c, dir, todo, n, exe), *spath;
	char *jobs = sweep_slurm_jobs_path(dir), *stdout_ = NULL, *why = NULL;
	char **argv = xcalloc((size_t)c->nsbatch_opts + 16, sizeof *argv), **env;
	int k = 0, rc = -1, minutes = (int)((c->budget_s > 0 ? c->budget_s : 45 * 60) / 60 + 0.999) + 15;
	FILE *f;

	mkdir(sdir, 0777);
	for (int i = 1;; i++) {   /* one script per submission, kept for the record */
		spath = xasprintf("%s/job-%d.sh", sdir, i);
		if (!util_is_file(spath))
			break;
		free(spath);
	}
	if (!(f = fopen(spath, "w")) || fputs(script, f) < 0 || fclose(f) != 0) {
		*err = xasprintf("cannot write %s: %s", spath, strerror(errno));
		goto out;
	}
	chmod(spath, 0755);
	argv[k++] = xstrdup("sbatch");
	argv[k++] = xstrdup("--parsable");
	argv[k++] = xstrdup("--job-name=kbtui-sweep");
	argv[k++] = c->parallel > 0 ? xasprintf("--array=0-%d%%%d", n - 1, c->parallel) : xasprintf("--array=0-%d", n - 1);
	argv[k++] = xasprintf("--output=%s/%%A_%%a.out", sdir);
	argv[k++] = xasprintf("--time=%d", minutes);
	argv[k++] = xstrdup("--export=ALL");
	argv[k++] = xasprintf("--chdir=%s", sdir);
	if (!c->no_gpu)
		argv[k++] = xstrdup("--gres=gpu:1");
	if (c->partition)
		argv[k++] = xasprintf("--partition=%s", c->partition);
	for (int i = 0; i < c->nsbatch_opts; i++)
		argv[k++] = xstrdup(c->sbatch_opts[i]);
	argv[k++] = xstrdup(spath);
	env = sweep_env_clean(c, NULL);
	int st = sweep_spawn(argv, env, &stdout_, &why);
	sweep_env_free(env);
	if (st != 0) {
		*err = xasprintf("sbatch failed: %s", why ? why : "no message");
		goto out;
	}
	/* "JOBID" or "JOBID;CLUSTER" */
	size_t idlen = strspn(stdout_, "0123456789");
	if (!idlen) {
		*err = xasprintf("sbatch said no job id: %.80s", stdout_);
		goto out;
	}
	if (!(f = fopen(jobs, "a"))) {
		*err = xasprintf("job %.*s submitted but %s cannot be written: %s; scancel it", (int)idlen, stdout_, jobs,
		                 strerror(errno));
		goto out;
	}
	fprintf(f, "%.*s", (int)idlen, stdout_);
	for (int i = 0; i < n; i++)
		fprintf(f, " %s", c->cells[todo[i]].run_id);
	fputc('\n', f);
	fclose(f);
	fprintf(out, "kbtui sweep: submitted job %.*s: %d cells (array 0-%d), --time=%d; kbtui sweep --status %s\n",
	        (int)idlen, stdout_, n, n - 1, minutes, dir);
	rc = 0;
out:
	for (int i = 0; i < k; i++)
		free(argv[i]);
	free(argv);
	free(why);
	free(stdout_);
	free(spath);
	free(script);
	free(jobs);
	free(sdir);
	return rc;
}

/* The submitted jobs: ids (owned, space separated for squeue's -j as a
 * comma list) and, for each, its run ids by task index. */
struct sweep_slurm_job {
	char *id;
	char **cells;
	int ncells;
};

static struct sweep_slurm_job *sweep_slurm_jobs(const char *dir, int *n)
{
	char *path = sweep_slurm_jobs_path(dir), *buf = util_read_file(path, NULL), *save = NULL;
	struct sweep_slurm_job *jobs = NULL;
	*n = 0;
	for (char *line = buf ? strtok_r(buf, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char *s2 = NULL, *tok = strtok_r(line, " ", &s2);
		if (!tok || !isdigit((unsigned char)*tok))
			continue;
		jobs = xrealloc(jobs, (size_t)(*n + 1) * sizeof *jobs);
		struct sweep_slurm_job *j = &jobs[(*n)++];
		j->id = xstrdup(tok);
		j->cells = NULL;
		j->ncells = 0;
		while ((tok = strtok_r(NULL, " ", &s2)) != NULL) {
			j->cells = xrealloc(j->cells, (size_t)(j->ncells + 1) * sizeof *j->cells);
			j->cells[j->ncells++] = xstrdup(tok);
		}
	}
	free(buf);
	free(path);
	return jobs;
}

static void sweep_slurm_jobs_free(struct sweep_slurm_job *jobs, int n)
{
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < jobs[i].ncells; k++)
			free(jobs[i].cells[k]);
		free(jobs[i].cells);
		free(jobs[i].id);
	}
	free(jobs);
}

/* squeue's lines for our jobs: "JOBID_TASK|STATE|REASON" (owned), NULL
 * when none was submitted or squeue cannot answer. */
static char *sweep_slurm_squeue(const struct sweep_slurm_job *jobs, int n)
{
	struct sbuf ids;
	char *argv[8], *out = NULL, *why = NULL;
	if (n == 0)
		return NULL;
	sbuf_init(&ids);
	for (int i = 0; i < n; i++) {
		if (i)
			sbuf_addc(&ids, ',');
		sbuf_adds(&ids, jobs[i].id);
	}
	argv[0] = "squeue";
	argv[1] = "-h";
	argv[2] = "-r";
	argv[3] = "-o";
	argv[4] = "%i|%t|%r";
	argv[5] = "-j";
	argv[6] = ids.s;
	argv[7] = NULL;
	if (sweep_spawn(argv, NULL, &out, &why) != 0) {
		/* finished jobs drop out of squeue: "Invalid job id" is no news */
		free(out);
		out = NULL;
	}
	free(why);
	sbuf_free(&ids);
	return out;
}

static void sweep_slurm_status(const struct sweep_config *c, const char *dir, struct sweep_cell_status *st)
{
	int nj = 0;
	struct sweep_slurm_job *jobs = sweep_slurm_jobs(dir, &nj);
	char *q = sweep_slurm_squeue(jobs, nj), *save = NULL;
	for (char *line = q ? strtok_r(q, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char *bar = strchr(line, '|'), *bar2 = bar ? strchr(bar + 1, '|') : NULL, *us = strchr(line, '_');
		if (!bar || !bar2 || !us || us > bar)
			continue;
		*us = *bar = *bar2 = 0;
		int task = atoi(us + 1), cell = -1;
		for (int j = 0; j < nj; j++)
			if (!strcmp(jobs[j].id, line) && task >= 0 && task < jobs[j].ncells)
				cell = sweep_cell_find(c, jobs[j].cells[task]);
		if (cell < 0)
			continue;
		struct sweep_cell_status *s = &st[cell];
		if (!strcmp(bar + 1, "PD") && s->state != SWEEP_DONE && s->state != SWEEP_RUNNING) {
			free(s->pending);
			s->pending = xstrdup(bar2 + 1);
			if (s->state == SWEEP_QUEUED || s->state == SWEEP_KILLED || s->state == SWEEP_FAILED)
				s->state = SWEEP_QUEUED;   /* requeued, or retried */
		} else if (strcmp(bar + 1, "PD") && s->state != SWEEP_DONE) {
			/* the task runs; its runner may not have written its state yet, or
			 * its lock is not visible from here (another node) */
			if (s->state == SWEEP_QUEUED || s->state == SWEEP_KILLED) {
				s->state = SWEEP_RUNNING;
				free(s->reason);
				s->reason = NULL;
			}
			if (!s->job)
				s->job = xasprintf("%s_%d", line, task);
		}
	}
	free(q);
	sweep_slurm_jobs_free(jobs, nj);
}

static int sweep_slurm_cancel(const struct sweep_config *c, const char *dir, FILE *out, char **err)
{
	int nj = 0, rc = 0;
	struct sweep_slurm_job *jobs = sweep_slurm_jobs(dir, &nj);
	char *q = sweep_slurm_squeue(jobs, nj), **argv = xcalloc((size_t)nj + 2, sizeof *argv), *why = NULL;
	int k = 0;
	(void)c;
	argv[k++] = "scancel";
	for (int j = 0; j < nj; j++) {
		/* only jobs squeue still knows: the others are over */
		char *pat = xasprintf("\n%s_", jobs[j].id);
		if (q && (!strncmp(q, pat + 1, strlen(pat + 1)) || strstr(q, pat)))
			argv[k++] = jobs[j].id;
		free(pat);
	}
	if (k == 1) {
		fprintf(out, "kbtui sweep: no job of %s is queued or running\n", dir);
	} else if (sweep_spawn(argv, NULL, NULL, &why) != 0) {
		*err = xasprintf("scancel failed: %s", why ? why : "no message");
		rc = -1;
	} else {
		for (int i = 1; i < k; i++)
			fprintf(out, "kbtui sweep: cancelled job %s (its running cells record that they were killed)\n",
			        argv[i]);
	}
	free(why);
	free(argv);
	free(q);
	sweep_slurm_jobs_free(jobs, nj);
	return rc;
}

const struct sweep_executor sweep_slurm = {
	.name = "slurm",
	.start = sweep_slurm_start,
	.status = sweep_slurm_status,
	.cancel = sweep_slurm_cancel,
};
