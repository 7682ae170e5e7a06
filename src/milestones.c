/* milestones.c: first compile, first PASS, best peak_fraction and end of a
 * run (see milestones.h for what counts). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchlog.h"
#include "compilerlog.h"
#include "milestones.h"
#include "runstats.h"
#include "util.h"

const char *milestones_name(enum milestone k)
{
	static const char *const names[MS__COUNT] = { "first compile", "first PASS", "best peak_fraction", "end" };
	return k >= 0 && k < MS__COUNT ? names[k] : "?";
}

char milestones_letter(enum milestone k)
{
	return k >= 0 && k < MS__COUNT ? "CPBE"[k] : '?';
}

/* Each line of text through benchlog_classify; stops when fn returns 1. */
static int ms_lines(const char *text, int (*fn)(const struct benchlog_line *l, enum benchlog_kind k, void *u),
                    void *u)
{
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");
		struct benchlog_line l;
		enum benchlog_kind k = benchlog_classify(p, n, &l);
		if (k != BL_NONE && fn(&l, k, u))
			return 1;
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

static int ms_is_pass(const struct benchlog_line *l, enum benchlog_kind k, void *u)
{
	(void)l;
	(void)u;
	return k == BL_PASS;
}

int milestones_text_pass(const char *text)
{
	return ms_lines(text, ms_is_pass, NULL);
}

struct ms_peak {
	double peak, logsum;
	int nshape;
};

static int ms_add_peak(const struct benchlog_line *l, enum benchlog_kind k, void *u)
{
	struct ms_peak *p = u;
	if (k == BL_PEAK && l->value >= 0)
		p->peak = l->value;  /* the last overall line wins */
	if (k == BL_SHAPE_PEAK && l->value > 0) {
		p->logsum += log(l->value);
		p->nshape++;
	}
	return 0;
}

double milestones_text_peak(const char *text)
{
	struct ms_peak p = { -1, 0, 0 };
	ms_lines(text, ms_add_peak, &p);
	if (p.peak < 0 && p.nshape)
		p.peak = exp(p.logsum / p.nshape);
	return p.peak;
}

long milestones_best(const struct run *r, double *peak)
{
	long best = -1;
	double v = -1;
	for (size_t i = 0; i < r->nev; i++) {
		if (r->ev[i].kind != EV_TOOL_RESULT)
			continue;
		double p = milestones_text_peak(r->ev[i].text);
		if (p > v) {
			v = p;
			best = (long)i;
		}
	}
	if (peak)
		*peak = v;
	return best;
}

/* Whether some text is (or writes) kernel source that a Python run builds. */
static int ms_kernel_source(const char *s)
{
	static const char *const marks[] = { "load_inline", "cpp_extension", "triton.jit", "@triton", "__global__",
		                             "cuda_sources", NULL };
	for (int i = 0; s && marks[i]; i++)
		if (strstr(s, marks[i]))
			return 1;
	return 0;
}

/* The first call that compiles by its command. */
static long ms_compile_call(const struct run *r)
{
	int kernel = 0;  /* kernel source written before, so Python builds it */
	for (size_t i = 0; i < r->nev; i++) {
		const struct event *e = &r->ev[i];
		if (e->kind != EV_TOOL_CALL)
			continue;
		char *cmd = runstats_command(e);
		kernel |= ms_kernel_source(e->args) || ms_kernel_source(run_event_diff(r, i)) ||
		          (e->path && (strstr(e->path, ".cu") || util_ends_with(e->path, ".cpp")));
		int builds = runstats_classify(cmd) == RS_COMPILE || (kernel && runstats_runs_python(cmd));
		free(cmd);
		if (builds)
			return (long)i;
	}
	return -1;
}

static int ms_compile_tool(const char *tool)
{
	static const char *const tools[] = { "nvcc", "ptxas", "triton", "cpp_ext", "c++", "ld", NULL };
	for (int i = 0; tool && tools[i]; i++)
		if (!strcmp(tool, tools[i]))
			return 1;
	return 0;
}

/* The call of the first tool result with compiler output. */
static long ms_compile_output(const struct run *r, struct compilerlog *cl)
{
	struct compilerlog_report rep;
	long first = -1;
	if (!cl)
		return -1;
	memset(&rep, 0, sizeof rep);
	compilerlog_scan_run(cl, r, &rep);
	for (size_t h = 0; h < rep.n; h++) {
		size_t i = rep.hits[h].ev;
		if (i >= r->nev || r->ev[i].kind != EV_TOOL_RESULT || !ms_compile_tool(rep.hits[h].tool))
			continue;
		long link = r->ev[i].link;
		long at = link >= 0 && (size_t)link < r->nev ? link : (long)i;
		if (first < 0 || at < first)
			first = at;
	}
	compilerlog_report_free(&rep);
	return first;
}

/* Whether a tool result comes from running a check: its call runs check.py
 * or Python, or is a tool without a command (an eval tool). A PASS that
 * cat or grep shows from someone else's log is not the run's. */
static int ms_ran_check(const struct run *r, const struct event *res)
{
	if (res->link < 0 || (size_t)res->link >= r->nev)
		return 1;
	const struct event *call = &r->ev[res->link];
	char *cmd = runstats_command(call);
	int yes = !cmd || runstats_classify(cmd) == RS_CHECK || runstats_runs_python(cmd);
	free(cmd);
	return yes;
}

void milestones_find(const struct run *r, struct compilerlog *cl, struct milestones *m)
{
	for (int k = 0; k < MS__COUNT; k++)
		m->ev[k] = -1;
	long a = ms_compile_call(r), b = ms_compile_output(r, cl);
	m->ev[MS_COMPILE] = a < 0 ? b : b < 0 ? a : a < b ? a : b;
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].kind == EV_TOOL_RESULT && ms_ran_check(r, &r->ev[i]) && milestones_text_pass(r->ev[i].text)) {
			m->ev[MS_PASS] = (long)i;
			break;
		}
	m->ev[MS_BEST] = milestones_best(r, &m->best);
	m->ev[MS_END] = r->nev ? (long)r->nev - 1 : -1;
}
