/* kb_seccomp.h: the runner's second line behind the static checks. Once
 * CUDA is initialised (the driver has opened its device nodes and made its
 * threads), the runner installs this seccomp filter on itself; a solution
 * whose code got past the lists (a raw syscall, an exec variant not named
 * there) still cannot start a program, fork, trace or read another process,
 * open a socket, or create or truncate a file.
 *
 * One table, a reason beside each row (OpenSSH's sandbox-seccomp-filter.c
 * is the model). A TRAP row raises SIGSYS; the runner's handler exits with
 * KB_SECCOMP_EXIT + the row's index, so the checker, which reads nothing
 * the runner prints, names the call from the exit status alone. A solution
 * that takes SIGSYS over only keeps the call from happening.
 *
 * Plain C and C++ (the runner is built by nvcc, tests/test_seccomp.c by cc);
 * Linux on x86-64 and aarch64. */
#ifndef KB_SECCOMP_H
#define KB_SECCOMP_H

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KB_SECCOMP_EXIT 160   /* + the row's index: the runner's exit status */

enum kb_sc_kind {
	KB_SC_TRAP,      /* SIGSYS: the runner exits, the checker names the call */
	KB_SC_ENOSYS,    /* "not implemented": the caller falls back */
	KB_SC_THREAD,    /* clone: a thread (CLONE_THREAD) passes, a process traps */
	KB_SC_NOCREATE,  /* open*: O_CREAT or O_TRUNC fails with EPERM, the rest passes;
	                  * arg: which argument holds the flags */
};

struct kb_sc_rule {
	long nr;
	const char *name;
	enum kb_sc_kind kind;
	int arg;
	const char *why;
};

#define KB_SC(n, k, a, w) {__NR_##n, #n, k, a, w}

static const struct kb_sc_rule kb_sc_rules[] = {
	KB_SC(execve, KB_SC_TRAP, 0, "starts another program"),
	KB_SC(execveat, KB_SC_TRAP, 0, "starts another program"),
#ifdef __NR_fork
	KB_SC(fork, KB_SC_TRAP, 0, "a second process, outside the checker's view"),
#endif
#ifdef __NR_vfork
	KB_SC(vfork, KB_SC_TRAP, 0, "a second process, outside the checker's view"),
#endif
	KB_SC(clone, KB_SC_THREAD, 0, "without CLONE_THREAD: a second process"),
#ifdef __NR_clone3
	/* its flags are in memory BPF cannot read: glibc falls back to clone */
	KB_SC(clone3, KB_SC_ENOSYS, 0, "flags out of the filter's sight"),
#endif
	KB_SC(ptrace, KB_SC_TRAP, 0, "reads or writes another process (the checker)"),
	KB_SC(process_vm_readv, KB_SC_TRAP, 0, "reads another process's memory"),
	KB_SC(process_vm_writev, KB_SC_TRAP, 0, "writes another process's memory"),
#ifdef __NR_pidfd_getfd
	KB_SC(pidfd_getfd, KB_SC_TRAP, 0, "takes another process's descriptors"),
#endif
	KB_SC(socket, KB_SC_TRAP, 0, "a new channel (the runner needs only fd 3)"),
	KB_SC(socketpair, KB_SC_TRAP, 0, "a new channel (the runner needs only fd 3)"),
	KB_SC(connect, KB_SC_TRAP, 0, "a new channel (the runner needs only fd 3)"),
	KB_SC(unshare, KB_SC_TRAP, 0, "namespaces of its own"),
	KB_SC(setns, KB_SC_TRAP, 0, "namespaces of its own"),
	KB_SC(mount, KB_SC_TRAP, 0, "changes the file system view"),
#ifdef __NR_open
	/* the driver opens /dev/nvidia* read-write, never creating: those pass */
	KB_SC(open, KB_SC_NOCREATE, 1, "creates or truncates a file"),
#endif
	KB_SC(openat, KB_SC_NOCREATE, 2, "creates or truncates a file"),
#ifdef __NR_creat
	KB_SC(creat, KB_SC_NOCREATE, -1, "creates a file"),
#endif
};

