/* deck.c: decks (problems/decks/NAME.json) and --describe. */
#include "deck.h"
#include "hardware.h"
#include "jsonx.h"
#include "problem.h"
#include "textsafe.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static char *deck_dir(const char *problems_dir)
{
	return util_path_join(problems_dir, "decks");
}

static int deck_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **deck_names(const char *problems_dir, int *n)
{
	char *dir = deck_dir(problems_dir);
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	int cap = 0;
	*n = 0;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		if (*n + 1 >= cap)
			v = xrealloc(v, (size_t)(cap = cap ? cap * 2 : 8) * sizeof *v);
		v[(*n)++] = xstrndup(e->d_name, len - 5);
	}
	if (d)
		closedir(d);
	free(dir);
	if (v)
		qsort(v, (size_t)*n, sizeof *v, deck_cmp);
	return v;
}

/* A deck name is a file name under decks/: no path, nothing hidden. */
static int deck_name_ok(const char *name)
{
	return name && *name && name[0] != '.' && !strchr(name, '/') && strlen(name) < 128;
}

static char *deck_unknown(const char *problems_dir, const char *name)
{
	struct sbuf b;
	int n;
	char **v = deck_names(problems_dir, &n);
	sbuf_init(&b);
	sbuf_addf(&b, "no deck '%s' (decks:", name);
	for (int i = 0; i < n; i++)
		sbuf_addf(&b, " %s", v[i]);
	sbuf_addf(&b, "%s)", n ? "" : " none");
	problem_names_free(v, n);
	return sbuf_detach(&b);
}

static char *deck_fill_problem(struct deck_problem *dp, const cJSON *o)
{
	const cJSON *t = jx_get(o, "tolerance");
	dp->name = o->string;
	dp->json = o;
	if (!cJSON_IsObject(t) || !cJSON_IsNumber(jx_get(t, "atol")) || !cJSON_IsNumber(jx_get(t, "rtol")))
		return xasprintf("%s: \"tolerance\" needs numbers atol and rtol", dp->name);
	dp->atol = jx_num(t, "atol", 0);
	dp->rtol = jx_num(t, "rtol", 0);
	dp->keyed_on = jx_str(t, "keyed_on");
	dp->seeds = (int)jx_ll(o, "seeds", 0);
	dp->trials = (int)jx_ll(o, "trials", 0);
	if (dp->atol < 0 || dp->rtol < 0 || dp->seeds < 0 || dp->trials < 0)
		return xasprintf("%s: negative tolerance, seeds or trials", dp->name);
	return NULL;
}

static char *deck_fill(struct deck *d)
{
	const cJSON *pl = jx_get(d->doc, "problems"), *pp = jx_get(d->doc, "per_problem"), *it;
	d->name = jx_str(d->doc, "name");
	d->title = jx_str(d->doc, "title");
	d->date = jx_str(d->doc, "date");
	d->source = jx_str(d->doc, "source");
	d->table = jx_str(d->doc, "table");
	d->warmup = (int)jx_ll(d->doc, "warmup", 10);
	d->l2_flush_bytes = jx_num(d->doc, "l2_flush_bytes", 128.0 * 1024 * 1024);
	if (!d->name || !d->table)
		return xstrdup("needs \"name\" and \"table\"");
	if (!cJSON_IsArray(pl) || !cJSON_IsObject(pp))
		return xstrdup("needs a \"problems\" list and a \"per_problem\" object");
	if (d->warmup < 0 || d->l2_flush_bytes < 0)
		return xstrdup("\"warmup\" and \"l2_flush_bytes\" must not be negative");
	d->p = xcalloc((size_t)cJSON_GetArraySize(pl) + 1, sizeof *d->p);
	cJSON_ArrayForEach(it, pl) {
		const cJSON *o = cJSON_IsString(it) ? jx_get(pp, it->valuestring) : NULL;
		char *why;
		if (!o)
			return xasprintf("problem %s has no \"per_problem\" entry",
			                 cJSON_IsString(it) ? it->valuestring : "(not a string)");
		if ((why = deck_fill_problem(&d->p[d->np++], o)))
			return why;
	}
	return NULL;
}

