/* test_sweep.c: the core of kbtui sweep without a model: the models file
 * (its fields, run ids, errors with their lines), sweep.json round trip
 * and refusal of another sweep, rows appended by many processes at once
 * (long lines, never interleaved, never a cell twice), the leaderboard
 * from the rows, the state read from the directory (queued, done, failed,
 * a runner gone without a word), and the environment a cell gets. */
#include "tap.h"
#include "sweep.h"
#include "dataset.h"
#include "util.h"

#include <cjson/cJSON.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmp[] = "/tmp/kbtui-test-sweep-XXXXXX";

static char *write_tmp(const char *name, const char *text)
{
	char *p = util_path_join(tmp, name);
	FILE *f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	return p;
}

static int load(struct sweep_config *c, const char *text, char **err)
{
	char *p = write_tmp("models.yaml", text);
	int rc;
	memset(c, 0, sizeof *c);
	*err = NULL;
	rc = sweep_models_load(c, p, err);
	free(p);
	return rc;
}

static void models(void)
{
	struct sweep_config c;
	char *err;

	is_int(load(&c, "# two models\nmodels:\n  - label: gpt-x [high]\n    model: gpt-x\n    effort: high\n"
	                "    key_env: OPENAI_API_KEY\n  - label: \"claude/y\"\n    provider: anthropic\n"
	                "    model: claude-y\n    base_url: http://127.0.0.1:9/\n    key_env: LAB_KEY\n"
	                "    thinking: 1024\n", &err), 0, "a models file with two models loads");
	is_int(c.nmodels, 2, "two models");
	is_str(c.models[0].provider, "openai", "provider defaults to openai");
	is_str(c.models[0].slug, "gpt-x-high", "the label names the runs: gpt-x-high");
	is_str(c.models[1].slug, "claude-y", "claude/y -> claude-y");
	is_int(c.models[1].thinking, 1024, "thinking read");
	is_str(c.models[1].key_env, "LAB_KEY", "key_env is the variable's name");
	c.problems_dir = xstrdup(tap_path("tests/fixtures/eval/problems"));
	is_int(sweep_problems_set(&c, "all", &err), 0, "--problems all");
	is_int(c.ncells, 2, "2 models x 1 problem");
	is_str(c.cells[1].run_id, "claude-y_01_toy", "run id: label slug and problem");
	is_int(sweep_cell_find(&c, "gpt-x-high_01_toy"), 0, "cells found by run id");
	is_int(sweep_cell_find(&c, "nope"), -1, "... and not others");
	sweep_config_free(&c);

	load(&c, "- label: a\n  model: m\n  key_env: K\n", &err);
	c.problems_dir = xstrdup(tap_path("tests/fixtures/eval/problems"));
	is_int(sweep_problems_set(&c, "01,toy,01_toy", &err), 0, "a list of names, numbers and short names");
	is_int(c.nproblems, 1, "... the same problem once");
	sweep_config_free(&c);

	ok(load(&c, "- label: a\n  model: m\n", &err) < 0, "no key_env: refused");
	has_str(err, "models.yaml:1: this model has no key_env", "names file and line");
	free(err);
	sweep_config_free(&c);
	ok(load(&c, "- label: a\n  model: m\n  key_env: sk-abc123-THEKEY\n", &err) < 0, "a key as key_env: refused");
	ok(err && !strstr(err, "THEKEY"), "the message does not repeat it");
	free(err);
	sweep_config_free(&c);
	ok(load(&c, "- label: a\n  model: m\n  key_env: K\n  base_url: ftp://x\n", &err) < 0, "a base_url not http(s)");
	has_str(err, "base_url is an http:// or https:// URL", "says so");
	free(err);
	sweep_config_free(&c);
	ok(load(&c, "- label: a\n  model: m\n  key_env: K\n  thinking: lots\n", &err) < 0, "thinking not a number");
	has_str(err, "models.yaml:4: thinking is a number of tokens, not 'lots'", "names the line");
	free(err);
	sweep_config_free(&c);
	ok(load(&c, "- label: \"\\e[\\e]\"\n  model: m\n  key_env: K\n", &err) < 0, "a label of escapes only names no run");
	free(err);
	sweep_config_free(&c);
	ok(load(&c, "- label: a\n  model: m\n  key_env: K\n  \"\\e[2J\": x\n", &err) < 0, "an unknown key with an escape");
	ok(err && !strchr(err, 0x1b) && strstr(err, "^["), "... shown, never sent raw");
	free(err);
	sweep_config_free(&c);
	ok(load(&c, "[]\n", &err) < 0, "an empty list");
	has_str(err, "the list of models is empty", "says so");
	free(err);
	sweep_config_free(&c);
	ok(load(&c, "label: a\n", &err) < 0, "a mapping without models:");
	has_str(err, "expected a list of models", "says what it wants");
	free(err);
	sweep_config_free(&c);
}

