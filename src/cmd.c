/* cmd.c: headless subcommands over the core: `runs` and `dump`. */
#include "cmd.h"
#include "dataset.h"
#include "jsonx.h"
#include "parser.h"
#include "textsafe.h"
#include "util.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void cmd_report_run(const struct run *r, FILE *err)
{
	for (int i = 0; i < r->nerrors; i++)
		textsafe_fprintf(err, "%s:%d: %s\n", r->source ? r->source : "-", r->errors[i].line,
		        r->errors[i].msg);
	if (r->malformed > r->nerrors)
		textsafe_fprintf(err, "%s: %d more malformed lines\n", r->source ? r->source : "-",
		        r->malformed - r->nerrors);
}

static void cmd_report_ds(const struct dataset *ds, FILE *err)
{
	for (int i = 0; i < ds->nerrors; i++) {
		if (ds->errors[i].line > 0)
			textsafe_fprintf(err, "%s:%d: %s\n", ds->error_files[i], ds->errors[i].line, ds->errors[i].msg);
		else
			textsafe_fprintf(err, "%s: %s\n", ds->error_files[i], ds->errors[i].msg);
	}
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

/* A cell of the text table: untrusted, so made safe and cut to width. */
static void cmd_cell(FILE *out, const char *s, int width)
{
	textsafe_fput_cell(out, nz(s), width, 0);
	fputc(' ', out);
}

/* Writes cJSON's output with DEL, the C1 controls (U+0080..U+009F), line
 * separators and bidi overrides escaped as \uXXXX and invalid UTF-8 bytes
 * as \ufffd (cJSON passes them through raw), so that a terminal showing
 * `dump --jsonl` or `runs --json` acts on none of a transcript's bytes (an
 * 8-bit CSI is as live as ESC [). They only occur inside strings, so this
 * stays JSON. */
void cmd_put_json(FILE *out, const char *s)
{
	struct sbuf b;
	sbuf_init(&b);
	textsafe_json_fix(&b, s);
	sbuf_addc(&b, '\n');
	fwrite(b.s, 1, b.len, out);
	sbuf_free(&b);
}

/* The display width of the widest field at off of the runs' metadata
 * (and of the title), at most cap. */
static int cmd_width(const struct dataset *ds, size_t off, const char *title, int cap)
{
	int w = (int)strlen(title);
	for (size_t i = 0; i < ds->nruns; i++) {
		const char *v = *(char *const *)((const char *)&ds->runs[i].meta + off);
		char *safe = textsafe(nz(v), strlen(nz(v)), 0);
		int n = (int)textsafe_width(safe, strlen(safe));
		free(safe);
		w = n > w ? n : w;
	}
	return w < cap ? w : cap;
}

static void cmd_runs_json(FILE *out, const struct ds_run *d, const struct run *r)
{
	cJSON *o = cJSON_CreateObject();
	char *s;
	cJSON_AddStringToObject(o, "run_id", d->meta.run_id);
	cJSON_AddStringToObject(o, "harness", nz(d->meta.harness));
	cJSON_AddStringToObject(o, "model", nz(d->meta.model));
	cJSON_AddStringToObject(o, "effort", nz(d->meta.effort));
	cJSON_AddStringToObject(o, "problem", nz(d->meta.problem));
	if (d->meta.has_result)
		cJSON_AddBoolToObject(o, "correct", d->meta.correct);
	else
		cJSON_AddNullToObject(o, "correct");
	if (d->meta.peak_fraction >= 0)
		cJSON_AddNumberToObject(o, "peak_fraction", d->meta.peak_fraction);
	else
		cJSON_AddNullToObject(o, "peak_fraction");
	if (d->verdict)
		cJSON_AddStringToObject(o, "verdict", d->verdict);
	else
		cJSON_AddNullToObject(o, "verdict");
	cJSON_AddStringToObject(o, "format", r ? nz(r->meta.format) : nz(d->meta.format));
	cJSON_AddBoolToObject(o, "held_out", d->held_out);
	if (r) {
		cJSON_AddNumberToObject(o, "events", (double)r->nev);
		cJSON_AddNumberToObject(o, "tool_calls", (double)run_count(r, EV_TOOL_CALL));
		cJSON_AddBoolToObject(o, "incomplete", r->incomplete);
		cJSON_AddNumberToObject(o, "malformed", r->malformed);
	} else {
		cJSON_AddNullToObject(o, "events");
		cJSON_AddNullToObject(o, "tool_calls");
	}
	s = cJSON_PrintUnformatted(o);
	cmd_put_json(out, s);
	cJSON_free(s);
	cJSON_Delete(o);
}

int cmd_runs(const char *dir, int json, FILE *out, FILE *err)
{
	char *e = NULL;
	struct dataset *ds = dataset_open(dir, &e);
	int bad = 0;

	if (!ds) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
		return CMD_BADINPUT;
	}
	/* columns as wide as their longest value (capped), so that no two
	 * models cut to one name */
	int idw = cmd_width(ds, offsetof(struct run_meta, run_id), "RUN_ID", 96);
	int hw = cmd_width(ds, offsetof(struct run_meta, harness), "HARNESS", 24);
	int mw = cmd_width(ds, offsetof(struct run_meta, model), "MODEL", 48);
	int pw = cmd_width(ds, offsetof(struct run_meta, problem), "PROBLEM", 32);
	cmd_report_ds(ds, err);
	bad = ds->nerrors > 0;
	if (!json)
		fprintf(out, "%-*s %-*s %-*s %-*s %-3s %6s %-12s %6s %5s\n", idw, "RUN_ID", hw, "HARNESS", mw, "MODEL",
		        pw, "PROBLEM", "OK", "PEAK", "VERDICT", "EVENTS", "TOOLS");
	for (size_t i = 0; i < ds->nruns; i++) {
		struct ds_run *d = &ds->runs[i];
		struct run *r = d->transcript ? dataset_load(ds, i) : NULL;
		if (d->transcript && !r) {
			textsafe_fprintf(err, "kbtui: %s\n", d->load_error);
			bad = 1;
		}
		if (r && r->malformed) {
			cmd_report_run(r, err);
			bad = 1;
		}
		if (json) {
			cmd_runs_json(out, d, r);
			continue;
		}
		cmd_cell(out, d->meta.run_id, idw);
		cmd_cell(out, d->meta.harness, hw);
		cmd_cell(out, d->meta.model, mw);
		cmd_cell(out, d->meta.problem, pw);
		cmd_cell(out, !d->meta.has_result ? "-" : d->meta.correct ? "yes" : "no", 3);
		if (d->meta.peak_fraction >= 0)
			fprintf(out, "%6.4f ", d->meta.peak_fraction);
		else
			fprintf(out, "%6s ", "-");
		cmd_cell(out, d->verdict ? d->verdict : "-", 12);
		if (r)
			fprintf(out, "%6zu %5zu\n", r->nev, run_count(r, EV_TOOL_CALL));
		else
			fprintf(out, "%6s %5s\n", "-", d->held_out ? "held" : "-");
		/* a listing of all runs need not keep every transcript in memory */
		run_free(d->run);
		d->run = NULL;
	}
	dataset_free(ds);
	return bad ? CMD_BADINPUT : CMD_OK;
}