struct deck *deck_load(const char *problems_dir, const char *name, char **err)
{
	char *dir, *path, *text, *why;
	size_t len;
	struct deck *d;
	if (!deck_name_ok(name)) {
		*err = xstrdup("a deck is named by its file under decks/, as kbh-2026-04");
		return NULL;
	}
	dir = deck_dir(problems_dir);
	path = xasprintf("%s/%s.json", dir, name);
	free(dir);
	if (!(text = util_read_file(path, &len))) {
		*err = errno == ENOENT ? deck_unknown(problems_dir, name)
		                       : xasprintf("%s: cannot read: %s", path, strerror(errno));
		free(path);
		return NULL;
	}
	d = xcalloc(1, sizeof *d);
	d->doc = jx_parse(text, len);
	free(text);
	why = cJSON_IsObject(d->doc) ? deck_fill(d) : xstrdup("not a JSON object");
	if (!why && strcmp(d->name, name))
		why = xasprintf("its \"name\" is %s", d->name);
	if (why) {
		*err = xasprintf("%s: %s", path, why);
		free(why);
		free(path);
		deck_free(d);
		return NULL;
	}
	free(path);
	return d;
}

void deck_free(struct deck *d)
{
	if (!d)
		return;
	free(d->p);
	cJSON_Delete(d->doc);
	free(d);
}

/* Whether the deck's list key names hwkey. */
static int deck_lists(const struct deck *d, const char *key, const char *hwkey)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, jx_get(d->doc, key))
		if (cJSON_IsString(it) && !strcasecmp(it->valuestring, hwkey))
			return 1;
	return 0;
}

char *deck_default_for(const char *problems_dir, const char *hwkey, int *own_table)
{
	int n;
	char **v = deck_names(problems_dir, &n), *found = NULL, *defs = NULL;
	for (int i = 0; hwkey && !found && i < n; i++) {
		char *err = NULL;
		struct deck *d = deck_load(problems_dir, v[i], &err);
		free(err);
		if (!d)
			continue;
		if (deck_lists(d, "default_for", hwkey))
			found = xstrdup(v[i]);
		else if (!defs && deck_lists(d, "definitions_for", hwkey))
			defs = xstrdup(v[i]);
		deck_free(d);
	}
	problem_names_free(v, n);
	*own_table = !found && defs;
	if (found) {
		free(defs);
		return found;
	}
	return defs;
}

const struct deck_problem *deck_problem(const struct deck *d, const char *name)
{
	for (int i = 0; d && name && i < d->np; i++)
		if (!strcmp(d->p[i].name, name))
			return &d->p[i];
	return NULL;
}

/* ---- describe ---------------------------------------------------------- */

static cJSON *deck_dup(const cJSON *o)
{
	return o ? cJSON_Duplicate(o, 1) : cJSON_CreateNull();
}

static void deck_add_str(cJSON *o, const char *key, const char *s)
{
	cJSON_AddItemToObject(o, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

static cJSON *deck_shapes(const struct problem *p)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < p->nshapes; i++) {
		cJSON *s = cJSON_CreateObject();
		for (int j = 0; j < p->shapes[i].nvars; j++)
			cJSON_AddNumberToObject(s, p->shapes[i].vars[j].name, p->shapes[i].vars[j].value);
		cJSON_AddItemToArray(a, s);
	}
	return a;
}

static cJSON *deck_table(const struct hardware_profile *t, const struct problem *p)
{
	cJSON *o = cJSON_CreateObject();
	if (!t)
		return o;
	deck_add_str(o, "key", t->key);
	deck_add_str(o, "table", t->table);
	deck_add_str(o, "source", t->source);
	deck_add_str(o, "date", t->date);
	cJSON_AddNumberToObject(o, "dram_gb_s", hardware_gbps(t, p->peak_bandwidth_key));
	cJSON *tf = cJSON_AddObjectToObject(o, "tflops");
	for (int i = 0; i < t->ntflops; i++)
		cJSON_AddNumberToObject(tf, t->tflops[i].key, t->tflops[i].value);
	return o;
}

/* The checks kbtui adds to the deck's: named, and off with --no-own-checks
 * (the deck's verdict alone, comparable with the published one) where
 * "switchable". */
