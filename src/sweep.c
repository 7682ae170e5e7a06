/* sweep.c: a sweep's configuration: the models file (YAML), the problems,
 * sweep.json in the sweep directory, and the environment cells get. */
#include "sweep.h"
#include "annot.h"
#include "jsonx.h"
#include "problem.h"
#include "suggest.h"
#include "textsafe.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <yaml.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ---- the models file ------------------------------------------------------ */

static const char *const sweep_model_keys[] = {"label", "provider", "model", "base_url", "effort",
                                               "reasoning_effort", "key_env", "thinking", NULL};

static int sweep_is_env_name(const char *s)
{
	if (!s || !*s || isdigit((unsigned char)*s))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* The label as a run id part: [A-Za-z0-9._-], other runs of bytes one '-'. */
static char *sweep_slug(const char *label)
{
	size_t n = strlen(label), j = 0;
	char *s = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)label[i];
		if (isalnum(ch) || ch == '.' || ch == '_' || ch == '-')
			s[j++] = (char)ch;
		else if (j && s[j - 1] != '-')
			s[j++] = '-';
	}
	while (j && s[j - 1] == '-')
		j--;
	s[j] = 0;
	if (s[0] == '.')   /* never a hidden or "." / ".." directory */
		s[0] = '-';
	return s;
}

static char *sweep_scalar(yaml_node_t *n)
{
	return xstrndup((const char *)n->data.scalar.value, n->data.scalar.length);
}

/* One mapping of the list into m; -1 with *err naming the line. */
static int sweep_model_read(yaml_document_t *doc, yaml_node_t *map, const char *path,
                            struct sweep_model *m, char **err)
{
	m->line = (int)map->start_mark.line + 1;
	if (map->type != YAML_MAPPING_NODE) {
		*err = xasprintf("%s:%d: a model is a mapping (label: ..., provider: ..., model: ..., key_env: ...)",
		                 path, m->line);
		return -1;
	}
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key), *v = yaml_document_get_node(doc, p->value);
		int line = (int)k->start_mark.line + 1, i;
		char *key, *val, **dst = NULL;
		if (k->type != YAML_SCALAR_NODE || v->type != YAML_SCALAR_NODE) {
			*err = xasprintf("%s:%d: model fields are plain values", path, line);
			return -1;
		}
		key = sweep_scalar(k);
		for (i = 0; sweep_model_keys[i] && strcmp(sweep_model_keys[i], key); i++)
			;
		if (!sweep_model_keys[i]) {
			char *safe = textsafe(key, strlen(key), 0);
			*err = xasprintf("%s:%d: unknown key '%s' (label, provider, model, base_url, effort, key_env, "
			                 "thinking)", path, line, safe);
			free(safe);
			free(key);
			return -1;
		}
		val = sweep_scalar(v);
		if (!strcmp(key, "label")) dst = &m->label;
		else if (!strcmp(key, "provider")) dst = &m->provider;
		else if (!strcmp(key, "model")) dst = &m->model;
		else if (!strcmp(key, "base_url")) dst = &m->base_url;
		else if (!strcmp(key, "effort") || !strcmp(key, "reasoning_effort")) dst = &m->effort;
		else if (!strcmp(key, "key_env")) dst = &m->key_env;
		if (dst) {
			free(*dst);
			*dst = val;
		} else {   /* thinking */
			char *end;
			long t = strtol(val, &end, 10);
			if (end == val || *end || t < 0 || t > 1000000) {
				*err = xasprintf("%s:%d: thinking is a number of tokens, not '%s'", path, line, val);
				free(val);
				free(key);
				return -1;
			}
			m->thinking = (int)t;
			free(val);
		}
		free(key);
	}
	return 0;
}

