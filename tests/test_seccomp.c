/* The runner's seccomp filter (problems/harness/kb_seccomp.h), without a
 * GPU: per row, a child installs the filter and makes the call itself;
 * a forbidden call ends the child with KB_SECCOMP_EXIT + the row, which
 * names the call; threads, reads and opens that create nothing still work. */
#include "tap.h"
#include "../problems/harness/kb_seccomp.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>

/* The child's exit status after it installed the filter and ran fn; -1
 * when it died by a signal, -2 when the filter could not be installed. */
static int sc_child(int (*fn)(void))
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		if (kb_seccomp_install() < 0)
			_exit(250);
		_exit(fn());
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	if (!WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st) == 250 ? -2 : WEXITSTATUS(st);
}

static int sc_row(const char *name)
{
	for (int i = 0; i < KB_SC_NRULES; i++)
		if (!strcmp(kb_sc_rules[i].name, name))
			return i;
	return -1;
}

/* Each forbidden call, made raw (the filter sees system calls, not libc). */
static char *sc_argv[] = {(char *)"true", NULL};
static int do_execve(void) { syscall(__NR_execve, "/bin/true", sc_argv, NULL); return 1; }
static int do_execveat(void) { syscall(__NR_execveat, AT_FDCWD, "/bin/true", sc_argv, NULL, 0); return 1; }
static int do_clone_proc(void) { long r = syscall(__NR_clone, SIGCHLD, 0, 0, 0, 0); if (r == 0) _exit(0); return 1; }
static int do_ptrace(void) { syscall(__NR_ptrace, 0, getppid(), 0, 0); return 1; }
static int do_vm_read(void) { syscall(__NR_process_vm_readv, getppid(), 0, 0, 0, 0, 0); return 1; }
static int do_vm_write(void) { syscall(__NR_process_vm_writev, getppid(), 0, 0, 0, 0, 0); return 1; }
static int do_socket(void) { syscall(__NR_socket, AF_UNIX, SOCK_STREAM, 0); return 1; }
static int do_unshare(void) { syscall(__NR_unshare, 0); return 1; }
#ifdef __NR_fork
static int do_fork(void) { long r = syscall(__NR_fork); if (r == 0) _exit(0); return 1; }
#endif
#ifdef __NR_vfork
static int do_vfork(void)
{
	long r = syscall(__NR_clone, CLONE_VM | CLONE_VFORK | SIGCHLD, 0, 0, 0, 0);
	if (r == 0)
		_exit(0);
	return 1;
}
#endif

/* What still works: a thread, reading, an open that creates nothing. */
static void *sc_thread(void *arg) { return arg; }
static int do_thread(void)
{
	pthread_t t;
	void *r = NULL;
	return pthread_create(&t, NULL, sc_thread, (void *)7) == 0 && pthread_join(t, &r) == 0 && r == (void *)7 ? 0 : 1;
}
static int do_read_open(void)
{
	int fd = open("/dev/null", O_RDWR);
	char b;
	return fd >= 0 && read(fd, &b, 1) == 0 && close(fd) == 0 ? 0 : 1;
}
static char sc_path[256];
static int do_create(void)
{
	int fd = open(sc_path, O_WRONLY | O_CREAT, 0600);
	return fd < 0 && errno == EPERM ? 0 : 1;
}
static int do_truncate(void)
{
	int fd = open(sc_path, O_WRONLY | O_TRUNC);
	return fd < 0 && errno == EPERM ? 0 : 1;
}
static int do_clone3(void)
{
#ifdef __NR_clone3
	return syscall(__NR_clone3, NULL, 0) < 0 && errno == ENOSYS ? 0 : 1;
#else
	return 0;
#endif
}

int main(void)
{
	static const struct {
		const char *row;
		int (*fn)(void);
	} trap[] = {
		{"execve", do_execve}, {"execveat", do_execveat}, {"clone", do_clone_proc}, {"ptrace", do_ptrace},
		{"process_vm_readv", do_vm_read}, {"process_vm_writev", do_vm_write}, {"socket", do_socket},
		{"unshare", do_unshare},
#ifdef __NR_fork
		{"fork", do_fork},
#endif
#ifdef __NR_vfork
		{"clone", do_vfork},
#endif
	};
	int probe = sc_child(do_thread);
	if (probe == -2) {
		tap_skip("seccomp filters cannot be installed here");
		return tap_done();
	}
	is_int(probe, 0, "a thread (clone with CLONE_THREAD, clone3 falling back) still starts");
	for (size_t i = 0; i < sizeof trap / sizeof *trap; i++) {
		int row = sc_row(trap[i].row), st = sc_child(trap[i].fn);
		const struct kb_sc_rule *r = kb_seccomp_rule_of_exit(st);
		ok(row >= 0 && st == KB_SECCOMP_EXIT + row && r && !strcmp(r->name, trap[i].row),
		   "%s: the runner ends with status %d, which names %s (%s)", trap[i].row, st, r ? r->name : "nothing",
		   r ? r->why : "-");
	}
	snprintf(sc_path, sizeof sc_path, "/tmp/kbtui-test-seccomp-%d", (int)getpid());
	is_int(sc_child(do_create), 0, "an open that would create a file fails with EPERM");
	FILE *f = fopen(sc_path, "w");
	if (f) {
		fputs("kept\n", f);
		fclose(f);
	}
	is_int(sc_child(do_truncate), 0, "an open that would truncate one fails with EPERM");
	char buf[16] = "";
	f = fopen(sc_path, "r");
	ok(f && fgets(buf, sizeof buf, f) && !strcmp(buf, "kept\n"), "and the file is intact");
	if (f)
		fclose(f);
	unlink(sc_path);
	is_int(sc_child(do_read_open), 0, "a device opened read-write without creating (the driver's way) works");
	is_int(sc_child(do_clone3), 0, "clone3 says ENOSYS (its flags are out of the filter's sight)");
	ok(!kb_seccomp_rule_of_exit(0) && !kb_seccomp_rule_of_exit(1) &&
	   !kb_seccomp_rule_of_exit(KB_SECCOMP_EXIT + KB_SC_NRULES), "ordinary exit statuses name no call");
	return tap_done();
}
