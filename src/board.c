/* board.c: a leaderboard file's own header and its roofline (board.h). */
#include "board.h"
#include "jsonx.h"
#include "provenance.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int board_is_file(const char *name)
{
	return util_starts_with(name, "leaderboard") && util_ends_with(name, ".json") &&
	       strlen(name) >= strlen("leaderboard.json");
}

/* The first two are the boards kbtui always read: they keep their place. */
static int board_rank(const char *f)
{
	return !strcmp(f, "leaderboard.json") ? 0 : !strcmp(f, "leaderboard_v1.json") ? 1 : 2;
}

int board_cmp_files(const char *a, const char *b)
{
	int ra = board_rank(a), rb = board_rank(b);
	return ra != rb ? ra - rb : strcmp(a, b);
}

/* "leaderboard_v2.h100.json" -> "v2.h100"; "leaderboard.json" -> "main". */
static char *board_id(const char *file)
{
	const char *s = file + strlen("leaderboard");
	size_t n = strlen(s) - strlen(".json");
	while (n && (*s == '.' || *s == '_' || *s == '-')) {
		s++;
		n--;
	}
	return n ? xstrndup(s, n) : xstrdup("main");
}

void board_read(struct board *b, const char *file, const cJSON *lb)
{
	memset(b, 0, sizeof *b);
	b->file = xstrdup(file);
	b->id = board_id(file);
	b->prov = prov_board_slot(file);
	b->gpu = xstrdup(jx_pstr(lb, "hardware.name"));
	b->sm = xstrdup(jx_pstr(lb, "hardware.sm"));
	const cJSON *hw = jx_get(lb, "hardware");
	b->vram_gb = jx_num(hw, "vram_gb", -1);
	b->bandwidth_gbs = jx_num(hw, "peak_bandwidth_gb_s", -1);
	b->schema = (int)jx_num(lb, "schema_version", 0);
	b->environment = xstrdup(jx_str(lb, "environment"));
	b->environment_notes = xstrdup(jx_str(lb, "environment_notes"));
	b->reward_hack_count = (int)jx_num(lb, "reward_hack_count", -1);
	const cJSON *p, *probs = jx_get(lb, "problems");
	b->problems = xcalloc((size_t)cJSON_GetArraySize(probs) + 1, sizeof *b->problems);
	cJSON_ArrayForEach(p, probs)
		if (cJSON_IsString(p) && p->valuestring[0])
			b->problems[b->nproblems++] = xstrdup(p->valuestring);
}

void board_add_cell(struct board *b, const char *run_id)
{
	b->ncells++;
	/* run ids begin with their start, YYYYMMDD_HHMMSS */
	if (strlen(run_id) >= 15 && strncmp(run_id, b->newest, 15) > 0) {
		memcpy(b->newest, run_id, 15);
		b->newest[15] = '\0';
	}
}

/* The GPU names the publisher's boards use, to the profile keys of
 * problems/hardware.json (H100 means the PCIe card the dataset used). */
static const struct board_gpu {
	const char *match, *profile, *table;
} board_gpus[] = {
	{"RTX PRO 6000", "RTX_PRO_6000", "rtxpro6000-2026-06-14"},
	{"H100 PCIe", "H100", NULL},
	{"H100", "H100", NULL},
	{"H200", "H200", NULL},
	{"B200", "B200", NULL},
};

void board_roofline(struct board *b)
{
	b->profile = b->table = NULL;
	if (!b->gpu)
		return;
	for (size_t i = 0; i < sizeof board_gpus / sizeof board_gpus[0]; i++) {
		if (!strcasestr(b->gpu, board_gpus[i].match))
			continue;
		b->profile = board_gpus[i].profile;
		b->table = board_gpus[i].table;
		break;
	}
	/* the boards whose every run is older than the correction were
	 * published with the original table, 2.5x low */
	if (b->profile && !strcmp(b->profile, "RTX_PRO_6000") && b->newest[0] &&
	    strncmp(b->newest, BOARD_RTX_CORRECTED, 8) < 0) {
		b->profile = "RTX_PRO_6000_V1";
		b->table = "rtxpro6000-2026-04";
	}
}

void board_free(struct board *b)
{
	if (!b)
		return;
	free(b->file);
	free(b->id);
	free(b->gpu);
	free(b->sm);
	free(b->environment);
	free(b->environment_notes);
	for (size_t i = 0; i < b->nproblems; i++)
		free(b->problems[i]);
	free(b->problems);
	memset(b, 0, sizeof *b);
}

int board_matches(const struct board *b, const char *sel)
{
	size_t n = strlen(sel);
	if (!strcmp(b->file, sel) || !strcmp(b->id, sel))
		return 1;
	/* the file name without its .json */
	return n + 5 == strlen(b->file) && !strncmp(b->file, sel, n) && util_ends_with(b->file, ".json");
}

int board_gpu_matches(const struct board *b, const char *sel)
{
	return b->gpu && *sel && strcasestr(b->gpu, sel) != NULL;
}

int board_has_problem(const struct board *b, const char *p)
{
	if (!b->nproblems)
		return 1;
	for (size_t i = 0; p && i < b->nproblems; i++)
		if (!strcmp(b->problems[i], p))
			return 1;
	return 0;
}

char *board_table_text(const struct board *b)
{
	if (!b->profile)
		return xstrdup("unknown");
	return b->table ? xasprintf("%s (%s)", b->profile, b->table) : xstrdup(b->profile);
}

char *board_header(const struct board *b)
{
	struct sbuf s;
	char *t = board_table_text(b);
	sbuf_init(&s);
	sbuf_addf(&s, "%s  %s  roofline %s  %zu run%s", b->file, b->gpu ? b->gpu : "GPU unsaid", t, b->ncells,
	          b->ncells == 1 ? "" : "s");
	if (b->nproblems)
		sbuf_addf(&s, "  %zu problems", b->nproblems);
	free(t);
	return sbuf_detach(&s);
}
