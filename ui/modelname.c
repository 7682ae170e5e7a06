/* modelname.c: a run's model as the screen names it. */
#include "config.h"

#include <stdlib.h>

#include "draw.h"
#include "modelname.h"
#include "run.h"
#include "util.h"

char *modelname(const struct run_meta *m)
{
	if (m->label)
		return draw_safe(m->label);
	char *s;
	if (m->harness && m->model)
		s = m->effort ? xasprintf("%s/%s [%s]", m->harness, m->model, m->effort)
		              : xasprintf("%s/%s", m->harness, m->model);
	else
		s = xstrdup(m->model ? m->model : m->harness ? m->harness : "?");
	char *t = draw_safe(s);
	free(s);
	return t;
}