#define KB_SC_NRULES ((int)(sizeof kb_sc_rules / sizeof kb_sc_rules[0]))

#if defined(__x86_64__)
#define KB_SC_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define KB_SC_ARCH AUDIT_ARCH_AARCH64
#endif

/* The row a runner's exit status names, or NULL. */
static inline const struct kb_sc_rule *kb_seccomp_rule_of_exit(int status)
{
	int i = status - KB_SECCOMP_EXIT;
	return i >= 0 && i < KB_SC_NRULES ? &kb_sc_rules[i] : NULL;
}

static inline void kb_seccomp_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	for (int i = 0; i < KB_SC_NRULES; i++)
		if (kb_sc_rules[i].nr == si->si_syscall)
			_exit(KB_SECCOMP_EXIT + i);
	_exit(KB_SECCOMP_EXIT + KB_SC_NRULES);   /* the x32 ABI, another arch */
}

#define KB_SC_STMT(c, k) kb_sc_put(p, &n, (struct sock_filter)BPF_STMT(c, k))
#define KB_SC_JUMP(c, k, t, f) kb_sc_put(p, &n, (struct sock_filter)BPF_JUMP(c, k, t, f))

static inline void kb_sc_put(struct sock_filter *p, int *n, struct sock_filter f)
{
	p[(*n)++] = f;
}

/* The program: the architecture, then per row the number and its body. */
static inline int kb_seccomp_program(struct sock_filter *p)
{
	int n = 0;
	const unsigned nr = offsetof(struct seccomp_data, nr), args = offsetof(struct seccomp_data, args);
	KB_SC_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	KB_SC_JUMP(BPF_JMP | BPF_JEQ | BPF_K, KB_SC_ARCH, 1, 0);
	KB_SC_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	KB_SC_STMT(BPF_LD | BPF_W | BPF_ABS, nr);
#if defined(__x86_64__)
	KB_SC_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);   /* the x32 ABI: other numbers */
	KB_SC_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP);
#endif
	for (int i = 0; i < KB_SC_NRULES; i++) {
		const struct kb_sc_rule *r = &kb_sc_rules[i];
		const unsigned arg = args + 8u * (unsigned)(r->arg < 0 ? 0 : r->arg);   /* the low word */
		int body = r->kind == KB_SC_THREAD || (r->kind == KB_SC_NOCREATE && r->arg >= 0) ? 4 : 1;
		KB_SC_STMT(BPF_LD | BPF_W | BPF_ABS, nr);
		KB_SC_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)r->nr, 0, (unsigned char)body);
		switch (r->kind) {
		case KB_SC_TRAP:
			KB_SC_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP);
			break;
		case KB_SC_ENOSYS:
			KB_SC_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
			break;
		case KB_SC_THREAD:
			KB_SC_STMT(BPF_LD | BPF_W | BPF_ABS, arg);
			KB_SC_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1);
			KB_SC_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
			KB_SC_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP);
			break;
		case KB_SC_NOCREATE:
			if (r->arg < 0) {
				KB_SC_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
				break;
			}
			KB_SC_STMT(BPF_LD | BPF_W | BPF_ABS, arg);
			KB_SC_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_CREAT | O_TRUNC, 0, 1);
			KB_SC_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
			KB_SC_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
			break;
		}
	}
	KB_SC_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	return n;
}

/* Installs the filter on this process (every thread: TSYNC) with the
 * SIGSYS handler. 0, or -1 with errno (no seccomp in this kernel ...). */
static inline int kb_seccomp_install(void)
{
#ifndef KB_SC_ARCH
	errno = ENOSYS;
	return -1;
#else
	static struct sock_filter prog[16 + 6 * KB_SC_NRULES];
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = kb_seccomp_sigsys;
	sa.sa_flags = SA_SIGINFO;
	struct sock_fprog fp;
	fp.len = (unsigned short)kb_seccomp_program(prog);
	fp.filter = prog;
	if (sigaction(SIGSYS, &sa, NULL) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	/* every thread the driver made, too */
	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &fp) != 0)
		return -1;
	return 0;
#endif
}

#endif
