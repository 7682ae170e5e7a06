/* suggested.c: the judge's suggestions file, read and decided on. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "annot.h"
#include "jsonx.h"
#include "suggested.h"
#include "util.h"

char *suggested_path(const char *transcript)
{
	char *dir = xstrdup(transcript ? transcript : "."), *slash = strrchr(dir, '/');
	char *path;
	if (slash) {
		*slash = '\0';
		path = util_path_join(*dir ? dir : "/", "suggested.json");
	} else {
		path = xstrdup("suggested.json");
	}
	free(dir);
	return path;
}

static char *suggested_str(const cJSON *o, const char *key, const char *dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return xstrdup(cJSON_IsString(v) ? v->valuestring : dflt);
}

/* The file parsed, or NULL with *err saying why (named by path). */
static cJSON *suggested_read(const char *path, char **err)
{
	size_t len;
	char *text = util_read_file(path, &len);
	cJSON *doc = text ? jx_parse(text, len) : NULL;
	if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "suggestions"))) {
		*err = xasprintf("%s: %s", path, !text ? "cannot read it (kbtui judge writes it)"
		                                : !doc ? "not JSON" : "no \"suggestions\" list");
		cJSON_Delete(doc);
		doc = NULL;
	}
	free(text);
	return doc;
}

int suggested_load(const char *path, struct suggested *out, char **err)
{
	memset(out, 0, sizeof *out);
	if (!util_is_file(path))
		return 1;
	cJSON *doc = suggested_read(path, err);
	if (!doc)
		return -1;
	const cJSON *it, *list = cJSON_GetObjectItemCaseSensitive(doc, "suggestions");
	out->model = suggested_str(doc, "model", "?");
	out->it = xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof *out->it);
	cJSON_ArrayForEach(it, list) {
		struct suggested_item *s = &out->it[out->n++];
		const cJSON *ev = cJSON_GetObjectItemCaseSensitive(it, "event");
		s->cls = suggested_str(it, "class", "?");
		s->quote = suggested_str(it, "quote", "");
		s->why = suggested_str(it, "why", "");
		s->status = suggested_str(it, "status", "suggested");
		s->event = cJSON_IsNumber(ev) && ev->valuedouble >= 1 && ev->valuedouble < 1e12 ? (long)ev->valuedouble : 0;
	}
	cJSON_Delete(doc);
	return 0;
}

void suggested_free(struct suggested *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->it[i].cls);
		free(s->it[i].quote);
		free(s->it[i].why);
		free(s->it[i].status);
	}
	free(s->it);
	free(s->model);
	memset(s, 0, sizeof *s);
}

long suggested_at(const struct suggested *s, long ev)
{
	long first = -1;
	for (size_t i = 0; i < s->n; i++) {
		if (s->it[i].event != ev)
			continue;
		if (!strcmp(s->it[i].status, "suggested"))
			return (long)i;
		if (first < 0)
			first = (long)i;
	}
	return first;
}

int suggested_decide(const char *path, size_t which, int accept, const char *who, char **cls, char **was,
                     char **err)
{
	*cls = *was = NULL;
	cJSON *doc = suggested_read(path, err);
	if (!doc)
		return -1;
	cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "suggestions");
	cJSON *s = which >= 1 && which <= (size_t)cJSON_GetArraySize(list) ? cJSON_GetArrayItem(list, (int)which - 1) : NULL;
	if (!cJSON_IsObject(s)) {
		*err = xasprintf("%s: no such suggestion (%zu)", path, which);
		cJSON_Delete(doc);
		return -1;
	}
	*was = suggested_str(s, "status", "suggested");
	cJSON_DeleteItemFromObjectCaseSensitive(s, "status");
	cJSON_AddStringToObject(s, "status", accept ? "accepted" : "rejected");
	cJSON_DeleteItemFromObjectCaseSensitive(s, "decided_by");
	if (who && *who)
		cJSON_AddStringToObject(s, "decided_by", who);
	char *js = cJSON_Print(doc);
	/* atomic, as the annotations are: a crash leaves the old file or the new */
	int rc = annot_replace(path, js, strlen(js), err);
	if (rc == 0)
		*cls = suggested_str(s, "class", "?");
	else {
		free(*was);
		*was = NULL;
	}
	cJSON_free(js);
	cJSON_Delete(doc);
	return rc < 0 ? -1 : 0;
}
