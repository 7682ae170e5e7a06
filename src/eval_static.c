/* eval_static.c: refusals before the device is needed. The solution's
 * preprocessed text (nvcc -E: macros and token pasting expanded, every
 * header included; judged by where each line comes from, never by the
 * system-header flag a file can give itself) and its compiled object are
 * read for what a solution must not do: define anything but its entry
 * point and C++ names (an allowlist: a libc, runtime or harness name would
 * replace the real one), load code by name (dlopen, dlsym), make system
 * calls itself (syscall, an exec or fork of any kind, or a syscall /
 * sysenter instruction in its host code), run code before main
 * (constructors; only nvcc's registration, by its exact name), rename
 * symbols (asm labels), keep data in L2 across trials (access-policy
 * windows), or use a library the problem forbids (problem.json
 * "forbidden" on the text, "forbidden_symbols" on symbol and header
 * names). Each refusal names the file and line or the symbol. The runner's
 * seccomp filter (problems/harness/kb_seccomp.h) is the second line. */
#include "config.h"

#include "eval.h"
#include "eval_int.h"
#include "forbid.h"
#include "jsonx.h"
#include "objscan.h"
#include "problem.h"
#include "proc.h"
#include "util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* Patterns on the solution's own preprocessed lines, with the reason. */
static const char *const es_text_pat[] = {
	"\\b(?:__asm__|__asm|asm)\\s*\\(\\s*\"[A-Za-z_.$][\\w.$@]*\"(?:\\s*\"[\\w.$@]*\")*\\s*\\)",
	"__attribute__\\s*\\(\\s*\\(\\s*[^;{]*\\b(?:__)?(?:constructor|destructor)(?:__)?\\b",
	"\\binit_priority\\b",
	"\\b(?:__)?section(?:__)?\\s*\\(\\s*\"\\.(?:init|fini|ctors|dtors|preinit)",
	"\\[\\[\\s*(?:__)?gnu(?:__)?\\s*::\\s*(?:__)?(?:constructor|destructor|init_priority|section)(?:__)?\\b",
	"\\b(?:__asm__|__asm|asm)\\b[^;]*\"[^\"\\n]*\\.(?:push)?section\\b",
	"\\b(?:accessPolicyWindow|cudaAccessProperty\\w*|cudaLimitPersistingL2CacheSize|"
	"cudaStreamAttributeAccessPolicyWindow|cudaLaunchAttributeAccessPolicyWindow)\\b",
};
static const char *const es_text_why[] = {
	"an asm label (renames a symbol: the checker's or the runtime's)",
	"a constructor or destructor (code that runs outside the call)",
	"init_priority (code that runs before main)",
	"a section attribute for startup code",
	"a C++ attribute for startup code or a section of its own choosing",
	"assembler that switches sections (startup code or data the compiler does not see)",
	"L2 persistence (an access-policy window keeps data in L2 across the flush)",
};

/* Functions a solution calls but must never define (it would replace the
 * runner's or the runtime's own): named as interposition when refused. */
static const char *const es_libc[] = {
	"printf", "fprintf", "vprintf", "vfprintf", "snprintf", "sprintf", "vsnprintf", "puts", "fputs", "fwrite",
	"write", "writev", "read", "open", "openat", "close", "malloc", "free", "calloc", "realloc", "exit", "_exit",
	"abort", "atexit", "memcpy", "memset", "memmove", "strlen", "strerror", "dlopen", "dlsym", "dlvsym",
	"dlclose", "syscall", "fork", "execve", "ptrace", "mmap", "munmap", "mprotect", "getenv", "main", "_start",
	"__libc_start_main", "_init", "_fini", "signal", "sigaction", "clock_gettime", "gettimeofday", "send", "recv",
	"fflush", "setvbuf", "pthread_create", "ioctl", "fstat", "stat", "lstat", "fcntl", "poll", "select",
	"kb_call_solution", NULL,
};

/* Undefined symbols that are a refusal by themselves: loading code by
 * name, raw system calls, other processes (every exec, fork and spawn
 * form), the runner's own descriptors (the protocol socket and the shared
 * memory: read, send, dup, mmap ...), the driver behind the runtime
 * (ioctl), memory made executable, L2 policy. */
