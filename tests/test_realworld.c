/* Real transcripts from public repositories (tests/realworld/MANIFEST.tsv):
 * each is sniffed as the format the manifest names, or, for tools kbtui does
 * not read, gets a message naming what it is or what it is closest to. For
 * every file it reports which record types became events and which were
 * dropped; a dropped type must be in its format's table of ignored records
 * (parser_ops.ignored), and every entry of those tables is in the man page.
 * Ends with the per-format table: files, events, dropped record types. */
#include "tap.h"
#include "parser.h"
#include "dataset.h"

#include <sys/stat.h>
#include <unistd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))
/* ok() that also gives the condition back */
#define okv(cond, ...) ({ int c_ = !!(cond); ok(c_, __VA_ARGS__); c_; })

struct fmt_row {
	char name[32];
	int files;
	size_t events;
	char dropped[1024];
};

static struct fmt_row rows[32];
static int nrows;

static struct fmt_row *row_for(const char *name)
{
	for (int i = 0; i < nrows; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	snprintf(rows[nrows].name, sizeof rows[0].name, "%s", name);
	return &rows[nrows++];
}

static void add_dropped(struct fmt_row *row, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof pat, " %s,", key);
	if (strstr(row->dropped, pat) || strlen(row->dropped) + strlen(pat) + 1 >= sizeof row->dropped)
		return;
	strcat(row->dropped, pat);
}

/* An unsupported file: no format, and one message that says why. */
static void check_unsupported(const char *file, const char *path)
{
	char *err = NULL;
	struct run *r = parser_load_final(path, NULL, &err);
	if (!okv(r != NULL, "%s loads", file)) {
		free(err);
		return;
	}
	ok(r->meta.format == NULL && r->nerrors >= 1 &&
	   strstr(r->errors[0].msg, "unrecognised transcript format: ") &&
	   (strstr(r->errors[0].msg, "not supported") || strstr(r->errors[0].msg, "closest is")),
	   "%s: unsupported, and the message says what it is or its closest format", file);
	if (r->nerrors)
		diag("%s: %s", file, r->errors[0].msg);
	ok(r->malformed <= 1, "%s: its valid JSON lines are not counted as malformed (%d)", file, r->malformed);
	struct fmt_row *row = row_for("unsupported");
	row->files++;
	run_free(r);
}

static void check_file(const char *file, const char *format, const char *origin)
{
	char rel[512], *err = NULL;
	struct parser_tally t;
	const struct parser_ops *ops = parser_find(format);
	struct run *r;
	struct sbuf undoc;

	snprintf(rel, sizeof rel, "tests/realworld/%s", file);
	if (!strcmp(format, "unsupported")) {
		check_unsupported(file, tap_path(rel));
		return;
	}
	if (!okv(ops != NULL, "%s: the manifest names a known format (%s)", file, format))
		return;
	memset(&t, 0, sizeof t);
	r = parser_load_tally(tap_path(rel), NULL, &err, &t);
	if (!okv(r != NULL, "%s loads", file)) {
		diag("%s", err ? err : "");
		free(err);
		return;
	}
	is_str(r->meta.format, format, "%s (%s) sniffed as %s", file, origin, format);
	sbuf_init(&undoc);
	struct fmt_row *row = row_for(format);
	row->files++;
	row->events += r->nev;
	for (int i = 0; i < t.n; i++) {
		const struct parser_tally_key *k = &t.k[i];
		diag("%s: %-40s %4d lines, %s", file, k->key, k->lines,
		     k->used ? "events" : parser_ignored_why(ops, k->key) ? "ignored (documented)" : "DROPPED");
		if (k->used)
			continue;
		add_dropped(row, k->key);
		if (!parser_ignored_why(ops, k->key))
			sbuf_addf(&undoc, " %s", k->key);
	}
	ok(t.overflow == 0, "%s: every record key counted", file);
	ok(undoc.len == 0, "%s: no record type dropped without a word%s%s", file,
	   undoc.len ? ": undocumented:" : "", undoc.len ? undoc.s : "");
	for (int i = 0; i < r->nerrors; i++)
		diag("%s:%d: %s", file, r->errors[i].line, r->errors[i].msg);
	/* the tools' own recordings parse cleanly; fixtures edited by hand may not */
	if (!strncmp(origin, "recorded", 8))
		ok(r->malformed == 0, "%s: recorded by the tool, no malformed line", file);
	size_t unlinked = 0;
	for (size_t j = 0; j < r->nev; j++)
		unlinked += r->ev[j].kind == EV_TOOL_RESULT && r->ev[j].link < 0;
	if (!strcmp(origin, "recorded")) /* whole and untrimmed */
		ok(unlinked == 0, "%s: every tool result has its call (%zu without)", file, unlinked);
	for (size_t j = 0; j < r->nev; j++)
		if (r->ev[j].kind == EV_SYSTEM && (!r->ev[j].text || !*r->ev[j].text) &&
		    !okv(0, "%s:%d: no empty system row (%s)", file, r->ev[j].line,
		        r->ev[j].name ? r->ev[j].name : "?"))
			break;
	sbuf_free(&undoc);
	run_free(r);
}