static void config(void)
{
	struct sweep_config c, d;
	char *err = NULL, *dir = util_path_join(tmp, "cfg");

	mkdir(dir, 0777);
	load(&c, "- label: a\n  model: m\n  key_env: K\n- label: b\n  provider: anthropic\n  model: n\n  key_env: L\n", &err);
	c.problems_dir = xstrdup(tap_path("tests/fixtures/eval/problems"));
	sweep_problems_set(&c, "all", &err);
	c.budget_s = 120;
	c.executor = xstrdup("slurm");
	c.parallel = 3;
	is_int(sweep_config_save(&c, dir, &err), 0, "sweep.json written");
	is_int(sweep_config_load(&d, dir, &err), 0, "... and read back");
	is_int(d.ncells, 2, "the same cells");
	is_str(d.cells[1].run_id, "b_01_toy", "the same run ids");
	is_str(d.models[1].provider, "anthropic", "the same models");
	ok(d.budget_s == 120 && d.parallel == 3 && !strcmp(d.executor, "slurm"), "the options");
	is_int(sweep_config_save(&d, dir, &err), 0, "the same sweep saved again");
	d.budget_s = 60;
	ok(sweep_config_save(&d, dir, &err) < 0, "another budget into the same directory: refused");
	has_str(err, "holds another sweep (not the same budget_s)", "says what differs");
	free(err);
	sweep_config_free(&c);
	sweep_config_free(&d);
	char *d2 = util_path_join(tmp, "cfg2"), *bad;
	mkdir(d2, 0777);
	bad = write_tmp("cfg2/sweep.json", "{\"models\": 3}\n");
	ok(sweep_config_load(&d, d2, &err) < 0, "a sweep.json without models");
	has_str(err, "sweep.json:1: not a sweep configuration", "says so");
	free(err);
	sweep_config_free(&d);
	free(bad);
	free(d2);
	free(dir);
}

