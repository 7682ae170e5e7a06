/* htmlexport.c: a run's page and a dataset's index, in HTML5. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "dataset.h"
#include "flags.h"
#include "htmlexport.h"
#include "milestones.h"
#include "run.h"
#include "taint.h"
#include "textsafe.h"
#include "timeline.h"
#include "util.h"

/* What the page looks like: inline, so that the file is all there is. */
static const char htmlexport_style[] =
	"body{font-family:sans-serif;margin:1em 2em;max-width:72em}"
	"pre{white-space:pre-wrap;word-break:break-all;background:#f6f6f6;padding:.4em;margin:.2em 0}"
	"table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}"
	"section.ev{border-top:1px solid #ddd;padding:.3em 0}.k{font-weight:bold}.flag{color:#a40}"
	".bad{color:#b00}.ok{color:#070}nav a{margin-right:1em}";

void htmlexport_text(struct sbuf *b, const char *s, size_t n)
{
	char *t = textsafe(s ? s : "", s ? n : 0, TS_KEEP_NL | TS_KEEP_TAB);
	for (const char *p = t; *p; p++) {
		switch (*p) {
		case '&': sbuf_adds(b, "&amp;"); break;
		case '<': sbuf_adds(b, "&lt;"); break;
		case '>': sbuf_adds(b, "&gt;"); break;
		case '"': sbuf_adds(b, "&quot;"); break;
		case '\'': sbuf_adds(b, "&#39;"); break;
		default: sbuf_addc(b, *p);
		}
	}
	free(t);
}

static void htmlexport_str(struct sbuf *b, const char *s)
{
	htmlexport_text(b, s, s ? strlen(s) : 0);
}

static void htmlexport_head(struct sbuf *b, const char *title)
{
	sbuf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
	htmlexport_str(b, title);
	sbuf_addf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n", htmlexport_style);
}

/* A link to event ev (from 0). */
static void htmlexport_evlink(struct sbuf *b, size_t ev)
{
	sbuf_addf(b, "<a href=\"#e%zu\">event %zu</a>", ev + 1, ev + 1);
}

static void htmlexport_annotation(struct sbuf *b, const char *path)
{
	size_t len = 0;
	char *text = path ? util_read_file(path, &len) : NULL;
	sbuf_adds(b, "<h2 id=\"annotation\">Annotation</h2>\n");
	if (!text) {
		sbuf_adds(b, "<p>No annotation.</p>\n");
		return;
	}
	sbuf_adds(b, "<pre>");
	htmlexport_text(b, text, len);
	sbuf_adds(b, "</pre>\n");
	free(text);
}

