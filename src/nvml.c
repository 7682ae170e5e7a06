/* nvml.c: NVML by dlopen (see nvml.h). The few types and functions used are
 * declared here as the NVML headers define them, so building needs no CUDA. */
#include "config.h"
#include "nvml.h"
#include "util.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int nvml_ret;                      /* nvmlReturn_t; 0 is NVML_SUCCESS */
typedef struct nvml_device_st *nvml_dev;   /* nvmlDevice_t */
struct nvml_util { unsigned gpu, memory; };                    /* nvmlUtilization_t */
struct nvml_mem { unsigned long long total, free, used; };     /* nvmlMemory_t */
enum { NVML_CLOCK_SM = 1, NVML_TEMPERATURE_GPU = 0 };

struct nvml {
	void *lib;
	nvml_dev dev;
	unsigned count;
	char name[96];
	nvml_ret (*shutdown)(void);
	const char *(*error_string)(nvml_ret);
	nvml_ret (*utilization)(nvml_dev, struct nvml_util *);
	nvml_ret (*memory)(nvml_dev, struct nvml_mem *);
	nvml_ret (*clock)(nvml_dev, int, unsigned *);
	nvml_ret (*temperature)(nvml_dev, int, unsigned *);
	nvml_ret (*power)(nvml_dev, unsigned *);
};

double nvml_now(void)
{
	return util_now();
}

static const char *nvml_why(const struct nvml *n, nvml_ret rc)
{
	const char *s = n->error_string ? n->error_string(rc) : NULL;
	return s ? s : "unknown NVML error";
}

/* A symbol by its versioned name, else the plain one. */
static void *nvml_sym(void *lib, const char *v2, const char *plain)
{
	void *f = v2 ? dlsym(lib, v2) : NULL;
	return f ? f : dlsym(lib, plain);
}

struct nvml *nvml_open(char **err)
{
	const char *path = getenv("KBTUI_NVML_LIB");
	struct nvml *n;
	nvml_ret (*init)(void), (*count)(unsigned *), (*handle)(unsigned, nvml_dev *);
	nvml_ret (*name)(nvml_dev, char *, unsigned);
	nvml_ret rc;
	void *lib;