static const char *const es_undef[] = {
	"dlopen", "dlmopen", "dlsym", "dlvsym", "__libc_dlopen_mode", "__libc_dlsym", "dlinfo", "dladdr",
	"dladdr1", "dl_iterate_phdr", "syscall", "ptrace", "process_vm_readv", "process_vm_writev", "fork", "vfork",
	"_Fork", "__fork", "clone", "clone3", "__clone", "execve", "execveat", "fexecve", "execv", "execvp",
	"execvpe", "execl", "execle", "execlp", "system", "popen", "wordexp", "posix_spawn", "posix_spawnp",
	"pidfd_open", "pidfd_getfd", "pidfd_send_signal", "prctl", "seccomp", "unshare", "setns", "mprotect",
	"pkey_mprotect", "mmap", "mmap64", "memfd_create", "ioctl", "read", "readv", "pread", "pread64", "preadv",
	"recv", "recvfrom", "recvmsg", "send", "sendto", "sendmsg", "sendfile", "splice", "vmsplice", "socket",
	"socketpair", "connect", "fdopen", "dup", "dup2", "dup3", "cudaStreamSetAttribute", "cuStreamSetAttribute",
	"cudaGraphKernelNodeSetAttribute", "cuGetProcAddress", "cuGetProcAddress_v2", "cudaGetDriverEntryPoint",
	"cudaGetDriverEntryPointByVersion", "cudaDeviceSetLimit", "cuCtxSetLimit", NULL,
};

/* The one function nvcc's own code puts in .init_array (the kernels'
 * registration), by its exact name: a constructor of the solution's whose
 * name merely contains it is still the solution's. */
static const char es_nvcc_init[] = "_ZL24__sti____cudaRegisterAllv";

