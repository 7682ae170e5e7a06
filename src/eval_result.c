/* eval_result.c: the eval loop's result: freeing it and result.json
 * (KernelBench-Hard's keys first, then ours), written atomically. */
#include "config.h"

#include "eval.h"
#include "jsonx.h"
#include "safefile.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void eval_result_free(struct eval_result *r)
{
	for (int i = 0; i < r->nshapes; i++)
		free(r->shapes[i].desc);
	free(r->shapes);
	free(r->problem);
	free(r->hardware);
	free(r->device);
	free(r->arch);
	free(r->solution);
	free(r->workdir);
	free(r->model);
	free(r->mode);
	free(r->deck);
	free(r->table);
	free(r->regime);
	free(r->dtype);
	free(r->verdict);
	free(r->failure);
	memset(r, 0, sizeof *r);
}

void eval_shape_roofline(struct eval_shape *s, const char *regime, double peak_tflops, double peak_gbps)
{
	s->compute_util = peak_tflops > 0 && s->tflops >= 0 ? s->tflops / peak_tflops : -1;
	s->mem_util = peak_gbps > 0 && s->gbps >= 0 ? s->gbps / peak_gbps : -1;
	s->peak_fraction = regime && !strcmp(regime, "memory") ? s->mem_util : s->compute_util;
	/* the publisher's bound: whichever utilisation is the larger */
	if (s->compute_util >= 0 || s->mem_util >= 0)
		s->bound = s->compute_util > s->mem_util ? "compute" : "memory";
	else
		s->bound = NULL;
}

static void eval_json_num(cJSON *o, const char *key, double v, double scale)
{
	if (v < 0 || !isfinite(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, scale > 0 ? round(v * scale) / scale : v);
}

static void eval_json_str(cJSON *o, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

cJSON *eval_result_json(const struct eval_result *r)
{
	cJSON *o = cJSON_CreateObject(), *a;
	/* the keys of KernelBench-Hard's run_hard.sh first */
	eval_json_str(o, "problem", r->problem);
	cJSON_AddStringToObject(o, "harness", "kbtui-eval");
	eval_json_str(o, "model", r->model);
	cJSON_AddBoolToObject(o, "has_solution", r->has_solution);
	cJSON_AddBoolToObject(o, "correct", r->correct);
	eval_json_num(o, "peak_fraction", r->peak_fraction, 1e4);
	eval_json_num(o, "elapsed_seconds", r->elapsed_seconds, 1e3);
	eval_json_str(o, "mode", r->mode);
	eval_json_str(o, "result", r->verdict);
	eval_json_str(o, "stage", eval_stage_name(r->stage));
	eval_json_str(o, "failure", r->failure);
	cJSON_AddBoolToObject(o, "crashed", r->crashed);
	cJSON_AddBoolToObject(o, "timed_out", r->timed_out);
	cJSON_AddBoolToObject(o, "no_device", r->no_device);
	cJSON_AddBoolToObject(o, "refused", r->refused);
	cJSON_AddBoolToObject(o, "invalid", r->invalid);
	if (r->kbh_correct < 0)
		cJSON_AddNullToObject(o, "kbh_correct");
	else
		cJSON_AddBoolToObject(o, "kbh_correct", r->kbh_correct);
	if (r->adversarial_correct < 0)
		cJSON_AddNullToObject(o, "adversarial_correct");
	else
		cJSON_AddBoolToObject(o, "adversarial_correct", r->adversarial_correct);
	eval_json_str(o, "hardware", r->hardware);
	/* which published definitions the verdict is comparable with */
	eval_json_str(o, "deck", r->deck);
	eval_json_str(o, "table", r->table);
	/* the roofline the shapes' frac and utilisations are against */
	eval_json_str(o, "regime", r->regime);
	eval_json_str(o, "dtype", r->dtype);
	eval_json_num(o, "peak_tflops", r->peak_tflops > 0 ? r->peak_tflops : -1, 0);
	eval_json_num(o, "peak_bw_gb_s", r->peak_gbps > 0 ? r->peak_gbps : -1, 0);
	if (r->deck)
		cJSON_AddBoolToObject(o, "own_checks", r->own_checks);
	eval_json_str(o, "device", r->device);
	eval_json_str(o, "arch", r->arch);
	eval_json_str(o, "solution", r->solution);
	a = cJSON_AddArrayToObject(o, "shapes");
	for (int i = 0; i < r->nshapes; i++) {
		const struct eval_shape *s = &r->shapes[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddNumberToObject(j, "shape", s->shape);
		eval_json_str(j, "desc", s->desc);
		eval_json_num(j, "flops", s->flops, 0);
		eval_json_num(j, "bytes", s->bytes, 0);
		eval_json_num(j, "ms", s->ms, 1e6);
		eval_json_num(j, "min_ms", s->min_ms, 1e6);
		eval_json_num(j, "max_ms", s->max_ms, 1e6);
		eval_json_num(j, "tflops", s->tflops, 1e3);
		eval_json_num(j, "gbps", s->gbps, 1e3);
		eval_json_num(j, "peak_fraction", s->peak_fraction, 1e4);
		eval_json_num(j, "host_ms", s->host_ms, 1e6);
		/* the publisher's per-run detail fields (rundetail/RUN_ID.json) */
		eval_json_num(j, "frac", s->peak_fraction, 1e4);
		eval_json_num(j, "compute_util", s->compute_util, 1e4);
		eval_json_num(j, "mem_util", s->mem_util, 1e4);
		eval_json_str(j, "bound", s->bound);
		cJSON_AddItemToArray(a, j);
	}
	return o;
}

int eval_write_result(const struct eval_result *r, const char *path, char **err)
{
	cJSON *o = eval_result_json(r);
	char *text = cJSON_Print(o);
	struct sbuf b;
	sbuf_init(&b);
	sbuf_adds(&b, text);
	sbuf_addc(&b, '\n');
	int rc = safefile_write(path, b.s, b.len, 0644, 1);
	if (rc < 0)
		*err = xasprintf("%s: cannot write: %s", path, strerror(errno));
	sbuf_free(&b);
	cJSON_Delete(o);
	free(text);
	return rc;
}