	*err = NULL;
	if (!path || !*path)
		path = "libnvidia-ml.so.1";
	if (!(lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
		const char *e = dlerror();
		*err = xasprintf("cannot load %s (%s)", path, e ? e : "not found");
		return NULL;
	}
	n = xcalloc(1, sizeof *n);
	n->lib = lib;
	*(void **)&init = nvml_sym(lib, "nvmlInit_v2", "nvmlInit");
	*(void **)&count = nvml_sym(lib, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
	*(void **)&handle = nvml_sym(lib, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
	*(void **)&name = nvml_sym(lib, NULL, "nvmlDeviceGetName");
	*(void **)&n->shutdown = nvml_sym(lib, NULL, "nvmlShutdown");
	*(void **)&n->error_string = nvml_sym(lib, NULL, "nvmlErrorString");
	*(void **)&n->utilization = nvml_sym(lib, NULL, "nvmlDeviceGetUtilizationRates");
	*(void **)&n->memory = nvml_sym(lib, NULL, "nvmlDeviceGetMemoryInfo");
	*(void **)&n->clock = nvml_sym(lib, NULL, "nvmlDeviceGetClockInfo");
	*(void **)&n->temperature = nvml_sym(lib, NULL, "nvmlDeviceGetTemperature");
	*(void **)&n->power = nvml_sym(lib, NULL, "nvmlDeviceGetPowerUsage");
	if (!init || !count || !handle || !n->shutdown) {
		*err = xasprintf("%s is not NVML (nvmlInit missing)", path);
		dlclose(lib);
		free(n);
		return NULL;
	}
	if ((rc = init()) != 0) {
		*err = xasprintf("NVML did not start: %s", nvml_why(n, rc));
		dlclose(lib);
		free(n);
		return NULL;
	}
	if ((rc = count(&n->count)) != 0 || n->count == 0 || (rc = handle(0, &n->dev)) != 0) {
		*err = rc ? xasprintf("no device: %s", nvml_why(n, rc)) : xstrdup("NVML sees no device");
		n->shutdown();
		dlclose(lib);
		free(n);
		return NULL;
	}
	if (!name || name(n->dev, n->name, sizeof n->name) != 0)
		snprintf(n->name, sizeof n->name, "GPU 0");
	n->name[sizeof n->name - 1] = 0;
	return n;
}

void nvml_close(struct nvml *n)
{
	if (!n)
		return;
	n->shutdown();
	dlclose(n->lib);
	free(n);
}

const char *nvml_name(const struct nvml *n)
{
	return n->name;
}

int nvml_count(const struct nvml *n)
{
	return (int)n->count;
}

int nvml_read(struct nvml *n, struct nvml_sample *s, char **err)
{
	struct nvml_util u;
	struct nvml_mem m;
	unsigned v;
	nvml_ret rc = 0, first = 0;
	int got = 0;

	*err = NULL;
	memset(s, 0xff, sizeof *s);   /* every field -1 until read */
	s->t = nvml_now();
	s->mem_used = s->mem_total = -1;
#define NVML_TRY(call, assign) do { \
		if ((rc = (call)) == 0) { assign; got++; } else if (!first) first = rc; } while (0)
	if (n->utilization)
		NVML_TRY(n->utilization(n->dev, &u), (s->util_gpu = (int)u.gpu, s->util_mem = (int)u.memory));
	if (n->memory)
		NVML_TRY(n->memory(n->dev, &m), (s->mem_used = (long long)m.used, s->mem_total = (long long)m.total));
	if (n->clock)
		NVML_TRY(n->clock(n->dev, NVML_CLOCK_SM, &v), s->sm_clock_mhz = (int)v);
	if (n->temperature)
		NVML_TRY(n->temperature(n->dev, NVML_TEMPERATURE_GPU, &v), s->temp_c = (int)v);
	if (n->power)
		NVML_TRY(n->power(n->dev, &v), s->power_mw = (int)v);
#undef NVML_TRY
	if (!got) {
		*err = xasprintf("no reading: %s", first ? nvml_why(n, first) : "NVML has none of the calls");
		return -1;
	}
	return 0;
}

void nvml_sampler_init(struct nvml_sampler *s)
{
	memset(s, 0, sizeof *s);
}

void nvml_sampler_free(struct nvml_sampler *s)
{
	nvml_close(s->n);
	free(s->error);
	memset(s, 0, sizeof *s);
}

int nvml_sampler_tick(struct nvml_sampler *s, double now)
{
	struct nvml_sample r;
	char *err = NULL;
	double every = s->interval_s > 0 ? s->interval_s : 1;

	if (!s->tried) {
		s->tried = 1;
		s->n = nvml_open(&s->error);
	}
	if (!s->n || (s->last > 0 && now - s->last < every))
		return 0;
	s->last = now;
	if (nvml_read(s->n, &r, &err) < 0) {
		free(s->error);
		s->error = err;
		return 0;
	}
	free(s->error);
	s->error = NULL;
	r.t = now;
	if (s->count < NVML_HISTORY)
		s->hist[(s->head + s->count++) % NVML_HISTORY] = r;
	else {
		s->hist[s->head] = r;
		s->head = (s->head + 1) % NVML_HISTORY;
	}
	return 1;
}

const struct nvml_sample *nvml_sampler_at(const struct nvml_sampler *s, size_t i)
{
	return i < s->count ? &s->hist[(s->head + i) % NVML_HISTORY] : NULL;
}

const struct nvml_sample *nvml_sampler_last(const struct nvml_sampler *s)
{
	return s->count ? nvml_sampler_at(s, s->count - 1) : NULL;
}