/* What a read model must have; -1 with *err. */
static int sweep_model_check(const struct sweep_model *m, const char *path, char **err)
{
	const char *missing = !m->label || !*m->label ? "label" : !m->model || !*m->model ? "model"
	                      : !m->key_env ? "key_env" : NULL;
	if (missing) {
		*err = xasprintf("%s:%d: this model has no %s", path, m->line, missing);
		return -1;
	}
	if (strcmp(m->provider, "openai") && strcmp(m->provider, "anthropic")) {
		char *safe = textsafe(m->provider, strlen(m->provider), 0);
		*err = xasprintf("%s:%d: provider is openai or anthropic, not '%s'", path, m->line, safe);
		free(safe);
		return -1;
	}
	if (!sweep_is_env_name(m->key_env)) {
		/* never echo it: it may be the key itself */
		*err = xasprintf("%s:%d: key_env is the name of the environment variable that holds the key "
		                 "(like OPENAI_API_KEY), never the key itself", path, m->line);
		return -1;
	}
	if (m->base_url && strncmp(m->base_url, "http://", 7) && strncmp(m->base_url, "https://", 8)) {
		*err = xasprintf("%s:%d: base_url is an http:// or https:// URL", path, m->line);
		return -1;
	}
	if (!*m->slug) {
		*err = xasprintf("%s:%d: the label has no letter or digit to name its runs by", path, m->line);
		return -1;
	}
	return 0;
}

static void sweep_model_free(struct sweep_model *m)
{
	free(m->label);
	free(m->slug);
	free(m->provider);
	free(m->model);
	free(m->base_url);
	free(m->effort);
	free(m->key_env);
}

static int sweep_models_from_doc(struct sweep_config *c, yaml_document_t *doc, const char *path, char **err)
{
	yaml_node_t *root = yaml_document_get_root_node(doc), *list = root;
	if (!root) {
		*err = xasprintf("%s: empty; it lists models (label, provider, model, key_env ...)", path);
		return -1;
	}
	if (root->type == YAML_MAPPING_NODE) {
		list = NULL;
		for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(doc, p->key);
			if (k->type == YAML_SCALAR_NODE && k->data.scalar.length == 6 &&
			    !memcmp(k->data.scalar.value, "models", 6))
				list = yaml_document_get_node(doc, p->value);
		}
	}
	if (!list || list->type != YAML_SEQUENCE_NODE) {
		*err = xasprintf("%s:%d: expected a list of models (or models: followed by one)", path,
		                 (int)(list ? list : root)->start_mark.line + 1);
		return -1;
	}
	int n = (int)(list->data.sequence.items.top - list->data.sequence.items.start);
	if (n == 0) {
		*err = xasprintf("%s:%d: the list of models is empty", path, (int)list->start_mark.line + 1);
		return -1;
	}
	c->models = xcalloc((size_t)n, sizeof *c->models);
	for (int i = 0; i < n; i++) {
		struct sweep_model *m = &c->models[i];
		c->nmodels = i + 1;
		if (sweep_model_read(doc, yaml_document_get_node(doc, list->data.sequence.items.start[i]), path, m,
		                     err) < 0)
			return -1;
		if (!m->provider)
			m->provider = xstrdup("openai");
		m->slug = sweep_slug(m->label ? m->label : "");
		if (sweep_model_check(m, path, err) < 0)
			return -1;
		for (int j = 0; j < i; j++)
			if (!strcmp(c->models[j].slug, m->slug)) {
				*err = xasprintf("%s:%d: this label names its runs as the one on line %d does (%s); "
				                 "labels must differ in letters or digits", path, m->line,
				                 c->models[j].line, m->slug);
				return -1;
			}
	}
	return 0;
}