static void cmd_dump_json(FILE *out, const struct run *r, size_t i)
{
	const struct event *e = &r->ev[i];
	cJSON *o = cJSON_CreateObject();
	char *s;

	cJSON_AddNumberToObject(o, "i", (double)i);
	cJSON_AddStringToObject(o, "kind", ev_kind_name(e->kind));
	if (e->name)
		cJSON_AddStringToObject(o, "name", e->name);
	else
		cJSON_AddNullToObject(o, "name");
	if (e->call_id)
		cJSON_AddStringToObject(o, "call_id", e->call_id);
	else
		cJSON_AddNullToObject(o, "call_id");
	cJSON_AddBoolToObject(o, "is_error", e->is_error);
	if (e->text)
		cJSON_AddStringToObject(o, "text", e->text);
	else
		cJSON_AddNullToObject(o, "text");
	cJSON_AddNumberToObject(o, "line", e->line);
	if (e->ts > 0)
		cJSON_AddNumberToObject(o, "ts", e->ts);
	if (e->sidechain)
		cJSON_AddBoolToObject(o, "sidechain", 1);
	if (e->redacted)
		cJSON_AddBoolToObject(o, "redacted", 1);
	if (e->link >= 0)
		cJSON_AddNumberToObject(o, "link", e->link);
	if (e->parent)
		cJSON_AddStringToObject(o, "parent", e->parent);
	if (e->path)
		cJSON_AddStringToObject(o, "path", e->path);
	if (e->args)
		cJSON_AddStringToObject(o, "args", e->args);
	const char *diff = run_event_diff(r, i);
	if (diff && *diff)
		cJSON_AddStringToObject(o, "diff", diff);
	if (e->kind == EV_USAGE) {
		cJSON *t = cJSON_AddObjectToObject(o, "tokens");
		cJSON_AddNumberToObject(t, "input", (double)e->tok_in);
		cJSON_AddNumberToObject(t, "output", (double)e->tok_out);
		cJSON_AddNumberToObject(t, "cache_read", (double)e->tok_cache_read);
		cJSON_AddNumberToObject(t, "cache_write", (double)e->tok_cache_write);
		cJSON_AddNumberToObject(t, "reasoning", (double)e->tok_reasoning);
	}
	s = cJSON_PrintUnformatted(o);
	cmd_put_json(out, s);
	cJSON_free(s);
	cJSON_Delete(o);
}

