/* jxsame.h: two cJSON trees alike in every field a reader can see, for
 * the tests and the fuzz target that hold jx_parse to cJSON itself. */
#ifndef KB_JXSAME_H
#define KB_JXSAME_H

#include <math.h>
#include <string.h>
#include <cjson/cJSON.h>

static int jx_same_tree(const cJSON *a, const cJSON *b)
{
	for (; a || b; a = a->next, b = b->next) {
		if (!a || !b || a->type != b->type || a->valueint != b->valueint)
			return 0;
		if (memcmp(&a->valuedouble, &b->valuedouble, sizeof a->valuedouble) &&
		    !(isnan(a->valuedouble) && isnan(b->valuedouble)))
			return 0;
		if (!a->string != !b->string || (a->string && strcmp(a->string, b->string)))
			return 0;
		if (!a->valuestring != !b->valuestring || (a->valuestring && strcmp(a->valuestring, b->valuestring)))
			return 0;
		if (!a->child != !b->child || (a->child && (!a->child->prev != !b->child->prev)))
			return 0;
		if (a->child && !jx_same_tree(a->child, b->child))
			return 0;
	}
	return 1;
}

#endif