int sweep_models_load(struct sweep_config *c, const char *path, char **err)
{
	FILE *f = fopen(path, "rb");
	yaml_parser_t p;
	yaml_document_t doc;
	int rc;

	if (!f) {
		*err = xasprintf("%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	if (!yaml_parser_load(&p, &doc)) {
		*err = xasprintf("%s:%zu: %s", path, p.problem_mark.line + 1, p.problem ? p.problem : "not YAML");
		yaml_parser_delete(&p);
		fclose(f);
		return -1;
	}
	rc = sweep_models_from_doc(c, &doc, path, err);
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
	fclose(f);
	return rc;
}

/* ---- problems and cells ----------------------------------------------------- */

/* Problem folder names go into run ids, paths, job scripts and the grid:
 * letters, digits, '.', '_' and '-' only, not starting with '.'. */
static int sweep_problem_name_ok(const char *s)
{
	if (!*s || *s == '.')
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-')
			return 0;
	return 1;
}

static void sweep_cells_build(struct sweep_config *c)
{
	c->ncells = c->nmodels * c->nproblems;
	c->cells = xcalloc((size_t)(c->ncells ? c->ncells : 1), sizeof *c->cells);
	for (int m = 0, k = 0; m < c->nmodels; m++)
		for (int p = 0; p < c->nproblems; p++, k++) {
			c->cells[k].model = m;
			c->cells[k].problem = p;
			c->cells[k].run_id = xasprintf("%s_%s", c->models[m].slug, c->problems[p]);
		}
}

int sweep_problems_set(struct sweep_config *c, const char *list, char **err)
{
	char *dir = c->problems_dir ? xstrdup(c->problems_dir) : problem_default_dir();
	int rc = 0;

	if (!strcmp(list, "all")) {
		int n = 0;
		char **names = problem_names(dir, &n);
		if (n == 0) {
			*err = xasprintf("%s: no problems there", dir);
			rc = -1;
		}
		c->problems = xcalloc((size_t)(n ? n : 1), sizeof *c->problems);
		for (int i = 0; i < n; i++)
			if (sweep_problem_name_ok(names[i]))   /* others cannot name a run */
				c->problems[c->nproblems++] = xstrdup(names[i]);
		problem_names_free(names, n);
	} else {
		char *copy = xstrdup(list), *save = NULL;
		c->problems = xcalloc(strlen(list) / 2 + 2, sizeof *c->problems);
		for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
			char *pdir = problem_find(dir, tok);
			if (!pdir) {
				char *safe = textsafe(tok, strlen(tok), 0), *hint = suggest_problem(dir, tok);
				if (hint) {
					char *h = textsafe(hint, strlen(hint), 0);
					*err = xasprintf("--problems: no problem '%s' in %s; did you mean '%s'?", safe, dir, h);
					free(h);
				} else {
					*err = xasprintf("--problems: no problem '%s' in %s (or the short name is ambiguous)", safe,
					                 dir);
				}
				free(hint);
				free(safe);
				rc = -1;
				break;
			}
			const char *name = strrchr(pdir, '/') ? strrchr(pdir, '/') + 1 : pdir;
			int seen = 0;
			if (!sweep_problem_name_ok(name)) {
				char *safe = textsafe(name, strlen(name), 0);
				*err = xasprintf("--problems: the folder name '%s' is not letters, digits, '.', '_' and '-'", safe);
				free(safe);
				free(pdir);
				rc = -1;
				break;
			}
			for (int i = 0; i < c->nproblems; i++)
				seen |= !strcmp(c->problems[i], name);
			if (!seen)
				c->problems[c->nproblems++] = xstrdup(name);
			free(pdir);
		}
		free(copy);
		if (rc == 0 && c->nproblems == 0) {
			*err = xstrdup("--problems: no problem named");
			rc = -1;
		}
	}
	/* cells on other machines find the problems by this path */
	if (rc == 0 && !c->problems_dir) {
		char *real = realpath(dir, NULL);
		c->problems_dir = real ? real : xstrdup(dir);
	}
	free(dir);
	if (rc == 0)
		sweep_cells_build(c);
	return rc;
}

int sweep_cell_find(const struct sweep_config *c, const char *run_id)
{
	for (int i = 0; i < c->ncells; i++)
		if (run_id && !strcmp(c->cells[i].run_id, run_id))
			return i;
	return -1;
}

