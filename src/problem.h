/* problem.h: a problem's metadata (problems/NN_name/problem.json) and where
 * the problems live. */
#ifndef KB_PROBLEM_H
#define KB_PROBLEM_H

#include "formula.h"

struct problem_shape {
	struct formula_var *vars;   /* owns the names */
	int nvars;
};

struct problem {
	char *dir;                  /* the problem's folder */
	char *name;                 /* "04_kahan_softmax" */
	char *display_name;
	char *precision;            /* "fp32", "bf16", "fp8_e4m3" ... */
	char *regime;               /* "compute" or "memory" */
	char *flops_formula, *bytes_formula;
	char *peak_tflops_key;      /* index into a profile's peak_tflops_dense */
	char *peak_bandwidth_key;   /* "dram" */
	struct problem_shape *shapes;
	int nshapes;
	double atol, rtol;
	char **forbidden;           /* PCRE2 patterns */
	int nforbidden;
	char **hardware;            /* profile keys the problem was written for */
	int nhardware;
	int seeds, trials;
};

/* Loads dir/problem.json. NULL with *err (owned) naming the file and what
 * is wrong: missing shapes or formulas, a formula that does not evaluate
 * for some shape (with its column) ... */
struct problem *problem_load(const char *dir, char **err);
void problem_free(struct problem *p);

/* Where the problems are: problems/ where util_data_find looks
 * ($KBTUI_DATADIR, the source tree of an uninstalled build, the installed
 * data directory). Owned by the caller. */
char *problem_default_dir(void);
/* The folder of problem `name` under dir: the exact folder name, its number
 * ("04") or the name without number ("kahan_softmax"). Owned; NULL when no
 * such problem or when the short form is ambiguous. */
char *problem_find(const char *dir, const char *name);
/* Folder names of the problems under dir (those with a problem.json, or
 * the problem.yaml of a KernelBench-Hard checkout),
 * sorted; *n set. Free with problem_names_free. */
char **problem_names(const char *dir, int *n);
void problem_names_free(char **names, int n);

/* flops and bytes of shape i by the formulas; 0, or -1 with *err. */
int problem_work(const struct problem *p, int shape, double *flops, double *bytes,
                 struct formula_error *err);
/* "M=4096 N=4096 K=4127" (owned). */
char *problem_shape_desc(const struct problem *p, int shape);

#endif