static void htmlexport_flags(struct sbuf *b, const struct flag_list *l, const struct flag_rules *rs)
{
	sbuf_addf(b, "<h2 id=\"flags\">Flags (%zu)</h2>\n", l ? l->n : 0);
	if (!l || !l->n) {
		sbuf_adds(b, "<p>No event is flagged.</p>\n");
		return;
	}
	sbuf_adds(b, "<table>\n<tr><th>event</th><th>rule</th><th>line</th><th>finding</th></tr>\n");
	for (size_t i = 0; i < l->n; i++) {
		const struct flag_hit *h = &l->hits[i];
		sbuf_adds(b, "<tr><td>");
		htmlexport_evlink(b, h->event);
		sbuf_adds(b, "</td><td class=\"flag\">");
		htmlexport_str(b, flag_rule_label(rs, h->rule));
		sbuf_adds(b, "</td><td><code>");
		htmlexport_str(b, h->text);
		sbuf_adds(b, "</code></td><td>");
		htmlexport_str(b, h->note ? h->note : flag_rule_why(rs, h->rule));
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n");
}

static void htmlexport_timeline(struct sbuf *b, struct run *r, const struct flag_list *fl)
{
	struct timeline t;
	sbuf_adds(b, "<h2 id=\"timeline\">Hack timeline</h2>\n");
	if (timeline_build(r, fl, NULL, &t) < 0) {
		sbuf_adds(b, "<p>The agent wrote no solution file.</p>\n");
		return;
	}
	sbuf_adds(b, "<table>\n<tr><th>#</th><th>event</th><th>changed</th><th>check</th><th>peak_fraction</th>"
	             "<th>flags</th></tr>\n");
	for (size_t k = 0; k < t.n; k++) {
		const struct timeline_row *w = &t.rows[k];
		sbuf_addf(b, "<tr><td>%zu</td><td>", k + 1);
		htmlexport_evlink(b, w->ev);
		sbuf_addf(b, "</td><td>%s+%zu -%zu</td><td>", w->lost ? "?" : "", w->added, w->removed);
		if (w->check) {
			sbuf_addf(b, "<span class=\"%s\">%s</span> ", w->check > 0 ? "ok" : "bad", w->check > 0 ? "PASS" : "FAIL");
			htmlexport_evlink(b, (size_t)w->check_ev);
		} else {
			sbuf_adds(b, "-");
		}
		sbuf_adds(b, "</td><td>");
		if (w->peak >= 0) {
			sbuf_addf(b, "%.4f%s%s ", w->peak, w->peak_over ? " (above 1)" : "", w->peak_tainted ? " (tainted)" : "");
			htmlexport_evlink(b, (size_t)w->peak_ev);
		} else {
			sbuf_adds(b, "-");
		}
		sbuf_adds(b, "</td><td>");
		if (w->nflags) {
			sbuf_addf(b, "%zu from ", w->nflags);
			htmlexport_evlink(b, (size_t)w->flag_ev);
		} else {
			sbuf_adds(b, "-");
		}
		if (w->ntainted)
			sbuf_addf(b, "; %zu tainted", w->ntainted);
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n");
	timeline_free(&t);
}

/* peak_fraction at each benchmark run, as an inline SVG plot whose points
 * link to their events. */
static void htmlexport_plot(struct sbuf *b, const struct run *r, const struct taint *tt)
{
	size_t n = 0;
	double top = 0;
	for (size_t i = 0; i < r->nev; i++) {
		double pk = r->ev[i].kind == EV_TOOL_RESULT && r->ev[i].text ? milestones_text_peak(r->ev[i].text) : -1;
		if (pk >= 0) {
			n++;
			if (pk > top)
				top = pk;
		}
	}
	sbuf_adds(b, "<h2 id=\"timing\">GPU timing</h2>\n");
	if (!n) {
		sbuf_adds(b, "<p>No peak_fraction line in the tool results.</p>\n");
		return;
	}
	top = top > 1 ? top : 1;
	const int W = 640, H = 200, L = 48, B = 24;
	sbuf_addf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	             "role=\"img\" aria-label=\"peak_fraction over the benchmark runs\">\n", W, H, W, H);
	sbuf_addf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", L, H - B, W - 8, H - B);
	sbuf_addf(b, "<line x1=\"%d\" y1=\"8\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", L, L, H - B);
	double y1 = (H - B) - (H - B - 8) * (1.0 / top);
	sbuf_addf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#b00\" stroke-dasharray=\"4 3\"/>\n", L, y1,
	          W - 8, y1);
	sbuf_addf(b, "<text x=\"4\" y=\"%.1f\" font-size=\"11\">1.0</text>\n<text x=\"4\" y=\"%d\" font-size=\"11\">0</text>\n",
	          y1 + 4, H - B + 4);
	size_t k = 0;
	for (size_t i = 0; i < r->nev; i++) {
		double pk = r->ev[i].kind == EV_TOOL_RESULT && r->ev[i].text ? milestones_text_peak(r->ev[i].text) : -1;
		if (pk < 0)
			continue;
		double x = L + 12 + (double)(W - L - 32) * (n > 1 ? (double)k / (double)(n - 1) : 0.5);
		double y = (H - B) - (H - B - 8) * (pk / top);
		int bad = pk > 1 || taint_at(tt, i) >= 0;
		sbuf_addf(b, "<a href=\"#e%zu\"><circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>event %zu: "
		             "peak_fraction %.4f%s</title></circle></a>\n", i + 1, x, y, bad ? "#b00" : "#06c", i + 1, pk,
		          taint_at(tt, i) >= 0 ? " (tainted)" : pk > 1 ? " (above 1)" : "");
		k++;
	}
	sbuf_addf(b, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%zu benchmark runs, in order</text>\n", L, H - 6, n);
	sbuf_adds(b, "</svg>\n");
}

static void htmlexport_claims(struct sbuf *b, const struct run *r)
{
	struct claims c;
	claims_build(r, &c);
	sbuf_addf(b, "<h2 id=\"claims\">Claims (%zu, %zu contradicted)</h2>\n", c.n, c.contradicted);
	if (c.n)
		sbuf_adds(b, "<ul>\n");
	for (size_t i = 0; i < c.n; i++) {
		char *line = claims_line(&c.v[i]);
		sbuf_addf(b, "<li class=\"%s\">", c.v[i].verdict < 0 ? "bad" : c.v[i].verdict > 0 ? "ok" : "");
		htmlexport_evlink(b, c.v[i].ev);
		sbuf_adds(b, ": ");
		htmlexport_str(b, line);
		sbuf_adds(b, "</li>\n");
		free(line);
	}
	if (c.n)
		sbuf_adds(b, "</ul>\n");
	claims_free(&c);
}

static void htmlexport_pre(struct sbuf *b, const char *label, const char *s)
{
	if (!s || !*s)
		return;
	sbuf_addf(b, "<div>%s</div><pre>", label);
	htmlexport_str(b, s);
	sbuf_adds(b, "</pre>\n");
}

/* b written to out (when there is one) once it holds a megabyte. */
static void htmlexport_flush(struct sbuf *b, FILE *out)
{
	if (out && b->len >= (1u << 20)) {
		fwrite(b->s, 1, b->len, out);
		sbuf_reset(b);
	}
}

static void htmlexport_events(struct sbuf *b, struct run *r, const struct flag_list *fl,
                              const struct flag_rules *rs, const struct taint *tt, FILE *out)
{
	sbuf_addf(b, "<h2 id=\"events\">Events (%zu)</h2>\n", r->nev);
	for (size_t i = 0; i < r->nev; i++) {
		const struct event *e = &r->ev[i];
		sbuf_addf(b, "<section class=\"ev\" id=\"e%zu\"><a href=\"#e%zu\">#%zu</a> <span class=\"k\">%s</span>",
		          i + 1, i + 1, i + 1, ev_kind_name(e->kind));
		if (e->name) {
			sbuf_adds(b, " ");
			htmlexport_str(b, e->name);
		}
		if (e->kind == EV_TOOL_RESULT && e->link >= 0)
			sbuf_addf(b, " (result of <a href=\"#e%d\">event %d</a>)", e->link + 1, e->link + 1);
		if (e->is_error)
			sbuf_adds(b, " <span class=\"bad\">error</span>");
		const struct flag_hit *h = fl ? flag_list_find(fl, i) : NULL;
		if (h) {
			sbuf_adds(b, " <span class=\"flag\">flagged: ");
			htmlexport_str(b, flag_rule_label(rs, h->rule));
			sbuf_adds(b, "</span>");
		}
		char *tn = taint_note(tt, i);
		if (tn) {
			sbuf_adds(b, " <span class=\"bad\">");
			htmlexport_str(b, tn);
			sbuf_adds(b, "</span>");
			free(tn);
		}
		sbuf_adds(b, "\n");
		htmlexport_pre(b, "path", e->path);
		htmlexport_pre(b, e->kind == EV_TOOL_CALL ? "arguments" : "text", e->kind == EV_TOOL_CALL ? e->args : NULL);
		htmlexport_pre(b, "text", e->text);
		htmlexport_pre(b, "diff", run_event_diff(r, i));
		sbuf_adds(b, "</section>\n");
		if (out) {  /* the diff is a cache, rendered again on use */
			free(r->ev[i].diff);
			r->ev[i].diff = NULL;
			htmlexport_flush(b, out);
		}
	}
}

void htmlexport_run(struct sbuf *b, struct run *r, const char *id, const char *annotation, FILE *out)
{
	const struct flag_rules *rs = NULL;
	struct flag_list *fl = flag_run_default(r, &rs);
	struct taint *tt = taint_build(r);
	htmlexport_head(b, id);
	sbuf_adds(b, "<h1>");
	htmlexport_str(b, id);
	sbuf_adds(b, "</h1>\n<p>");
	const struct run_meta *m = &r->meta;
	const char *parts[][2] = { { "model", m->model }, { "harness", m->harness }, { "problem", m->problem } };
	for (size_t k = 0; k < 3; k++)
		if (parts[k][1]) {
			sbuf_addf(b, "%s: <b>", parts[k][0]);
			htmlexport_str(b, parts[k][1]);
			sbuf_adds(b, "</b> ");
		}
	if (m->has_result)
		sbuf_addf(b, "correct: <b>%s</b> ", m->correct ? "yes" : "no");
	if (m->peak_fraction >= 0)
		sbuf_addf(b, "peak_fraction: <b>%.4f</b> ", m->peak_fraction);
	sbuf_addf(b, "events: %zu</p>\n", r->nev);
	sbuf_adds(b, "<nav><a href=\"#annotation\">annotation</a><a href=\"#flags\">flags</a><a href=\"#timeline\">"
	             "timeline</a><a href=\"#timing\">timing</a><a href=\"#claims\">claims</a><a href=\"#events\">events"
	             "</a></nav>\n");
	htmlexport_annotation(b, annotation);
	htmlexport_flags(b, fl, rs);
	htmlexport_timeline(b, r, fl);
	htmlexport_plot(b, r, tt);
	htmlexport_claims(b, r);
	htmlexport_events(b, r, fl, rs, tt, out);
	sbuf_adds(b, "</body>\n</html>\n");
	taint_free(tt);
	flag_list_delete(fl);
}

void htmlexport_index(struct sbuf *b, struct dataset *ds)
{
	htmlexport_head(b, ds->root);
	sbuf_adds(b, "<h1>");
	htmlexport_str(b, ds->root);
	sbuf_addf(b, "</h1>\n<p>%zu runs. Each run's page: <code>kbtui export --format html RUN_ID &gt; RUN_ID.html</code>"
	             "</p>\n<table>\n<tr><th>run</th><th>model</th><th>problem</th><th>correct</th><th>peak_fraction</th>"
	             "<th>verdict</th></tr>\n", ds->nruns);
	for (size_t i = 0; i < ds->nruns; i++) {
		const struct ds_run *d = &ds->runs[i];
		sbuf_adds(b, "<tr><td><a href=\"");
		/* the id as a relative file name: percent-encoded beyond a safe set */
		for (const char *p = d->meta.run_id ? d->meta.run_id : ""; *p; p++) {
			unsigned char c = (unsigned char)*p;
			if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-_.", c))
				sbuf_addc(b, (char)c);
			else
				sbuf_addf(b, "%%%02X", c);
		}
		sbuf_adds(b, ".html\">");
		htmlexport_str(b, d->meta.run_id);
		sbuf_adds(b, "</a></td><td>");
		htmlexport_str(b, d->meta.model);
		sbuf_adds(b, "</td><td>");
		htmlexport_str(b, d->meta.problem);
		sbuf_addf(b, "</td><td>%s</td><td>", !d->meta.has_result ? "" : d->meta.correct ? "yes" : "no");
		if (d->meta.peak_fraction >= 0)
			sbuf_addf(b, "%.4f", d->meta.peak_fraction);
		sbuf_adds(b, "</td><td>");
		htmlexport_str(b, d->verdict);
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n</body>\n</html>\n");
}