/* Many processes append long rows at once, some for the same run id. */
static void rows(void)
{
	char *dir = util_path_join(tmp, "rows"), *err = NULL;
	const int procs = 8, each = 30;
	mkdir(dir, 0777);
	for (int p = 0; p < procs; p++) {
		if (fork() == 0) {
			for (int i = 0; i < each; i++) {
				/* longer than PIPE_BUF, so only the lock keeps lines whole */
				char pad[9000], *line, id[32];
				memset(pad, 'a' + p, sizeof pad - 1);
				pad[sizeof pad - 1] = 0;
				if (i % 2)
					snprintf(id, sizeof id, "own-%d-%d", p, i);
				else   /* every process writes these */
					snprintf(id, sizeof id, "shared-%d", i);
				line = xasprintf("{\"run_id\":\"%s\",\"pad\":\"%s\"}", id, pad);
				int dup;
				if (sweep_row_append(dir, line, id, &dup, &err) < 0)
					_exit(1);
				free(line);
			}
			_exit(0);
		}
	}
	int bad = 0, st;
	while (wait(&st) > 0)
		bad += !WIFEXITED(st) || WEXITSTATUS(st);
	is_int(bad, 0, "%d processes appended %d rows each", procs, each);
	char *path = util_path_join(dir, "runs.jsonl");
	size_t len;
	char *buf = util_read_file(path, &len);
	int lines = 0, whole = 0, shared = 0;
	for (char *s = buf, *nl; s && (nl = strchr(s, '\n')); s = nl + 1) {
		cJSON *o = cJSON_ParseWithLength(s, (size_t)(nl - s));
		lines++;
		whole += o && strlen(cJSON_GetObjectItem(o, "pad")->valuestring) == 8999;
		shared += o && !strncmp(cJSON_GetObjectItem(o, "run_id")->valuestring, "shared-", 7);
		cJSON_Delete(o);
	}
	/* 15 shared ids (even i < 30) once each, 8 x 15 own ids */
	is_int(lines, 15 + procs * 15, "each run id once: %d rows", 15 + procs * 15);
	is_int(whole, lines, "every row whole: one write under the lock");
	is_int(shared, 15, "the ids several wrote: one row each");
	ok(sweep_row_exists(dir, "shared-4") && !sweep_row_exists(dir, "shared-5"), "sweep_row_exists");
	/* a writer that died mid-line leaves no row: the reader ignores it */
	int fd = open(path, O_WRONLY | O_APPEND);
	ok(write(fd, "{\"run_id\":\"half", 15) == 15, "a half line appended");
	close(fd);
	ok(!sweep_row_exists(dir, "half"), "a line without its newline is no row");
	int dup = 1;
	ok(sweep_row_append(dir, "{\"run_id\":\"after-half\"}", "after-half", &dup, &err) == 0 && !dup,
	   "a row appended after the torn line");
	ok(sweep_row_exists(dir, "after-half"), "... is a row of its own");
	free(buf);
	free(path);
	free(dir);
}

