/* hardware.h: roofline targets (peak TFLOPS per dtype, DRAM bandwidth, L2
 * size, nvcc arch) read from problems/hardware.json, and which one a CUDA
 * device name is. */
#ifndef KB_HARDWARE_H
#define KB_HARDWARE_H

#include <stdio.h>

struct hardware_rate {
	char *key;          /* "bf16", "dram" */
	double value;       /* TFLOPS, or GB/s for bandwidths */
};

struct hardware_profile {
	char *key;          /* "RTX_PRO_6000", as problem.json's hardware list */
	char *name;
	char *table;        /* "rtxpro6000-2026-06-14": the table a deck names */
	char *source;       /* where the figures come from (file:line) */
	char *date;         /* when the table took effect */
	char *arch;         /* nvcc target, "sm_120a" */
	int cc;             /* compute capability as 90, 120 */
	double vram_gb;
	double l2_bytes;
	char **match;       /* device-name substrings */
	int nmatch;
	struct hardware_rate *tflops, *gbps;
	int ntflops, ngbps;
};

struct hardware_list {
	struct hardware_profile *p;
	int n;
};

/* NULL with *err (owned) naming the file and what was wrong. */
struct hardware_list *hardware_load(const char *path, char **err);
void hardware_free(struct hardware_list *l);
/* By key, case-insensitive; NULL when absent. */
const struct hardware_profile *hardware_find(const struct hardware_list *l, const char *key);
/* The first profile one of whose match strings is in the device name
 * (case-insensitive); NULL when none. */
const struct hardware_profile *hardware_detect(const struct hardware_list *l, const char *device);
/* Peak of a dtype / bandwidth key; -1 when the profile lacks it. */
double hardware_tflops(const struct hardware_profile *p, const char *dtype);
double hardware_gbps(const struct hardware_profile *p, const char *key);
/* The table `kbtui eval --list-hardware` prints. */
void hardware_print(const struct hardware_list *l, FILE *out);
/* "sm_90" for 90; sm_90a / sm_100a / sm_120a for the architecture-specific
 * features (wgmma, tcgen05) of those families. Owned by the caller. */
char *hardware_arch_for_cc(int cc);

#endif
