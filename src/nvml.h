/* nvml.h: readings of the local NVIDIA GPU through NVML, loaded with
 * dlopen at run time (no link-time dependency: a machine without the
 * driver runs kbtui all the same and is told why there is nothing), and a
 * sampler that keeps a short history for sparklines. */
#ifndef KB_NVML_H
#define KB_NVML_H

#include <stddef.h>

/* One reading of one device; a field NVML could not give is -1. */
struct nvml_sample {
	double t;                   /* monotonic seconds */
	int util_gpu, util_mem;     /* percent */
	long long mem_used, mem_total; /* bytes */
	int sm_clock_mhz;
	int temp_c;
	int power_mw;
};

struct nvml;

/* Loads the library ($KBTUI_NVML_LIB, else libnvidia-ml.so.1), initialises
 * it and takes device 0. NULL with *err (owned) saying what is missing. */
struct nvml *nvml_open(char **err);
void nvml_close(struct nvml *n);
/* The device's name and how many devices there are. */
const char *nvml_name(const struct nvml *n);
int nvml_count(const struct nvml *n);
/* Reads device 0 now; 0, or -1 with *err (owned) when nothing could be read. */
int nvml_read(struct nvml *n, struct nvml_sample *s, char **err);

#define NVML_HISTORY 120

/* Samples about once a second into a ring of the last NVML_HISTORY readings.
 * Opening happens at the first tick; a failure stays (error says why). */
struct nvml_sampler {
	struct nvml *n;             /* owned; NULL when unavailable */
	char *error;                /* owned; why there is no device */
	int tried;
	double interval_s;          /* 0: 1 s */
	struct nvml_sample hist[NVML_HISTORY];
	size_t count, head;         /* readings held; index of the oldest */
	double last;                /* monotonic time of the last reading */
};

void nvml_sampler_init(struct nvml_sampler *s);
void nvml_sampler_free(struct nvml_sampler *s);
/* Takes a reading when interval_s has passed since the last one (now is
 * monotonic seconds). 1 when a reading was added, else 0. */
int nvml_sampler_tick(struct nvml_sampler *s, double now);
/* The i-th reading held, 0 the oldest; NULL past the end. */
const struct nvml_sample *nvml_sampler_at(const struct nvml_sampler *s, size_t i);
/* The newest reading, NULL when none. */
const struct nvml_sample *nvml_sampler_last(const struct nvml_sampler *s);
double nvml_now(void);

#endif