void sweep_config_free(struct sweep_config *c)
{
	for (int i = 0; i < c->nmodels; i++)
		sweep_model_free(&c->models[i]);
	free(c->models);
	for (int i = 0; i < c->nproblems; i++)
		free(c->problems[i]);
	free(c->problems);
	for (int i = 0; i < c->ncells; i++)
		free(c->cells[i].run_id);
	free(c->cells);
	for (int i = 0; i < c->nsbatch_opts; i++)
		free(c->sbatch_opts[i]);
	free(c->sbatch_opts);
	free(c->problems_dir);
	free(c->sandbox);
	free(c->deck);
	free(c->executor);
	free(c->partition);
	memset(c, 0, sizeof *c);
}

/* ---- sweep.json ------------------------------------------------------------ */

static void sweep_add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

/* What the sweep is: a directory holds the cells of one of these. */
static cJSON *sweep_identity(const struct sweep_config *c)
{
	cJSON *o = cJSON_CreateObject(), *ms = cJSON_AddArrayToObject(o, "models");
	cJSON *ps = cJSON_AddArrayToObject(o, "problems");
	for (int i = 0; i < c->nmodels; i++) {
		const struct sweep_model *m = &c->models[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "label", m->label);
		cJSON_AddStringToObject(j, "provider", m->provider);
		cJSON_AddStringToObject(j, "model", m->model);
		sweep_add_str(j, "base_url", m->base_url);
		sweep_add_str(j, "effort", m->effort);
		cJSON_AddStringToObject(j, "key_env", m->key_env);
		cJSON_AddNumberToObject(j, "thinking", m->thinking);
		cJSON_AddItemToArray(ms, j);
	}
	for (int i = 0; i < c->nproblems; i++)
		cJSON_AddItemToArray(ps, cJSON_CreateString(c->problems[i]));
	sweep_add_str(o, "problems_dir", c->problems_dir);
	cJSON_AddNumberToObject(o, "budget_s", c->budget_s);
	cJSON_AddNumberToObject(o, "max_turns", c->max_turns);
	cJSON_AddBoolToObject(o, "no_eval", c->no_eval);
	sweep_add_str(o, "sandbox", c->sandbox);
	if (c->deck)   /* absent, not null, so sweeps made before decks continue */
		cJSON_AddStringToObject(o, "deck", c->deck);
	return o;
}

static char *sweep_config_path(const char *dir)
{
	return util_path_join(dir, "sweep.json");
}

int sweep_config_save(const struct sweep_config *c, const char *dir, char **err)
{
	char *path = sweep_config_path(dir), *old;
	cJSON *o = sweep_identity(c), *opts;
	int rc;

	old = util_read_file(path, NULL);
	if (old) {
		cJSON *prev = cJSON_Parse(old), *want = sweep_identity(c);
		const char *fields[] = {"models", "problems", "problems_dir", "budget_s", "max_turns", "no_eval",
		                        "sandbox", "deck", NULL};
		for (int i = 0; fields[i]; i++)
			if (!prev || ((jx_get(prev, fields[i]) || jx_get(want, fields[i])) &&
			              !cJSON_Compare(jx_get(prev, fields[i]), jx_get(want, fields[i]), 1))) {
				*err = xasprintf("%s holds another sweep (not the same %s): continue it with 'kbtui sweep %s', "
				                 "or choose another --out", path, fields[i], dir);
				cJSON_Delete(prev);
				cJSON_Delete(want);
				cJSON_Delete(o);
				free(old);
				free(path);
				return -1;
			}
		cJSON_Delete(prev);
		cJSON_Delete(want);
		free(old);
	}
	cJSON_AddNumberToObject(o, "version", 1);
	opts = cJSON_AddObjectToObject(o, "run");
	cJSON_AddStringToObject(opts, "executor", c->executor ? c->executor : "local");
	cJSON_AddNumberToObject(opts, "parallel", c->parallel);
	sweep_add_str(opts, "partition", c->partition);
	cJSON *so = cJSON_AddArrayToObject(opts, "sbatch_opts");
	for (int i = 0; i < c->nsbatch_opts; i++)
		cJSON_AddItemToArray(so, cJSON_CreateString(c->sbatch_opts[i]));
	cJSON_AddBoolToObject(opts, "no_gpu", c->no_gpu);
	rc = sweep_json_save(path, o, err);
	cJSON_Delete(o);
	free(path);
	return rc;
}