static int es_in(const char *const *list, const char *s)
{
	for (int i = 0; list[i]; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

/* Whether an undefined name is on es_undef, or an alias of one: glibc
 * exports most calls again as __NAME or __libc_NAME, fortified ones as
 * __NAME_chk, large-file ones as NAME64. */
static int es_undef_hit(const char *name)
{
	static const char *const pre[] = {"", "__libc_", "__", NULL}, *const suf[] = {"", "_chk", "64", "64_chk", NULL};
	size_t n = strlen(name);
	for (int i = 0; pre[i]; i++) {
		size_t p = strlen(pre[i]);
		if (strncmp(name, pre[i], p) || n <= p)
			continue;
		for (int j = 0; suf[j]; j++) {
			size_t k = strlen(suf[j]), len = n - p;
			if (len <= k || strcmp(name + n - k, suf[j]))
				continue;
			char base[128];
			if (len - k >= sizeof base)
				continue;
			memcpy(base, name + p, len - k);
			base[len - k] = '\0';
			if (es_in(es_undef, base))
				return 1;
		}
	}
	return 0;
}

/* A runtime or driver API name: cudaX, cuX, __cudaX, cublas, cudnn ... */
static int es_runtime_name(const char *s)
{
	return util_starts_with(s, "cuda") || util_starts_with(s, "__cuda") || util_starts_with(s, "cublas") ||
	       util_starts_with(s, "cudnn") || (s[0] == 'c' && s[1] == 'u' && s[2] >= 'A' && s[2] <= 'Z');
}

/* problem.json "forbidden_symbols": PCRE2 patterns on symbol and header
 * names (NULL when there are none). */
static struct forbid *es_symbol_patterns(struct eval_ctx *x, char ***pats, int *n, char **entry)
{
	char *path = util_path_join(x->pb->dir, "problem.json"), *text = util_read_file(path, NULL), *err = NULL;
	cJSON *o = text ? jx_parse(text, strlen(text)) : NULL;
	const cJSON *a = o ? jx_get(o, "forbidden_symbols") : NULL, *e;
	struct forbid *f = NULL;
	*pats = NULL;
	*n = 0;
	*entry = o && jx_str(o, "interface") ? xstrdup(jx_str(o, "interface")) : NULL;
	cJSON_ArrayForEach(e, a)
	{
		if (cJSON_IsString(e)) {
			*pats = xrealloc(*pats, (size_t)(*n + 1) * sizeof **pats);
			(*pats)[(*n)++] = xstrdup(e->valuestring);
		}
	}
	if (*n && !(f = forbid_new((const char *const *)*pats, *n, &err))) {
		eval_say(x, "%s: forbidden_symbols: %s", path, err);
		free(err);
	}
	cJSON_Delete(o);
	free(text);
	free(path);
	return f;
}

static int es_symbol_hit(const struct forbid *f, const char *name, int *pat)
{
	struct forbid_hit h;
	if (!f || !forbid_scan(f, name, strlen(name), &h))
		return 0;
	*pat = h.pattern;
	forbid_hit_free(&h);
	return 1;
}

/* Why a global definition is not on the allowlist (a static string), or
 * NULL when it is: the entry point, C++ names (its functions, kernels'
 * stubs, templates) other than the C++ runtime's operators, and the
 * personality reference every C++ object carries. Anything else with C
 * linkage is a name some library defines, or could: make it static. */
static const char *es_not_allowed(const struct objscan_sym *s, const char *entry)
{
	static const char *const cxxrt[] = {"_Znw", "_Zna", "_Zdl", "_Zda", "_ZN10__cxxabiv1", "_ZN9__gnu_cxx", NULL};
	if ((entry && !strcmp(s->name, entry)) || !strcmp(s->name, "DW.ref.__gxx_personality_v0"))
		return NULL;
	if (!util_starts_with(s->name, "_Z"))
		return "a name with C linkage; a solution object may define only its entry point and C++ names "
		       "(make it static)";
	for (int i = 0; cxxrt[i]; i++)
		if (util_starts_with(s->name, cxxrt[i]))
			return "the C++ runtime's own (operator new or delete, or the ABI library)";
	if (!s->weak && (util_starts_with(s->name, "_ZNSt") || util_starts_with(s->name, "_ZSt") ||
	                 util_starts_with(s->name, "_ZNKSt")))
		return "a strong definition in namespace std (it would replace the C++ library's)";
	return NULL;
}

char *eval_static_object(const struct objscan *o, const char *entry)
{
	const char *why;
	for (int i = 0; i < o->nruns; i++)
		return xasprintf("the object has a %s section (code that runs around main)", o->runs[i]);
	for (int i = 0; i < o->ninit; i++)
		if (strcmp(o->init[i], es_nvcc_init))
			return xasprintf("the object runs %s before main (a constructor or a global with a dynamic "
			                 "initialiser); only nvcc's own registration (%s, that exact name) may",
			                 o->init[i], es_nvcc_init);
	for (int i = 0; i < o->nsyms; i++) {
		const struct objscan_sym *s = &o->syms[i];
		if (s->defined && s->global && (es_in(es_libc, s->name) || es_runtime_name(s->name)))
			return xasprintf("the object defines %s, which it may only call (interposition)", s->name);
		if (s->defined && s->global && (entry ? strcmp(s->name, entry) : 1) &&
		    (util_starts_with(s->name, "kb_") || util_starts_with(s->name, "kbref_") ||
		     !strcmp(s->name, "KB_DRIVER")))
			return xasprintf("the object defines %s, a name of the harness", s->name);
		if (s->defined && s->global && (why = es_not_allowed(s, entry)))
			return xasprintf("the object defines %s: %s", s->name, why);
		if (!s->defined && es_undef_hit(s->name))
			return xasprintf("the object calls %s (loading code by name, system calls of its own, other "
			                 "processes, the runner's descriptors or L2 policy are not allowed)", s->name);
	}
	return NULL;
}

/* objdump's lines: the function each instruction is in, and the first
 * system call instruction. */
struct es_insn {
	char fn[256];
	char *hit;                  /* owned */
	int ninsn;
};

static void es_insn_line(void *ud, int stream, const char *line, size_t len)
{
	struct es_insn *d = ud;
	char l[512], *tab, *lt, *gt;
	if (stream != 1 || d->hit)
		return;
	snprintf(l, sizeof l, "%.*s", (int)(len < sizeof l - 1 ? len : sizeof l - 1), line);
	if ((lt = strchr(l, '<')) && (gt = strstr(lt, ">:")) && !strchr(l, '\t')) {
		snprintf(d->fn, sizeof d->fn, "%.*s", (int)(gt - lt - 1), lt + 1);
		return;
	}
	if (!(tab = strchr(l, '\t')) || !strchr(l, ':') || strchr(l, ':') > tab)
		return;
	d->ninsn++;
	char op[32] = "", arg[64] = "";
	if (sscanf(tab + 1, "%31s %63s", op, arg) < 1)
		return;
	if (!strcmp(op, "syscall") || !strcmp(op, "sysenter") || (!strcmp(op, "int") && !strcmp(arg, "$0x80")))
		d->hit = xasprintf("the object's host code makes a system call itself: a %s%s%s instruction in %s "
		                   "(inline assembly)", op, *arg && strcmp(op, "int") == 0 ? " " : "",
		                   strcmp(op, "int") == 0 ? arg : "", d->fn[0] ? d->fn : "?");
}

char *eval_static_insns(const char *objdump, const char *obj)
{
	char *argv[] = {(char *)objdump, "-d", "--no-show-raw-insn", "-w", (char *)obj, NULL}, desc[160];
	struct es_insn d = {.fn = ""};
	struct proc_result res;
	if (!objdump)
		return xstrdup("objdump (binutils) not found: the host code cannot be checked for system call "
		               "instructions");
	struct proc_spec spec = {.argv = argv, .timeout_s = 120, .output_cap = 256u << 20,
	                         .on_line = es_insn_line, .ud = &d};
	proc_run(&spec, &res);
	if (d.hit)
		return d.hit;
	proc_describe(&res, desc, sizeof desc);
	if (res.end != PROC_EXITED || res.code != 0 || res.truncated)
		return xasprintf("%s: cannot disassemble the host code to check it (objdump %s%s)", obj, desc,
		                 res.truncated ? ", output cut" : "");
	return NULL;
}

/* The object: the allowlist and lists above, then the problem's patterns. */
static char *es_object(const struct objscan *o, const struct forbid *sf, char **pats, const char *entry)
{
	int p;
	char *why = eval_static_object(o, entry);
	for (int i = 0; !why && i < o->nsyms; i++)
		if (es_symbol_hit(sf, o->syms[i].name, &p))
			why = xasprintf("the object %s %s, which matches the forbidden symbol pattern \"%s\"",
			                o->syms[i].defined ? "defines" : "needs", o->syms[i].name, pats[p]);
	return why;
}

/* The lines of the preprocessed text that come from the solution and any
 * file of its own it includes (not the compiler's or the toolkit's system
 * headers), joined, with each line's file and number; the headers it
 * pulled in, by name. */
struct es_text {
	struct sbuf text;
	int *line;
	char **file;                /* borrowed from files */
	int nline;
	char **headers;             /* owned: every file named, the solution's first */
	int *hsys;                  /* per header: the toolkit's or the compiler's */
	int nheaders;
	const char *toolkit;        /* the CUDA Toolkit's root, resolved; may be NULL */
};

/* Whether a linemarker's file is one of the toolkit's or the compiler's,
 * by where it lies: the flag that says "system header" (3) is not asked,
 * since `#pragma GCC system_header` lets any file, the solution included,
 * give it to itself. */
static int es_system(const struct es_text *t, const char *file)
{
	static const char *const roots[] = {"/usr/include/", "/usr/lib/gcc/", "/usr/local/include/", NULL};
	if (!strcmp(file, "<built-in>") || !strcmp(file, "<command-line>"))
		return 1;
	char *real = realpath(file, NULL);
	int sys = real && t->toolkit && util_starts_with(real, t->toolkit) && real[strlen(t->toolkit)] == '/';
	for (int i = 0; real && !sys && roots[i]; i++)
		sys = util_starts_with(real, roots[i]);
	free(real);
	return sys;
}

/* The file's interned name, and whether it is a system file (looked up
 * once per file, not per linemarker). */
static const char *es_header(struct es_text *t, const char *file, int *sys)
{
	for (int i = 0; i < t->nheaders; i++)
		if (!strcmp(t->headers[i], file)) {
			*sys = t->hsys[i];
			return t->headers[i];
		}
	t->headers = xrealloc(t->headers, (size_t)(t->nheaders + 1) * sizeof *t->headers);
	t->hsys = xrealloc(t->hsys, (size_t)(t->nheaders + 1) * sizeof *t->hsys);
	t->hsys[t->nheaders] = *sys = es_system(t, file);
	return t->headers[t->nheaders++] = xstrdup(file);
}

static void es_split(struct es_text *t, const char *ii)
{
	const char *cur = NULL;
	int ln = 0, scan = 0;
	sbuf_init(&t->text);
	for (const char *p = ii; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char file[4096];
		int num;
		if (n > 2 && p[0] == '#' && (sscanf(p, "# %d \"%4095[^\"]\"", &num, file) == 2 ||
		                             sscanf(p, "#line %d \"%4095[^\"]\"", &num, file) == 2)) {
			int sys;
			cur = es_header(t, file, &sys);
			scan = !sys;
			ln = num;
		} else {
			if (cur && scan) {
				sbuf_add(&t->text, p, n);
				sbuf_add(&t->text, "\n", 1);
				t->line = xrealloc(t->line, (size_t)(t->nline + 1) * sizeof *t->line);
				t->file = xrealloc(t->file, (size_t)(t->nline + 1) * sizeof *t->file);
				t->line[t->nline] = ln;
				t->file[t->nline++] = (char *)cur;
			}
			ln++;
		}
		p = e ? e + 1 : NULL;
	}
}

static void es_text_free(struct es_text *t)
{
	sbuf_free(&t->text);
	free(t->line);
	free(t->file);
	for (int i = 0; i < t->nheaders; i++)
		free(t->headers[i]);
	free(t->headers);
	free(t->hsys);
}

static char *es_scan_with(const struct es_text *t, const struct forbid *f, const char *const *pats,
                          const char *const *why)
{
	struct forbid_hit h;
	if (!f || !t->text.len || !forbid_scan(f, t->text.s, t->text.len, &h))
		return NULL;
	int in = h.line >= 1 && h.line <= t->nline;
	int line = in ? t->line[h.line - 1] : h.line;
	const char *sol = in ? t->file[h.line - 1] : "?";
	char *r = why ? xasprintf("%s:%d: %s, after preprocessing: %s", sol, line, why[h.pattern], h.text)
	              : xasprintf("%s:%d: forbidden pattern \"%s\" matches after preprocessing: %s", sol, line,
	                          pats[h.pattern], h.text);
	forbid_hit_free(&h);
	return r;
}

/* The preprocessed text: the problem's patterns, ours, header names. */
static char *es_preprocessed(struct eval_ctx *x, const char *ii, const struct forbid *sf, char **spats,
                             const char *nvcc)
{
	struct es_text t = {0};
	char *bin = nvcc ? realpath(nvcc, NULL) : NULL, *slash;
	/* the toolkit is the folder above nvcc's bin/, when it has include/ */
	if (bin && (slash = strrchr(bin, '/')) && (*slash = '\0', slash = strrchr(bin, '/')) && !strcmp(slash, "/bin")) {
		*slash = '\0';
		char *inc = util_path_join(bin, "include");
		t.toolkit = util_is_dir(inc) ? bin : NULL;
		free(inc);
	}
	char *err = NULL, *why = NULL;
	int p;
	es_split(&t, ii);
	struct forbid *pf = forbid_new((const char *const *)x->pb->forbidden, x->pb->nforbidden, &err);
	struct forbid *of = forbid_new(es_text_pat, (int)(sizeof es_text_pat / sizeof *es_text_pat), &err);
	free(err);
	why = es_scan_with(&t, of, es_text_pat, es_text_why);
	if (!why)
		why = es_scan_with(&t, pf, (const char *const *)x->pb->forbidden, NULL);
	for (int i = 1; !why && i < t.nheaders; i++)   /* 0 is the solution's copy */
		if (strcmp(t.headers[i], x->r->solution) && es_symbol_hit(sf, t.headers[i], &p))
			why = xasprintf("%s: includes %s, which matches the forbidden pattern \"%s\"", x->r->solution,
			                t.headers[i], spats[p]);
	forbid_free(pf);
	forbid_free(of);
	es_text_free(&t);
	free(bin);
	return why;
}

/* Every preprocessed text nvcc kept (one per compilation pass), checked;
 * the first reason, or NULL. */
static char *es_kept(struct eval_ctx *x, const char *dir, const struct forbid *sf, char **spats, const char *nvcc)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *why = NULL;
	int n = 0;
	while (!why && d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 3, ".ii"))
			continue;
		char *p = util_path_join(dir, e->d_name), *text = util_read_file(p, NULL);
		if (text) {
			why = es_preprocessed(x, text, sf, spats, nvcc);
			n++;
		}
		free(text);
		free(p);
	}
	if (d)
		closedir(d);
	if (!why && !n)
		why = xasprintf("%s: nvcc kept no preprocessed text to check", dir);
	return why;
}

int eval_static(struct eval_ctx *x, const char *obj, const char *keep, const char *nvcc)
{
	char **spats = NULL, *err = NULL, *why = NULL, *entry = NULL;
	int nspats = 0;
	struct forbid *sf = es_symbol_patterns(x, &spats, &nspats, &entry);
	struct objscan *o = objscan_load(obj, &err);
	if (!(why = es_kept(x, keep, sf, spats, nvcc)) && !o)
		why = xstrdup(err);
	else if (!why)
		why = es_object(o, sf, spats, entry);
	if (!why) {
		char *od = util_which("objdump", NULL);
		why = eval_static_insns(od, obj);
		free(od);
	}
	int rc = 0;
	if (why) {
		FILE *log = eval_open_log(x, "check.log");
		if (log) {
			fprintf(log, "REFUSED: %s\n", why);
			fclose(log);
		}
		x->r->refused = 1;
		rc = eval_fail(x, EVAL_FORBID, 1, "%s", why);
	}
	objscan_free(o);
	forbid_free(sf);
	for (int i = 0; i < nspats; i++)
		free(spats[i]);
	free(spats);
	free(err);
	free(why);
	free(entry);
	return rc;
}
