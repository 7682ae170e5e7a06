/* eval_static.c: refusals before the device is needed. The solution's
 * preprocessed text (nvcc -E: macros and token pasting expanded) and its
 * compiled object are read for what a solution must not do: define
 * symbols of the CUDA runtime, libc or the checker (interposition), load
 * code by name (dlopen, dlsym, syscall), run code before main
 * (constructors), rename symbols (asm labels), keep data in L2 across
 * trials (access-policy windows), or use a library the problem forbids
 * (problem.json "forbidden" on the text, "forbidden_symbols" on symbol
 * and header names). Each refusal names the file and line or the symbol. */
#include "config.h"

#include "eval.h"
#include "eval_int.h"
#include "forbid.h"
#include "jsonx.h"
#include "objscan.h"
#include "problem.h"
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
	"\\b(?:accessPolicyWindow|cudaAccessProperty\\w*|cudaLimitPersistingL2CacheSize|"
	"cudaStreamAttributeAccessPolicyWindow|cudaLaunchAttributeAccessPolicyWindow)\\b",
};
static const char *const es_text_why[] = {
	"an asm label (renames a symbol: the checker's or the runtime's)",
	"a constructor or destructor (code that runs outside the call)",
	"init_priority (code that runs before main)",
	"a section attribute for startup code",
	"L2 persistence (an access-policy window keeps data in L2 across the flush)",
};

/* Functions a solution calls but must never define (it would replace the
 * runner's or the runtime's own). */
static const char *const es_libc[] = {
	"printf", "fprintf", "vprintf", "vfprintf", "puts", "fputs", "fwrite", "write", "writev", "read", "open",
	"openat", "close", "malloc", "free", "calloc", "realloc", "exit", "_exit", "abort", "atexit", "memcpy",
	"memset", "memmove", "strlen", "dlopen", "dlsym", "dlvsym", "dlclose", "syscall", "fork", "execve", "ptrace",
	"mmap", "munmap", "mprotect", "getenv", "main", "_start", "__libc_start_main", "_init", "_fini", "signal",
	"sigaction", "clock_gettime", "gettimeofday", "send", "recv", "fflush", "setvbuf", "pthread_create",
	"kb_call_solution", NULL,
};

/* Undefined symbols that are a refusal by themselves. */
static const char *const es_undef[] = {
	"dlopen", "dlmopen", "dlsym", "dlvsym", "__libc_dlopen_mode", "syscall", "ptrace", "process_vm_readv",
	"process_vm_writev", "fork", "vfork", "execve", "execv", "execvp", "execl", "execlp", "system", "popen",
	"prctl", "cudaStreamSetAttribute", "cuStreamSetAttribute", "cudaGraphKernelNodeSetAttribute",
	"cuGetProcAddress", "cuGetProcAddress_v2", "cudaGetDriverEntryPoint", "cudaGetDriverEntryPointByVersion",
	"cudaDeviceSetLimit", "cuCtxSetLimit", "posix_spawn", "posix_spawnp", "clone", "clone3", NULL,
};

static int es_in(const char *const *list, const char *s)
{
	for (int i = 0; list[i]; i++)
		if (!strcmp(list[i], s))
			return 1;
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

/* The object: definitions, needs, constructors. A reason (owned) or NULL. */
static char *es_object(const struct objscan *o, const struct forbid *sf, char **pats, const char *entry)
{
	int p;
	for (int i = 0; i < o->nruns; i++)
		return xasprintf("the object has a %s section (code that runs around main)", o->runs[i]);
	for (int i = 0; i < o->ninit; i++)
		if (!strstr(o->init[i], "__sti____cudaRegisterAll"))
			return xasprintf("the object runs %s before main (a constructor or a global with a dynamic "
			                 "initialiser); only nvcc's own registration may", o->init[i]);
	for (int i = 0; i < o->nsyms; i++) {
		const struct objscan_sym *s = &o->syms[i];
		if (s->defined && s->global && (es_in(es_libc, s->name) || es_runtime_name(s->name)))
			return xasprintf("the object defines %s, which it may only call (interposition)", s->name);
		if (s->defined && s->global && (entry ? strcmp(s->name, entry) : 1) &&
		    (util_starts_with(s->name, "kb_") || util_starts_with(s->name, "kbref_") ||
		     !strcmp(s->name, "KB_DRIVER")))
			return xasprintf("the object defines %s, a name of the harness", s->name);
		if (!s->defined && es_in(es_undef, s->name))
			return xasprintf("the object calls %s (loading code by name, raw system calls, other processes "
			                 "or L2 policy are not allowed)", s->name);
		if (es_symbol_hit(sf, s->name, &p))
			return xasprintf("the object %s %s, which matches the forbidden symbol pattern \"%s\"",
			                 s->defined ? "defines" : "needs", s->name, pats[p]);
	}
	return NULL;
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
	int nheaders;
	const char *toolkit;        /* the CUDA Toolkit's root, resolved; may be NULL */
};

/* Whether a linemarker's file is one of the toolkit's or the compiler's. */
static int es_system(const struct es_text *t, const char *file, const char *flags)
{
	if (file[0] == '<' || strstr(flags, " 3"))
		return 1;
	char *real = realpath(file, NULL);
	int sys = real && t->toolkit && util_starts_with(real, t->toolkit) && real[strlen(t->toolkit)] == '/';
	free(real);
	return sys;
}

static const char *es_header(struct es_text *t, const char *file)
{
	for (int i = 0; i < t->nheaders; i++)
		if (!strcmp(t->headers[i], file))
			return t->headers[i];
	t->headers = xrealloc(t->headers, (size_t)(t->nheaders + 1) * sizeof *t->headers);
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
		char file[4096], flags[64] = "";
		int num;
		if (n > 2 && p[0] == '#' && (sscanf(p, "# %d \"%4095[^\"]\"%63[ 0-9]", &num, file, flags) >= 2 ||
		                             sscanf(p, "#line %d \"%4095[^\"]\"", &num, file) == 2)) {
			cur = es_header(t, file);
			scan = !es_system(t, file, flags);
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
