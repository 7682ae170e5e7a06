/* sweep_local.c: the local executor: N cell runners at a time on this
 * machine, each `kbtui sweep --run-cell DIR RUN_ID`; with GPUs here, one
 * GPU per cell (CUDA_VISIBLE_DEVICES, the least busy one) and
 * KBTUI_GPU_LOCK naming that GPU's lock file, which the eval takes around
 * its GPU use so neighbours on one GPU do not disturb its timings. */
#include "sweep.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t sweep_local_stop;

static void sweep_local_on_signal(int sig)
{
	sweep_local_stop = sig;
}

int sweep_local_gpus(void)
{
	char *argv[] = {"nvidia-smi", "-L", NULL}, *out = NULL, *why = NULL;
	int n = 0;
	const char *env = getenv("KBTUI_SWEEP_GPUS");   /* for tests and odd machines */
	if (env && *env)
		return atoi(env);
	if (sweep_spawn(argv, NULL, &out, &why) == 0 && out)
		for (char *p = out; (p = strstr(p, "GPU ")) != NULL; p += 4)
			if (p == out || p[-1] == '\n')
				n++;
	free(out);
	free(why);
	return n;
}

/* This process is the sweep's local executor while it holds local.lock
 * (its pid inside): kbtui sweep --cancel finds it there. */
static int sweep_local_claim(const char *dir, char **err)
{
	char *path = util_path_join(dir, "local.lock");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		*err = xasprintf("%s: %s", path, fd < 0 ? strerror(errno) : "another kbtui sweep runs this directory");
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	if (ftruncate(fd, 0) == 0)
		dprintf(fd, "%ld\n", (long)getpid());
	free(path);
	return fd;
}

struct sweep_slot {
	pid_t pid;
	int cell, gpu;
};

static pid_t sweep_local_fork(const char *dir, const char *run_id, const char *exe, int gpu)
{
	pid_t pid = fork();
	if (pid == 0) {
		/* after "--": a run id from a label such as "-x" is never an option */
		char *argv[] = {(char *)exe, "sweep", "--run-cell", "--", (char *)dir, (char *)run_id, NULL};
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (gpu >= 0) {
			char g[16], *gdir = util_path_join(dir, "gpu"), *lock;
			snprintf(g, sizeof g, "%d", gpu);
			mkdir(gdir, 0755);   /* ours alone: gpulock_take refuses another */
			lock = xasprintf("%s/%d.lock", gdir, gpu);
			setenv("CUDA_VISIBLE_DEVICES", g, 1);
			setenv("KBTUI_GPU_LOCK", lock, 1);
		}
		execv(exe, argv);
		dprintf(2, "kbtui sweep: cannot run %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	return pid;
}

static int sweep_local_pick_gpu(const struct sweep_slot *slots, int n, int ngpu)
{
	int best = 0, bestuse = -1;
	for (int g = 0; g < ngpu; g++) {
		int use = 0;
		for (int i = 0; i < n; i++)
			use += slots[i].pid > 0 && slots[i].gpu == g;
		if (bestuse < 0 || use < bestuse) {
			best = g;
			bestuse = use;
		}
	}
	return ngpu > 0 ? best : -1;
}

static int sweep_local_start(const struct sweep_config *c, const char *dir, const int *todo, int n, const char *exe,
                             FILE *out, char **err)
{
	int par = c->parallel > 0 ? c->parallel : 1, ngpu = sweep_local_gpus(), next = 0, running = 0, done = 0, bad = 0;
	struct sweep_slot *slots = xcalloc((size_t)par, sizeof *slots);
	struct sigaction sa = {0}, oi, ot;
	int claim = sweep_local_claim(dir, err);

	if (claim < 0) {
		free(slots);
		return -1;
	}
	fprintf(out, "kbtui sweep: %d cells to run, %d at a time, %s\n", n, par,
	        ngpu > 0 ? "one GPU each (CUDA_VISIBLE_DEVICES)" : "no GPU here");
	fflush(out);
	sweep_local_stop = 0;
	sa.sa_handler = sweep_local_on_signal;
	sigaction(SIGINT, &sa, &oi);
	sigaction(SIGTERM, &sa, &ot);
	while (running > 0 || (next < n && !sweep_local_stop)) {
		while (running < par && next < n && !sweep_local_stop) {
			int s = 0;
			while (slots[s].pid > 0)
				s++;
			slots[s].gpu = sweep_local_pick_gpu(slots, par, ngpu);
			slots[s].cell = todo[next];
			slots[s].pid = sweep_local_fork(dir, c->cells[todo[next]].run_id, exe, slots[s].gpu);
			next++;
			if (slots[s].pid > 0)
				running++;
		}
		int status;
		pid_t pid = waitpid(-1, &status, 0);
		if (pid < 0 && errno == EINTR) {
			if (sweep_local_stop)   /* pass it on once; runners record the end */
				for (int i = 0; i < par; i++)
					if (slots[i].pid > 0)
						kill(slots[i].pid, SIGTERM);
			continue;
		}
		if (pid < 0)
			break;
		for (int i = 0; i < par; i++)
			if (slots[i].pid == pid) {
				slots[i].pid = 0;
				running--;
				if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
					done++;
				else
					bad++;
			}
	}
	sigaction(SIGINT, &oi, NULL);
	sigaction(SIGTERM, &ot, NULL);
	fprintf(out, "kbtui sweep: %d cells finished, %d failed or stopped%s\n", done, bad,
	        sweep_local_stop ? " (stopped by a signal)" : "");
	free(slots);
	close(claim);
	return 0;
}

static int sweep_local_cancel(const struct sweep_config *c, const char *dir, FILE *out, char **err)
{
	char *path = util_path_join(dir, "local.lock"), *pid = NULL;
	int rc = 0;
	(void)c;
	if (sweep_lock_held(path) && (pid = util_read_file(path, NULL)) && atol(pid) > 0) {
		if (kill((pid_t)atol(pid), SIGTERM) < 0) {
			*err = xasprintf("cannot signal the sweep's process %ld: %s", atol(pid), strerror(errno));
			rc = -1;
		} else {
			fprintf(out, "kbtui sweep: sent SIGTERM to the sweep (pid %ld); its cells record their end\n",
			        atol(pid));
		}
	} else {
		fprintf(out, "kbtui sweep: no local sweep runs %s\n", dir);
	}
	free(pid);
	free(path);
	return rc;
}

const struct sweep_executor sweep_local = {
	.name = "local",
	.start = sweep_local_start,
	.status = NULL,
	.cancel = sweep_local_cancel,
};