/* Every ignored-record entry is in the man page, word for word. */
static void check_manpage(void)
{
	FILE *f = fopen(tap_path("man/kbtui.1"), "rb");
	struct sbuf man;
	char buf[4096];
	size_t n;
	int missing = 0, entries = 0;

	if (!okv(f != NULL, "man/kbtui.1 opens"))
		return;
	sbuf_init(&man);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&man, buf, n);
	fclose(f);
	for (size_t i = 0; parser_all[i]; i++)
		for (const struct parser_ignored *g = parser_all[i]->ignored; g && g->type; g++) {
			char pat[160];
			entries++;
			/* the man page escapes hyphens as \- */
			size_t o = 0;
			for (const char *c = g->type; *c && o + 3 < sizeof pat; c++) {
				if (*c == '-')
					pat[o++] = '\\';
				pat[o++] = *c;
			}
			pat[o] = '\0';
			if (!strstr(man.s, pat)) {
				diag("man page lacks %s record %s", parser_all[i]->name, g->type);
				missing++;
			}
		}
	ok(entries > 0 && missing == 0, "the man page lists all %d ignored record types (%d missing)", entries,
	   missing);
	sbuf_free(&man);
}

/* `kbtui runs DIR` without runs.jsonl: HARNESS and MODEL come from the
 * parsed transcripts (dataset_fill_meta). */
static void check_unindexed(void)
{
	char dir[] = "/tmp/kbtui-realworld-XXXXXX", path[512], *err = NULL;
	const char *src = tap_path("tests/realworld/ccv-claude-1.0.98.jsonl");
	if (!mkdtemp(dir)) {
		ok(0, "a temporary dataset");
		return;
	}
	snprintf(path, sizeof path, "%s/runs", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/runs/r1", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/runs/r1/transcript.jsonl", dir);
	size_t n = 0;
	char *buf = util_read_file(src, &n);
	FILE *f = fopen(path, "wb");
	if (f && buf)
		fwrite(buf, 1, n, f);
	if (f)
		fclose(f);
	free(buf);
	struct dataset *ds = dataset_open(dir, &err);
	if (!okv(ds && ds->nruns == 1, "a directory of runs without runs.jsonl opens (%s)", err ? err : "")) {
		free(err);
		return;
	}
	ok(!ds->runs[0].meta.harness && !ds->runs[0].meta.model, "no index: harness and model unknown at first");
	dataset_fill_meta(ds);
	is_str(ds->runs[0].meta.harness, "claude", "HARNESS from the transcript's format");
	is_str(ds->runs[0].meta.model, "claude-sonnet-4-20250514", "MODEL from the transcript");
	ok(ds->runs[0].run == NULL, "the transcript is not kept in memory for it");
	dataset_free(ds);
	unlink(path);
	snprintf(path, sizeof path, "%s/runs/r1", dir);
	rmdir(path);
	snprintf(path, sizeof path, "%s/runs", dir);
	rmdir(path);
	rmdir(dir);
}

int main(void)
{
	FILE *f = fopen(tap_path("tests/realworld/MANIFEST.tsv"), "r");
	char line[2048];
	int files = 0;

	if (!okv(f != NULL, "tests/realworld/MANIFEST.tsv opens"))
		return tap_done();
	while (fgets(line, sizeof line, f)) {
		char *fields[7] = {0}, *p = line;
		int nf = 0;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !strncmp(line, "file\t", 5) || !line[0])
			continue;
		while (nf < 7 && p) {
			fields[nf++] = p;
			p = strchr(p, '\t');
			if (p)
				*p++ = '\0';
		}
		if (!okv(nf == 7, "manifest line for %s has 7 fields", fields[0]))
			continue;
		ok(strstr(fields[6], "MIT") || strstr(fields[6], "Apache") || strstr(fields[6], "BSD") ||
		   strstr(fields[6], "CC-BY"), "%s: licence %s allows redistribution", fields[0], fields[6]);
		check_file(fields[0], fields[1], fields[2]);
		files++;
	}
	fclose(f);
	ok(files >= 25, "the corpus holds at least 25 files (%d)", files);
	ok(nrows >= 6, "across at least five formats and the unsupported ones (%d)", nrows);
	check_manpage();
	check_unindexed();
	diag("per-format table: format | files | events | record types that made no event in some file "
	     "(all documented)");
	for (int i = 0; i < nrows; i++)
		diag("%-16s | %3d | %6zu |%s", rows[i].name, rows[i].files, rows[i].events,
		     rows[i].dropped[0] ? rows[i].dropped : " -");
	return tap_done();
}