static cJSON *deck_own_checks(void)
{
	static const char *const own[][3] = {
		{"adversarial", "one hard input a shape (extreme values, ragged or poisoned layouts), "
		                "order-1 outputs where the deck's are near zero", "yes"},
		{"timed_outputs", "the outputs of timed calls compared with the reference", "no"},
		{"nan_fill", "outputs filled with NaN before each call, so an unwritten element fails", "no"},
		{"alternating_inputs", "two timed inputs alternated, so a cached answer is not timed", "no"},
		{"static_checks", "forbidden patterns on the source, the preprocessed source and the symbols", "no"},
	};
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < sizeof own / sizeof *own; i++) {
		cJSON *o = cJSON_CreateObject();
		deck_add_str(o, "name", own[i][0]);
		deck_add_str(o, "what", own[i][1]);
		cJSON_AddBoolToObject(o, "switchable", !strcmp(own[i][2], "yes"));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* The deck's differences and then the problem's own. */
static cJSON *deck_differences(const struct deck *d, const struct deck_problem *dp)
{
	cJSON *a = deck_dup(jx_get(d->doc, "differences")), *it;
	if (!cJSON_IsArray(a)) {
		cJSON_Delete(a);
		a = cJSON_CreateArray();
	}
	cJSON_ArrayForEach(it, jx_get(dp->json, "differences"))
		cJSON_AddItemToArray(a, cJSON_Duplicate(it, 1));
	return a;
}

cJSON *deck_describe(const struct deck *d, const struct problem *p, const struct hardware_profile *table)
{
	const struct deck_problem *dp = deck_problem(d, p->name);
	cJSON *o = cJSON_CreateObject(), *t;
	deck_add_str(o, "deck", d->name);
	deck_add_str(o, "deck_title", d->title);
	deck_add_str(o, "deck_date", d->date);
	deck_add_str(o, "deck_source", d->source);
	deck_add_str(o, "problem", p->name);
	deck_add_str(o, "display_name", p->display_name);
	deck_add_str(o, "precision", p->precision);
	deck_add_str(o, "regime", p->regime);
	cJSON_AddItemToObject(o, "shapes", deck_shapes(p));
	deck_add_str(o, "flops_formula", p->flops_formula);
	deck_add_str(o, "bytes_formula", p->bytes_formula);
	deck_add_str(o, "peak_tflops_key", p->peak_tflops_key);
	deck_add_str(o, "peak_bandwidth_key", p->peak_bandwidth_key);
	cJSON_AddItemToObject(o, "inputs", deck_dup(dp ? jx_get(dp->json, "inputs") : NULL));
	cJSON_AddItemToObject(o, "reference", deck_dup(dp ? jx_get(dp->json, "reference") : NULL));
	t = cJSON_AddObjectToObject(o, "tolerance");
	cJSON_AddNumberToObject(t, "atol", dp ? dp->atol : p->atol);
	cJSON_AddNumberToObject(t, "rtol", dp ? dp->rtol : p->rtol);
	deck_add_str(t, "keyed_on", dp ? dp->keyed_on : NULL);
	cJSON_AddNumberToObject(o, "seeds", dp && dp->seeds ? dp->seeds : p->seeds);
	cJSON_AddNumberToObject(o, "trials", dp && dp->trials ? dp->trials : p->trials);
	cJSON_AddNumberToObject(o, "warmup", d->warmup);
	cJSON_AddNumberToObject(o, "l2_flush_bytes", d->l2_flush_bytes);
	deck_add_str(o, "statistic", jx_str(d->doc, "statistic"));
	deck_add_str(o, "timed_input", jx_str(d->doc, "timed_input"));
	deck_add_str(o, "timed_call", jx_str(d->doc, "timed_call"));
	cJSON_AddItemToObject(o, "checks", deck_dup(dp ? jx_get(dp->json, "checks") : NULL));
	cJSON_AddItemToObject(o, "own_checks", deck_own_checks());
	cJSON_AddItemToObject(o, "table", deck_table(table, p));
	cJSON_AddItemToObject(o, "differences", dp ? deck_differences(d, dp) : cJSON_CreateArray());
	t = deck_dup(dp ? jx_get(dp->json, "cite") : NULL);
	if (cJSON_IsObject(t)) {
		const cJSON *it;
		cJSON_ArrayForEach(it, jx_get(d->doc, "cite"))
			cJSON_AddItemToObject(t, it->string, cJSON_Duplicate(it, 1));
	}
	cJSON_AddItemToObject(o, "cite", t);
	return o;
}

/* One value on a line: strings plain, the rest as compact JSON. */
static void deck_print_value(const char *key, const cJSON *v, FILE *out)
{
	char *s = cJSON_IsString(v) ? NULL : cJSON_PrintUnformatted(v);
	textsafe_fprintf(out, "%-16s %s\n", key, s ? s : v->valuestring);
	free(s);
}

void deck_describe_print(const cJSON *desc, FILE *out)
{
	const cJSON *it, *e;
	cJSON_ArrayForEach(it, desc) {
		if (!strcmp(it->string, "cite") || !cJSON_IsArray(it) || !cJSON_GetArraySize(it) ||
		    !cJSON_IsObject(it->child)) {
			if (!strcmp(it->string, "differences") && cJSON_IsArray(it)) {
				cJSON_ArrayForEach(e, it)
					deck_print_value("difference", e, out);
				continue;
			}
			deck_print_value(it->string, it, out);
			continue;
		}
		/* a list of objects (inputs, checks, shapes): one a line */
		cJSON_ArrayForEach(e, it)
			deck_print_value(it->string, e, out);
	}
}