static void state(void)
{
	struct sweep_config c;
	char *err = NULL, *dir = util_path_join(tmp, "state"), *rd;
	struct sweep_cell_status *st;
	int dup;

	mkdir(dir, 0777);
	load(&c, "- label: A\n  model: m\n  effort: high\n  key_env: K\n", &err);
	c.problems_dir = xstrdup(tap_path("tests/fixtures/eval/problems"));
	sweep_problems_set(&c, "all", &err);
	st = sweep_status_read(&c, dir);
	is_int(st[0].state, SWEEP_QUEUED, "a cell never started is queued");
	sweep_status_free(st, c.ncells);

	rd = util_path_join(dir, "cells");
	mkdir(rd, 0777);
	free(rd);
	cJSON *o = cJSON_Parse("{\"run_id\":\"A_01_toy\",\"state\":\"running\",\"attempt\":1,\"started\":1}");
	is_int(sweep_state_save(dir, "A_01_toy", o, &err), 0, "a state written");
	/* the lock held by a process of ours: running */
	char *lp = sweep_cell_file(dir, "A_01_toy", "lock");
	int pfd[2];
	ok(pipe(pfd) == 0, "pipe");
	pid_t kid = fork();
	if (kid == 0) {
		int fd = open(lp, O_RDWR | O_CREAT, 0644);
		flock(fd, LOCK_EX);
		if (write(pfd[1], "x", 1) != 1)
			_exit(1);
		close(pfd[1]);
		pause();   /* until the parent kills it, as SIGKILL would a runner */
		_exit(0);
	}
	char ch;
	close(pfd[1]);
	ok(read(pfd[0], &ch, 1) == 1, "the runner holds the lock");
	st = sweep_status_read(&c, dir);
	is_int(st[0].state, SWEEP_RUNNING, "state running and its lock held: running");
	ok(st[0].elapsed > 0, "with the time since it started");
	sweep_status_free(st, c.ncells);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	close(pfd[0]);
	st = sweep_status_read(&c, dir);
	is_int(st[0].state, SWEEP_KILLED, "state running but nobody holds the lock: killed");
	has_str(st[0].reason, "runner died", "... and why");
	sweep_status_free(st, c.ncells);
	cJSON_Delete(o);

	o = cJSON_Parse("{\"run_id\":\"A_01_toy\",\"state\":\"failed\",\"attempt\":2,\"reason\":\"HTTP 503\"}");
	sweep_state_save(dir, "A_01_toy", o, &err);
	cJSON_Delete(o);
	st = sweep_status_read(&c, dir);
	ok(st[0].state == SWEEP_FAILED && st[0].attempt == 2 && !strcmp(st[0].reason, "HTTP 503"), "failed, with its reason");
	sweep_status_free(st, c.ncells);

	sweep_row_append(dir, "{\"run_id\":\"A_01_toy\",\"correct\":true,\"peak_fraction\":0.25,\"elapsed_seconds\":61}",
	                 "A_01_toy", &dup, &err);
	st = sweep_status_read(&c, dir);
	ok(st[0].state == SWEEP_DONE && st[0].correct && st[0].peak_fraction == 0.25, "a row: done, its outcome");
	char *txt;
	size_t tl;
	FILE *f = open_memstream(&txt, &tl);
	sweep_status_print(&c, st, f);
	fclose(f);
	has_str(txt, "done PASS 0.2500 1m01s", "the grid cell");
	has_str(txt, "1 cells: 1 done", "the count");
	free(txt);
	f = open_memstream(&txt, &tl);
	sweep_status_json(&c, dir, st, f);
	fclose(f);
	has_str(txt, "\"state\":\"done\"", "--json: the state");
	free(txt);
	sweep_status_free(st, c.ncells);

	is_int(sweep_leaderboard_write(&c, dir, &err), 0, "leaderboard.json written");
	char *lb = util_path_join(dir, "leaderboard.json"), *lbt = util_read_file(lb, NULL);
	has_str(lbt, "\"label\":\t\"A\"", "the model's label");
	has_str(lbt, "\"run_id\":\t\"A_01_toy\"", "its cell by problem");
	has_str(lbt, "\"pass_count\":\t1", "pass_count");
	free(lbt);
	free(lb);
	free(lp);
	sweep_config_free(&c);
	free(dir);
}

static void env(void)
{
	struct sweep_config c;
	char *err = NULL;
	const char *extra[] = {"OPENAI_API_KEY=the-one", NULL};
	load(&c, "- label: a\n  model: m\n  key_env: LAB_SECRET_A\n- label: b\n  model: m\n  key_env: LABKEYB\n", &err);
	setenv("LAB_SECRET_A", "x", 1);
	setenv("LABKEYB", "y", 1);
	setenv("HF_TOKEN", "z", 1);
	setenv("ANTHROPIC_API_KEY", "w", 1);
	setenv("KBTUI_SWEEP_TEST_PLAIN", "kept", 1);
	char **e = sweep_env_clean(&c, extra);
	int keys = 0, plain = 0, one = 0;
	for (int i = 0; e[i]; i++) {
		keys += !strncmp(e[i], "LAB_SECRET_A=", 13) || !strncmp(e[i], "LABKEYB=", 8) ||
		        !strncmp(e[i], "HF_TOKEN=", 9) || !strncmp(e[i], "ANTHROPIC_API_KEY=", 18);
		plain += !strcmp(e[i], "KBTUI_SWEEP_TEST_PLAIN=kept");
		one += !strncmp(e[i], "OPENAI_API_KEY=", 15);
	}
	is_int(keys, 0, "no key variable in a cell's environment (key_env ones, *TOKEN*, *KEY*)");
	is_int(plain, 1, "the rest kept");
	is_int(one, 1, "the cell's own key once");
	ok(sweep_env_is_key(&c, "LABKEYB") && !sweep_env_is_key(&c, "PATH"), "sweep_env_is_key");
	sweep_env_free(e);
	sweep_config_free(&c);
}