static char *sweep_dup_str(const cJSON *o, const char *k)
{
	return xstrdup(jx_str(o, k));
}

int sweep_config_load(struct sweep_config *c, const char *dir, char **err)
{
	char *path = sweep_config_path(dir);
	size_t len;
	char *buf = util_read_file(path, &len);
	cJSON *o, *m, *opts;
	int i = 0;

	memset(c, 0, sizeof *c);
	if (!buf) {
		*err = xasprintf("%s: cannot read: %s (not a sweep directory?)", path, strerror(errno));
		free(path);
		return -1;
	}
	o = jx_parse(buf, len);
	free(buf);
	if (!o || !cJSON_IsArray(jx_get(o, "models")) || !cJSON_IsArray(jx_get(o, "problems"))) {
		*err = xasprintf("%s:1: not a sweep configuration (models and problems missing)", path);
		cJSON_Delete(o);
		free(path);
		return -1;
	}
	c->nmodels = cJSON_GetArraySize(jx_get(o, "models"));
	c->models = xcalloc((size_t)(c->nmodels ? c->nmodels : 1), sizeof *c->models);
	cJSON_ArrayForEach(m, jx_get(o, "models")) {
		struct sweep_model *sm = &c->models[i++];
		sm->label = sweep_dup_str(m, "label");
		sm->provider = sweep_dup_str(m, "provider");
		sm->model = sweep_dup_str(m, "model");
		sm->base_url = sweep_dup_str(m, "base_url");
		sm->effort = sweep_dup_str(m, "effort");
		sm->key_env = sweep_dup_str(m, "key_env");
		sm->thinking = (int)jx_num(m, "thinking", 0);
		sm->line = i;
		if (!sm->provider)
			sm->provider = xstrdup("openai");
		sm->slug = sweep_slug(sm->label ? sm->label : "");
		if (sweep_model_check(sm, path, err) < 0) {
			cJSON_Delete(o);
			free(path);
			return -1;
		}
	}
	c->problems = xcalloc((size_t)cJSON_GetArraySize(jx_get(o, "problems")) + 1, sizeof *c->problems);
	cJSON_ArrayForEach(m, jx_get(o, "problems"))
		if (cJSON_IsString(m) && sweep_problem_name_ok(m->valuestring))
			c->problems[c->nproblems++] = xstrdup(m->valuestring);
	c->problems_dir = sweep_dup_str(o, "problems_dir");
	c->budget_s = jx_num(o, "budget_s", 0);
	c->max_turns = (int)jx_num(o, "max_turns", 0);
	c->no_eval = jx_bool(o, "no_eval", 0);
	c->sandbox = sweep_dup_str(o, "sandbox");
	c->deck = sweep_dup_str(o, "deck");
	opts = (cJSON *)jx_get(o, "run");
	c->executor = xstrdup(jx_str(opts, "executor") ? jx_str(opts, "executor") : "local");
	c->parallel = (int)jx_num(opts, "parallel", 1);
	c->partition = sweep_dup_str(opts, "partition");
	c->no_gpu = jx_bool(opts, "no_gpu", 0);
	c->sbatch_opts = xcalloc((size_t)cJSON_GetArraySize(jx_get(opts, "sbatch_opts")) + 1, sizeof *c->sbatch_opts);
	cJSON_ArrayForEach(m, jx_get(opts, "sbatch_opts"))
		if (cJSON_IsString(m))
			c->sbatch_opts[c->nsbatch_opts++] = xstrdup(m->valuestring);
	cJSON_Delete(o);
	free(path);
	sweep_cells_build(c);
	return 0;
}

/* ---- the environment ----------------------------------------------------------- */