static void cmd_dump_text(FILE *out, const struct run *r, size_t i)
{
	const struct event *e = &r->ev[i];
	const char *body = e->kind == EV_TOOL_CALL ? (e->path ? e->path : e->args) : e->text;
	char *tokens = e->kind == EV_USAGE ? xasprintf("in %lld out %lld cache_read %lld cache_write %lld reasoning %lld",
	                                               e->tok_in, e->tok_out, e->tok_cache_read, e->tok_cache_write,
	                                               e->tok_reasoning) : NULL;
	if (tokens)
		body = tokens;
	char *safe = textsafe(nz(body), strlen(nz(body)), 0);
	char *name = textsafe(nz(e->name), strlen(nz(e->name)), 0);

	/* numbered from 1, as the replay, search and flags number events */
	textsafe_fprintf(out, "%5zu %-11s%s %s%s%.*s\n", i + 1, ev_kind_name(e->kind),
	        e->sidechain ? "*" : " ", name, *name ? ": " : "", (int)textsafe_cut(safe, strlen(safe), 160), safe);
	free(tokens);
	free(safe);
	free(name);
}

/* Whether a file holds nothing but white space (an agent that exited at
 * once leaves an empty transcript). */
static int cmd_blank_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	int c = EOF;
	if (!f)
		return 1;
	while ((c = getc(f)) != EOF && (c == ' ' || c == '\n' || c == '\r' || c == '\t'))
		;
	fclose(f);
	return c == EOF;
}

int cmd_dump(const char *path, const char *format, int jsonl, FILE *out, FILE *err)
{
	const struct parser_ops *forced = NULL;
	char *file = NULL, *e = NULL;
	struct run *r;
	int rc = CMD_OK;

	if (format && !(forced = parser_find(format))) {
		textsafe_fprintf(err, "kbtui: unknown format '%s' (kbtui formats lists them)\n", format);
		return CMD_USAGE;
	}
	if (util_is_dir(path)) {
		file = dataset_find_transcript(path);
		if (!file) {
			char *idx = util_path_join(path, "runs.jsonl");
			int dataset = util_is_file(idx);
			free(idx);
			if (dataset)  /* the next thing a user tries: say what dump wants */
				textsafe_fprintf(err, "kbtui: %s: a dataset, not a run: dump takes a run directory (%s/runs/RUN_ID) "
				        "or a transcript; kbtui runs %s lists the runs\n", path, path, path);
			else
				textsafe_fprintf(err, "kbtui: %s: no transcript (transcript.jsonl or one *.jsonl) in this directory\n", path);
			return CMD_BADINPUT;
		}
	} else {
		file = xstrdup(path);
	}
	r = parser_load_final(file, forced, &e);
	if (!r) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
		free(file);
		return CMD_BADINPUT;
	}
	for (size_t i = 0; i < r->nev; i++) {
		if (jsonl)
			cmd_dump_json(out, r, i);
		else
			cmd_dump_text(out, r, i);
	}
	if (!r->meta.format && r->nev == 0 && r->malformed == 0 && cmd_blank_file(file)) {
		/* an empty transcript: nothing to recognise, nothing wrong */
	} else if (!r->meta.format && !r->malformed) {
		textsafe_fprintf(err, "%s:1: unrecognised transcript format (try --format)\n", file);
		rc = CMD_BADINPUT;
	}
	if (r->malformed) {
		cmd_report_run(r, err);
		rc = CMD_BADINPUT;
	}
	run_free(r);
	free(file);
	return rc;
}

int cmd_formats(FILE *out)
{
	for (size_t i = 0; parser_all[i]; i++)
		textsafe_fprintf(out, "%-15s %s\n", parser_all[i]->name, parser_all[i]->description);
	return CMD_OK;
}
