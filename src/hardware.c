/* hardware.c: hardware profiles from JSON. */
#include "hardware.h"
#include "jsonx.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int hardware_rates(const cJSON *o, struct hardware_rate **out)
{
	int n = 0;
	const cJSON *it;
	*out = NULL;
	if (!cJSON_IsObject(o))
		return 0;
	*out = xcalloc((size_t)cJSON_GetArraySize(o) + 1, sizeof **out);
	cJSON_ArrayForEach(it, o) {
		if (!cJSON_IsNumber(it) || !it->string)
			continue;
		(*out)[n].key = xstrdup(it->string);
		(*out)[n++].value = it->valuedouble;
	}
	return n;
}

static int hardware_profile_load(struct hardware_profile *p, const cJSON *o, char **why)
{
	const cJSON *m = jx_get(o, "match"), *it;
	memset(p, 0, sizeof *p);
	if (!jx_str(o, "key")) {
		*why = xstrdup("a profile has no \"key\"");
		return -1;
	}
	p->key = xstrdup(jx_str(o, "key"));
	p->name = xstrdup(jx_str(o, "name") ? jx_str(o, "name") : p->key);
	p->table = xstrdup(jx_str(o, "table") ? jx_str(o, "table") : p->key);
	p->source = xstrdup(jx_str(o, "source"));
	p->date = xstrdup(jx_str(o, "date"));
	p->arch = xstrdup(jx_str(o, "arch"));
	p->cc = (int)jx_ll(o, "cc", 0);
	p->vram_gb = jx_num(o, "vram_gb", 0);
	p->l2_bytes = jx_num(o, "l2_bytes", 0);
	if (cJSON_IsArray(m)) {
		p->match = xcalloc((size_t)cJSON_GetArraySize(m) + 1, sizeof *p->match);
		cJSON_ArrayForEach(it, m)
			if (cJSON_IsString(it))
				p->match[p->nmatch++] = xstrdup(it->valuestring);
	}
	p->ntflops = hardware_rates(jx_get(o, "peak_tflops_dense"), &p->tflops);
	p->ngbps = hardware_rates(jx_get(o, "peak_bandwidth_gb_s"), &p->gbps);
	if (!p->ngbps) {
		*why = xasprintf("profile %s has no \"peak_bandwidth_gb_s\"", p->key);
		return -1;
	}
	return 0;
}

struct hardware_list *hardware_load(const char *path, char **err)
{
	size_t len;
	char *text = util_read_file(path, &len);
	char *why = NULL;
	cJSON *doc;
	const cJSON *arr, *it;
	struct hardware_list *l;

	if (!text) {
		*err = xasprintf("%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	doc = jx_parse(text, len);
	free(text);
	arr = jx_get(doc, "profiles");
	if (!cJSON_IsArray(arr)) {
		*err = xasprintf("%s: %s", path, doc ? "no \"profiles\" array" : "not valid JSON");
		cJSON_Delete(doc);
		return NULL;
	}
	l = xcalloc(1, sizeof *l);
	l->p = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof *l->p);
	cJSON_ArrayForEach(it, arr) {
		if (hardware_profile_load(&l->p[l->n++], it, &why) < 0) {
			*err = xasprintf("%s: %s", path, why);
			free(why);
			cJSON_Delete(doc);
			hardware_free(l);
			return NULL;
		}
	}
	cJSON_Delete(doc);
	return l;
}

static void hardware_profile_free(struct hardware_profile *p)
{
	free(p->key);
	free(p->name);
	free(p->table);
	free(p->source);
	free(p->date);
	free(p->arch);
	for (int i = 0; i < p->nmatch; i++)
		free(p->match[i]);
	free(p->match);
	for (int i = 0; i < p->ntflops; i++)
		free(p->tflops[i].key);
	for (int i = 0; i < p->ngbps; i++)
		free(p->gbps[i].key);
	free(p->tflops);
	free(p->gbps);
}

void hardware_free(struct hardware_list *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->n; i++)
		hardware_profile_free(&l->p[i]);
	free(l->p);
	free(l);
}

const struct hardware_profile *hardware_find(const struct hardware_list *l, const char *key)
{
	for (int i = 0; l && key && i < l->n; i++)
		if (!strcasecmp(l->p[i].key, key))
			return &l->p[i];
	return NULL;
}

const struct hardware_profile *hardware_detect(const struct hardware_list *l, const char *device)
{
	for (int i = 0; l && device && i < l->n; i++)
		for (int j = 0; j < l->p[i].nmatch; j++)
			if (*l->p[i].match[j] && strcasestr(device, l->p[i].match[j]))
				return &l->p[i];
	return NULL;
}

static double hardware_rate(const struct hardware_rate *r, int n, const char *key)
{
	for (int i = 0; key && i < n; i++)
		if (!strcasecmp(r[i].key, key))
			return r[i].value;
	return -1;
}

double hardware_tflops(const struct hardware_profile *p, const char *dtype)
{
	return hardware_rate(p->tflops, p->ntflops, dtype);
}

double hardware_gbps(const struct hardware_profile *p, const char *key)
{
	return hardware_rate(p->gbps, p->ngbps, key ? key : "dram");
}

void hardware_print(const struct hardware_list *l, FILE *out)
{
	fprintf(out, "%-15s %-8s %9s %7s %7s %7s %7s %7s  %-22s %s\n", "KEY", "ARCH", "DRAM GB/s", "L2 MB",
	        "fp8", "bf16", "fp16", "fp32", "TABLE", "NAME");
	for (int i = 0; i < l->n; i++) {
		const struct hardware_profile *p = &l->p[i];
		const char *dt[] = {"fp8", "bf16", "fp16", "fp32"};
		fprintf(out, "%-15s %-8s %9.0f %7.0f", p->key, p->arch ? p->arch : "-",
		        hardware_gbps(p, "dram"), p->l2_bytes / (1024.0 * 1024.0));
		for (int k = 0; k < 4; k++) {
			double t = hardware_tflops(p, dt[k]);
			if (t < 0)
				fprintf(out, " %7s", "-");
			else
				fprintf(out, " %7.4g", t);
		}
		fprintf(out, "  %-22s %s\n", p->table, p->name);
	}
	fprintf(out, "TFLOPS are dense peaks; a profile is chosen from the device name or --hardware;\n"
	        "a deck (--deck) scores against its own TABLE.\n");
}

char *hardware_arch_for_cc(int cc)
{
	/* the 'a' targets unlock wgmma (90) and tcgen05 (100, 120), which a
	 * solution for those machines may use; the code then runs only there */
	if (cc == 90 || cc == 100 || cc == 103 || cc == 120 || cc == 121)
		return xasprintf("sm_%da", cc);
	return xasprintf("sm_%d", cc);
}