/* The sweep as a dataset while it runs: a directory with nothing finished
 * opens, every cell is a run named as its row will name it, and a cell
 * that finishes is read again with its row's outcome. */
static void as_dataset(void)
{
	struct sweep_config c;
	char *err = NULL, *dir = util_path_join(tmp, "dsweep"), *sub;
	int dup;
	mkdir(dir, 0777);
	load(&c, "- label: A [hi]\n  model: m\n  effort: high\n  key_env: K\n- label: B\n  model: n\n  key_env: K\n",
	     &err);
	c.problems_dir = xstrdup(tap_path("tests/fixtures/eval/problems"));
	sweep_problems_set(&c, "all", &err);
	c.executor = xstrdup("local");
	is_int(sweep_config_save(&c, dir, &err), 0, "a sweep.json");
	sub = util_path_join(dir, "runs");
	mkdir(sub, 0777);
	free(sub);
	struct dataset *ds = dataset_open(dir, &err);
	ok(ds != NULL, "a sweep with no cell finished opens as a dataset");
	if (!ds) {
		sweep_config_free(&c);
		free(dir);
		return;
	}
	is_int((long long)ds->nruns, 0, "... with no runs of its own");
	is_int(sweep_dataset_cells(ds, &c), 2, "every cell added as a run");
	long k = dataset_find(ds, "A-hi_01_toy");
	ok(k >= 0 && !strcmp(ds->runs[k].meta.label, "A [hi]") && !strcmp(ds->runs[k].meta.problem, "01_toy") &&
	   !strcmp(ds->runs[k].meta.effort, "high") && !strcmp(ds->runs[k].meta.harness, "kbtui-live"),
	   "a cell's run is named as its row will name it (label, problem, effort, harness)");
	ok(k >= 0 && !ds->runs[k].meta.has_result, "... with no result yet");
	is_int(sweep_dataset_cells(ds, &c), 0, "adding again adds nothing");
	struct sweep_cell_status *before = sweep_status_read(&c, dir);
	is_int(sweep_dataset_update(ds, &c, before, before), 0, "nothing moved: nothing read again");
	/* the cell finishes: its row, as sweep_cell_run appends it */
	is_int(sweep_row_append(dir, "{\"run_id\":\"A-hi_01_toy\",\"label\":\"A [hi]\",\"problem\":\"01_toy\","
	                        "\"correct\":true,\"peak_fraction\":0.25,\"session_complete\":true,\"elapsed_seconds\":9}",
	                        "A-hi_01_toy", &dup, &err), 0, "a row appended");
	struct sweep_cell_status *now = sweep_status_read(&c, dir);
	is_int(now[0].state, SWEEP_DONE, "the cell reads as done");
	is_int(sweep_dataset_update(ds, &c, now, before), 1, "one cell moved");
	ok(ds->runs[k].meta.has_result && ds->runs[k].meta.correct && ds->runs[k].meta.peak_fraction == 0.25 &&
	   ds->runs[k].meta.session_complete, "its run has the row's outcome: correct, 0.25, complete");
	char *text = sweep_cell_text(&now[0]);
	is_str(text, "done PASS 0.2500 9s", "its text is what --status prints");
	free(text);
	sweep_status_free(before, c.ncells);
	sweep_status_free(now, c.ncells);
	dataset_free(ds);
	sweep_config_free(&c);
	free(dir);
}

int main(void)
{
	if (!mkdtemp(tmp))
		return 1;
	models();
	config();
	rows();
	state();
	env();
	as_dataset();
	char *cmd = xasprintf("rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmp);
	free(cmd);
	return tap_done();
}