int sweep_env_is_key(const struct sweep_config *c, const char *name)
{
	/* the models' key variables, and whatever else is named like a secret
	 * (HF_TOKEN, another vendor's key): no cell and no Slurm job needs them */
	static const char *const secret[] = {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", NULL};
	char *up = xstrdup(name);
	int hit = 0;
	for (char *p = up; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	for (int i = 0; secret[i] && !hit; i++)
		hit = strstr(up, secret[i]) != NULL;
	free(up);
	for (int i = 0; i < c->nmodels && !hit; i++)
		hit = !strcmp(name, c->models[i].key_env);
	return hit;
}

char **sweep_env_clean(const struct sweep_config *c, const char *const *extra)
{
	size_t n = 0, k = 0, ne = 0;
	char **env;
	while (environ[n])
		n++;
	while (extra && extra[ne])
		ne++;
	env = xcalloc(n + ne + 1, sizeof *env);
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		char *name = eq ? xstrndup(environ[i], (size_t)(eq - environ[i])) : xstrdup(environ[i]);
		int drop = sweep_env_is_key(c, name);
		for (size_t j = 0; !drop && j < ne; j++)   /* extra replaces what is there */
			drop = !strncmp(extra[j], name, strlen(name)) && extra[j][strlen(name)] == '=';
		if (!drop)
			env[k++] = xstrdup(environ[i]);
		free(name);
	}
	for (size_t j = 0; j < ne; j++)
		env[k++] = xstrdup(extra[j]);
	return env;
}

void sweep_env_free(char **env)
{
	if (!env)
		return;
	for (size_t i = 0; env[i]; i++) {
		memset(env[i], 0, strlen(env[i]));
		free(env[i]);
	}
	free(env);
}

char *sweep_self_exe(const char *argv0)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n > 0) {
		buf[n] = 0;
		return xstrdup(buf);
	}
	char *real = argv0 ? realpath(argv0, NULL) : NULL;
	return real ? real : xstrdup(argv0 ? argv0 : "kbtui");
}

struct sweep_cell_status *sweep_status_now(const struct sweep_config *c, const char *dir)
{
	struct sweep_cell_status *st = sweep_status_read(c, dir);
	const struct sweep_executor *ex = sweep_executor_find(c->executor);
	if (ex && ex->status)
		ex->status(c, dir, st);
	return st;
}

const struct sweep_executor *sweep_executor_find(const char *name)
{
	if (!name || !strcmp(name, "local"))
		return &sweep_local;
	if (!strcmp(name, "slurm"))
		return &sweep_slurm;
	return NULL;
}

/* ---- running a scheduler's command -------------------------------------------------- */

int sweep_spawn(char *const argv[], char *const env[], char **out, char **why)
{
	int po[2], pe[2], status = 0;
	posix_spawn_file_actions_t fa;
	struct sbuf so, se;
	pid_t pid;

	*why = NULL;
	if (out)
		*out = NULL;
	if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
		*why = xasprintf("pipe: %s", strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, env ? env : environ);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	if (rc != 0) {
		*why = xasprintf("cannot run %s: %s", argv[0], strerror(rc));
		close(po[0]);
		close(pe[0]);
		return -1;
	}
	sbuf_init(&so);
	sbuf_init(&se);
	struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
	int open_fds = 2;
	while (open_fds) {
		char buf[4096];
		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++) {
			ssize_t k;
			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			k = read(fds[i].fd, buf, sizeof buf);
			if (k > 0) {
				sbuf_add(i ? &se : &so, buf, (size_t)k);
			} else if (k == 0 || errno != EINTR) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
			}
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	if (rc != 0) {
		while (se.len && (se.s[se.len - 1] == '\n' || se.s[se.len - 1] == ' '))
			se.s[--se.len] = 0;
		char *nl = strrchr(se.s, '\n');
		*why = xasprintf("%s: %s", argv[0], se.len ? (nl ? nl + 1 : se.s) : "failed without a message");
	}
	if (out)
		*out = sbuf_detach(&so);
	sbuf_free(&so);
	sbuf_free(&se);
	return rc;
}
