/* tag.c: the annotation session: verdict keys, the $EDITOR round trip for
 * summary and implication, the undo stack, next-unannotated; blind mode
 * is blind.c's.
 * Every change to a file goes through src/annotate.h; this file decides
 * which change, guards against overwriting another annotator's work, and
 * keeps the dataset's in-memory verdicts in step so the views update. */
#include "config.h"

#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "annot.h"
#include "annotate.h"
#include "blind.h"
#include "dataset.h"
#include "dirlist.h"
#include "draw.h"
#include "modelname.h"
#include "tag.h"
#include "util.h"

/* One change of this session that u can take back. */
struct tag_change {
	struct annotate_undo *undo;  /* owned */
	size_t run;
};

struct tag {
	struct dataset *ds;          /* borrowed */
	char *dir;                   /* annotation directory (owned) */
	char *annotator;             /* owned, NULL: none */
	long long *seen;             /* per run: mtime of its file when the dataset was read, 0 absent */
	struct annot_version *seenv; /* per run: the version last read or written here, */
	unsigned char *full;         /* where full[i] (else seen[i] is all there is) */
	int (*ask)(void *ctx, const char *question);  /* the views' y/n question */
	void *ask_ctx;
	struct annot_version dir_seen; /* the directory at the last poll */
	int dir_seen_set;
	unsigned generation;         /* bumped whenever verdicts were read again */
	char **draft;                /* per run: the note text the schema refused (owned), NULL: none */
	char **draft_why;            /* and why (owned) */
	const char **draft_verdict;  /* and the verdict key that opened it (static), NULL: none */
	size_t poll_next;            /* the run tag_poll looks at next */
	long long polled_ms;         /* when it last looked beyond the run on screen */
	long hint_run;               /* the run and YAML line the annotation pane has selected */
	int hint_line;
	struct tag_change *undo;     /* a stack, the last change on top */
	size_t nundo, capundo;
	struct blind *blind;         /* blind mode (owned) */
};

static const char tag_hint[] = "KLHIB verdict  A note  u undo  a next  x blind";

/* The five verdict keys, in the order of the schema. */
static const char *tag_verdict_of_action(enum action a)
{
	switch (a) {
	case ACT_VERDICT_CLEAN: return "clean";
	case ACT_VERDICT_LEAK: return "rubric_leak";
	case ACT_VERDICT_HACK: return "reward_hack";
	case ACT_VERDICT_INTERESTING: return "interesting";
	case ACT_VERDICT_BUG: return "bug";
	default: return NULL;
	}
}

static char *tag_path(const struct tag *t, size_t i)
{
	const char *id = t->ds->runs[i].meta.run_id;
	return id ? annotate_path(t->dir, id) : NULL;
}

/* "annotations/<id>.yaml": the file as the status bar names it (safe, owned). */
static char *tag_short(const char *path)
{
	const char *last = strrchr(path, '/'), *start = path;
	for (const char *p = path; last && p < last; p++)
		if (*p == '/')
			start = p + 1;
	return draw_safe(start);
}

/* Reads run i's verdict from the session's file again, and remembers the
 * file's mtime as the version this session has seen. */
static void tag_reload(struct tag *t, size_t i)
{
	char *p = tag_path(t, i);
	if (!p)
		return;
	dataset_set_verdict(t->ds, i, p);
	annot_version_get(p, &t->seenv[i]);
	t->full[i] = 1;
	t->generation++;
	free(p);
}

static int tag_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tag_blind(const struct tag *t)
{
	return t && blind_on(t->blind);
}

const char *tag_blind_model(const struct run_meta *m)
{
	return blind_model(m);
}

/* ---- the session ----------------------------------------------------------------- */

struct tag *tag_new(struct dataset *ds, const char *dir, const char *annotator, int blind)
{
	struct tag *t = xcalloc(1, sizeof *t);
	t->ds = ds;
	t->dir = dir ? xstrdup(dir) : util_path_join(ds->root, "annotations");
	t->annotator = annotator && *annotator ? xstrdup(annotator) : NULL;
	t->seen = xcalloc(ds->nruns + 1, sizeof *t->seen);
	t->seenv = xcalloc(ds->nruns + 1, sizeof *t->seenv);
	t->full = xcalloc(ds->nruns + 1, 1);
	t->draft = xcalloc(ds->nruns + 1, sizeof *t->draft);
	t->draft_why = xcalloc(ds->nruns + 1, sizeof *t->draft_why);
	t->draft_verdict = xcalloc(ds->nruns + 1, sizeof *t->draft_verdict);
	t->hint_run = -1;
	/* the directory listed once: a stat(2) a run, twice, was a third of
	 * the browser's first screen at 14,000 runs */
	struct dirlist dl = { 0 };
	if (dir)
		dirlist_read(&dl, dir);
	for (size_t i = 0; i < ds->nruns; i++) {
		char *p;
		if (!dir)     /* the dataset's own: its index saw each file's version */
			t->seen[i] = ds->runs[i].annotation_mtime_ns;
		else if ((p = tag_path(t, i))) {   /* another directory: its verdicts are the ones to show */
			int there = dirlist_has(&dl, dir, strrchr(p, '/') + 1, 0);
			dataset_set_verdict(ds, i, there ? p : NULL);
			t->seen[i] = there ? annot_mtime_ns(p) : 0;
			free(p);
		}
	}
	dirlist_free(&dl);
	t->blind = blind_new(ds, blind);
	return t;
}

void tag_set_ask(struct tag *t, int (*ask)(void *ctx, const char *question), void *ctx)
{
	t->ask = ask;
	t->ask_ctx = ctx;
}

void tag_free(struct tag *t)
{
	if (!t)
		return;
	for (size_t k = 0; k < t->nundo; k++)
		annotate_undo_free(t->undo[k].undo);
	free(t->undo);
	blind_free(t->blind);
	free(t->seen);
	free(t->seenv);
	free(t->full);
	for (size_t i = 0; i < t->ds->nruns; i++) {
		free(t->draft[i]);
		free(t->draft_why[i]);
	}
	free(t->draft);
	free(t->draft_why);
	free(t->draft_verdict);
	free(t->dir);
	free(t->annotator);
	free(t);
}

/* ---- writing ----------------------------------------------------------------------- */

/* The first schema message worth a status bar: the missing implication in
 * words that say what to do, else the first message without its file and
 * line (safe, owned); NULL when none. */
static char *tag_schema_note(const char *msgs)
{
	if (!msgs)
		return NULL;
	if (strstr(msgs, "`implication` is required"))
		return xstrdup("implication missing (the schema requires one unless the verdict is clean): A to write it");
	const char *p = strstr(msgs, ": error: ");
	if (!p)
		p = strstr(msgs, ": warning: ");
	if (!p)
		return NULL;
	p += 2;
	const char *nl = strchr(p, '\n');
	char *one = nl ? xstrndup(p, (size_t)(nl - p)) : xstrdup(p);
	char *s = draw_safe(one);
	free(one);
	return s;
}

/* The version of run i's file this session last saw. Until it read or
 * wrote the file itself, the dataset's mtime is all it knows: the file as
 * it is now stands for it when the mtimes agree (no stat a run at start). */
static void tag_seen(struct tag *t, size_t i, const char *path, struct annot_version *v)
{
	if (t->full[i]) {
		*v = t->seenv[i];
		return;
	}
	annot_version_get(path, v);
	if (v->exists != (t->seen[i] != 0) || (v->exists && v->mtime_ns != t->seen[i]))
		v->size = -1;  /* not what was seen */
}

/* Reads run i's file again when it is no longer the version seen; 1 when
 * it was. */
static int tag_check(struct tag *t, size_t i)
{
	char *p = tag_path(t, i);
	struct annot_version now, seen;
	int changed = 0;
	if (!p)
		return 0;
	annot_version_get(p, &now);
	tag_seen(t, i, p, &seen);
	if (!annot_version_same(&now, &seen)) {
		tag_reload(t, i);
		changed = 1;
	}
	free(p);
	return changed;
}

/* Runs whose files a poll looks at besides the one on screen: a dataset
 * of 14,000 runs is gone through in under a minute of idling. */
#define TAG_POLL_SLICE 256
#define TAG_POLL_EVERY_MS 200

int tag_poll(struct tag *t, long sel)
{
	struct annot_version d;
	int changed = 0;
	if (!t)
		return 0;
	/* a file written in place leaves the directory as it was: the run on
	 * screen is looked at each time */
	if (sel >= 0 && (size_t)sel < t->ds->nruns)
		changed += tag_check(t, (size_t)sel);
	/* the rest at most five times a second: a loop that polls without
	 * waiting (runs being flagged) would stat all day */
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long long ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	if (t->dir_seen_set && ms - t->polled_ms < TAG_POLL_EVERY_MS)
		return changed;
	t->polled_ms = ms;
	/* a file renamed in or out (kbtui's writes, most editors', another
	 * annotator's) changes the directory: every run is looked at then */
	annot_version_get(t->dir, &d);
	if (!t->dir_seen_set) {
		t->dir_seen = d;
		t->dir_seen_set = 1;
	} else if (!annot_version_same(&d, &t->dir_seen)) {
		t->dir_seen = d;
		for (size_t i = 0; i < t->ds->nruns; i++)
			changed += tag_check(t, i);
	}
	/* and the others a slice a poll */
	for (size_t k = 0; k < TAG_POLL_SLICE && k < t->ds->nruns; k++) {
		t->poll_next = (t->poll_next + 1) % t->ds->nruns;
		if ((long)t->poll_next != sel)
			changed += tag_check(t, t->poll_next);
	}
	return changed;
}

unsigned tag_generation(const struct tag *t)
{
	return t ? t->generation : 0;
}

void tag_hint_line(struct tag *t, long i, int line)
{
	if (!t)
		return;
	t->hint_run = i;
	t->hint_line = line;
}

/* R: every verdict read again from the files. */
static void tag_reload_all(struct tag *t, char **msg)
{
	size_t n = 0;
	for (size_t i = 0; i < t->ds->nruns; i++) {
		tag_reload(t, i);
		n += t->ds->runs[i].verdict != NULL;
	}
	annot_version_get(t->dir, &t->dir_seen);
	t->dir_seen_set = 1;
	*msg = xasprintf("annotations read again: %zu run%s with a verdict", n, n == 1 ? "" : "s");
}

/* What tag_write asks annotate_apply when the file changed since this
 * session read it: nothing is written; the other version is shown (*msg
 * says so), so a second key press writes over it knowingly. */
struct tag_stale {
	struct tag *t;
	size_t i;
	const char *path;
	char **msg;
};

static int tag_stale_ask(void *ctx, const char *question)
{
	struct tag_stale *s = ctx;
	(void)question;
	tag_reload(s->t, s->i);
	char *f = tag_short(s->path), *v = draw_safe(s->t->ds->runs[s->i].verdict ? s->t->ds->runs[s->i].verdict : "none");
	*s->msg = xasprintf("%s changed on disk since kbtui read it (another annotator?): not written; "
	                    "its verdict now: %s; the key again overwrites it", f, v);
	free(f);
	free(v);
	return 0;
}

/* Applies ch to run i's file; what = the change as the message names it. */
static int tag_write(struct tag *t, size_t i, struct annotate_change *ch, const char *what, char **msg)
{
	int needs = 0;
	struct annotate_result res;
	char *path = tag_path(t, i);
	if (!path) {
		*msg = xstrdup("this run has no run id that can name an annotation file");
		return 0;
	}
	if (!util_is_dir(t->dir) && mkdir(t->dir, 0777) != 0 && errno != EEXIST) {
		char *d = draw_safe(t->dir);
		*msg = xasprintf("%s: cannot create the annotation directory: %s", d, strerror(errno));
		free(d);
		free(path);
		return 0;
	}
	struct annot_version seen;
	struct tag_stale stale = {t, i, path, msg};
	struct annotate_confirm confirm = {tag_stale_ask, &stale};
	tag_seen(t, i, path, &seen);
	ch->annotator = t->annotator;
	ch->meta = &t->ds->runs[i].meta;
	/* never a file `annotations check` rejects: the verdict keys ask for a
	 * missing implication first (tag_verdict), anything else invalid is
	 * refused with the schema's reason */
	ch->allow_errors = 0;
	memset(&res, 0, sizeof res);
	enum annotate_status st = annotate_apply(path, ch, &seen, &confirm, &res);
	if (st == ANNOTATE_OK && res.undo) {
		if (t->nundo == t->capundo)
			t->undo = xrealloc(t->undo, (t->capundo = t->capundo ? t->capundo * 2 : 16) * sizeof *t->undo);
		t->undo[t->nundo].undo = res.undo;
		t->undo[t->nundo].run = i;
		t->nundo++;
		res.undo = NULL;
		tag_reload(t, i);
		char *f = tag_short(path), *note = tag_schema_note(res.msgs);
		*msg = xasprintf("%s written to %s%s%s", what, f, note ? "; " : "", note ? note : "");
		free(note);
		free(f);
	} else if (st == ANNOTATE_INVALID) {
		needs = res.needs_implication;
		char *note = tag_schema_note(res.msgs);
		*msg = xasprintf("%s not written: the schema refuses the file: %s", what, note ? note : "invalid");
		free(note);
	} else if (!*msg) {
		char *why = draw_safe(res.err ? res.err : res.msgs ? res.msgs : "not written");
		*msg = xasprintf("not written: %s", why);
		free(why);
	}
	annotate_result_free(&res);
	free(path);
	return needs;
}

static void tag_edit(struct tag *t, size_t i, const char *verdict, char **msg);

/* A verdict key: written at once; when the schema says the verdict needs
 * an implication the file lacks (annotate_apply's implied field), the
 * editor asks for it rather than leave a file `annotations check` rejects. */
static void tag_verdict(struct tag *t, size_t i, const char *verdict, char **msg)
{
	struct annotate_change ch;
	memset(&ch, 0, sizeof ch);
	ch.verdict = verdict;
	if (tag_write(t, i, &ch, verdict, msg)) {
		free(*msg);
		*msg = NULL;
		tag_edit(t, i, verdict, msg);
	}
}

int tag_apply(struct tag *t, long i, struct annotate_change *ch, const char *what, char **msg)
{
	size_t before;
	*msg = NULL;
	if (!t || i < 0 || (size_t)i >= t->ds->nruns)
		return -1;
	before = t->nundo;
	tag_write(t, (size_t)i, ch, what, msg);
	return t->nundo > before;
}

static void tag_undo(struct tag *t, char **msg)
{
	char *err = NULL;
	if (!t->nundo) {
		*msg = xstrdup("nothing to undo in this session");
		return;
	}
	struct tag_change *c = &t->undo[t->nundo - 1];
	if (annotate_undo(c->undo, &err) != 0) {
		char *e = draw_safe(err);
		*msg = xasprintf("cannot undo: %s", e);
		free(e);
		free(err);
		return;
	}
	char *f = tag_short(c->undo->path);
	*msg = c->undo->existed ? xasprintf("undone: %s is back as it was", f)
	                        : xasprintf("undone: %s removed (it was new)", f);
	free(f);
	tag_reload(t, c->run);
	annotate_undo_free(c->undo);
	t->nundo--;
}

/* ---- the editor round trip ------------------------------------------------------------- */

/* Field text as the editor shows it, and as compared after: no trailing
 * blank space. Owned. */
static char *tag_trim(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return xstrndup(s ? s : "", n);
}

/* The note file: two headings, "summary:" and "implication:", each on a
 * line of its own, the text under them; lines starting with '#' are
 * comments. Lines of one paragraph are joined with spaces (as YAML's folded
 * style reads them); a blank line separates paragraphs. */
static void tag_note_parse(const char *text, char **summary, char **impl)
{
	struct sbuf f[2];
	int cur = -1, blank[2] = {0, 0};
	sbuf_init(&f[0]);
	sbuf_init(&f[1]);
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, n), *body = line;
		size_t len = n;
		while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (line[0] == '#') {
			/* a comment */
		} else if (!strncmp(line, "summary:", 8) || !strncmp(line, "implication:", 12)) {
			cur = line[0] == 's' ? 0 : 1;
			body = line + (cur ? 12 : 8);
			while (*body == ' ')
				body++;
			if (*body)
				sbuf_adds(&f[cur], body);
		} else if (cur >= 0 && !*line) {
			blank[cur] = f[cur].len > 0;
		} else if (cur >= 0) {
			if (f[cur].len)
				sbuf_adds(&f[cur], blank[cur] ? "\n\n" : " ");
			blank[cur] = 0;
			while (*body == ' ' || *body == '\t')
				body++;
			sbuf_adds(&f[cur], body);
		}
		free(line);
		p += n + (nl ? 1 : 0);
	}
	*summary = f[0].len ? sbuf_detach(&f[0]) : xstrdup("");
	*impl = f[1].len ? sbuf_detach(&f[1]) : xstrdup("");
	sbuf_free(&f[0]);
	sbuf_free(&f[1]);
}

/* Runs $VISUAL (else $EDITOR, else vi) on path, at line when it is over
 * 0 (+LINE, which vi, vim, nano, emacs and most others take), with the
 * screen handed over to it; its exit status, or -1 when it could not be
 * started. */
static int tag_run_editor(const char *path, int line)
{
	const char *ed = getenv("VISUAL");
	struct sigaction ign, oint, oquit;
	int status = -1;
	if (!ed || !*ed)
		ed = getenv("EDITOR");
	if (!ed || !*ed)
		ed = "vi";
	/* the editor may carry arguments: the shell splits it */
	char *cmd = line > 0 ? xasprintf("%s +%d \"$1\"", ed, line) : xasprintf("%s \"$1\"", ed);
	def_prog_mode();
	endwin();
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	/* Ctrl-C in the editor is the editor's, not a reason to end kbtui */
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execl("/bin/sh", "sh", "-c", cmd, "sh", path, (char *)NULL);
		_exit(127);
	}
	if (pid > 0) {
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	}
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	reset_prog_mode();
	clearok(curscr, TRUE);
	refresh();
	free(cmd);
	return status;
}

/* The text the editor starts with (owned). */
static char *tag_note_text(const struct tag *t, size_t i, const char *verdict, const char *summary,
                           const char *impl)
{
	const struct ds_run *r = &t->ds->runs[i];
	char *s = tag_trim(summary), *m = tag_trim(impl);
	char *text = xasprintf("# kbtui: summary and implication of %s (verdict: %s).\n"
	                       "%s"
	                       "# Write each field's text under its heading; a blank line starts a\n"
	                       "# new paragraph; lines starting with # are ignored. Save and quit to\n"
	                       "# write the annotation; quit without saving to change nothing.\n"
	                       "summary:\n%s%s\n"
	                       "implication:\n%s%s",
	                       blind_on(t->blind) ? "this run (blind mode)" : r->meta.run_id,
	                       verdict ? verdict : r->verdict ? r->verdict : "none",
	                       verdict ? "# The schema requires an implication for every verdict but clean:\n"
	                                 "# the verdict is written with it, or not at all.\n" : "",
	                       s, *s ? "\n" : "", m, *m ? "\n" : "");
	free(s);
	free(m);
	return text;
}

/* The note text of run i's draft for the editor (owned): why it was not
 * written as a comment on top, the text as it was typed under it. */
static char *tag_draft_text(const struct tag *t, size_t i)
{
	struct sbuf b;
	sbuf_init(&b);
	sbuf_addf(&b, "# kbtui: NOT WRITTEN: %s\n"
	          "# kbtui: your text as you left it; save to try again, or delete every\n"
	          "# kbtui: line but these comments and save to drop it.\n",
	          t->draft_why[i] ? t->draft_why[i] : "refused");
	for (const char *p = t->draft[i]; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
		if (strncmp(p, "# kbtui: ", 9) != 0)  /* the last refusal's comment goes */
			sbuf_add(&b, p, n);
		p += n;
	}
	return sbuf_detach(&b);
}

/* Keeps text (NULL: none) as run i's draft, refused for why (safe, one
 * line); *msg gains that it was kept. A draft left with no field text
 * (every line deleted) is dropped. */
static void tag_keep_draft(struct tag *t, size_t i, const char *text, const char *verdict, const char *why,
                           char **msg)
{
	char *sum = NULL, *imp = NULL;
	if (text) {
		tag_note_parse(text, &sum, &imp);
		if (!*sum && !*imp && t->draft[i])
			text = NULL;  /* emptied: the annotator let it go */
	}
	free(sum);
	free(imp);
	free(t->draft[i]);
	free(t->draft_why[i]);
	t->draft[i] = text ? xstrdup(text) : NULL;
	t->draft_why[i] = text ? xstrdup(why) : NULL;
	t->draft_verdict[i] = text ? verdict : NULL;
	if (text) {
		char *m = xasprintf("%s; your text is kept: A offers it again", *msg);
		free(*msg);
		*msg = m;
	}
}

/* The $EDITOR round trip for summary and implication; with verdict set
 * (a verdict key on a file without an implication), the verdict is written
 * together with the implication, and not at all without one. */
static void tag_edit(struct tag *t, size_t i, const char *verdict, char **msg)
{
	char *path = tag_path(t, i), *err = NULL, *sum0 = NULL, *imp0 = NULL;
	if (!path) {
		*msg = xstrdup("this run has no run id that can name an annotation file");
		return;
	}
	if (util_is_file(path)) {
		int line;
		struct annot *a = annot_load(path, &line, &err);
		if (!a) {
			char *e = draw_safe(err);
			*msg = xasprintf("cannot edit: %s", e);
			free(e);
			free(err);
			free(path);
			return;
		}
		sum0 = tag_trim(annot_get(a, "summary"));
		imp0 = tag_trim(annot_get(a, "implication"));
		annot_free(a);
	} else {
		sum0 = xstrdup("");
		imp0 = xstrdup("");
	}
	const char *tmpdir = getenv("TMPDIR");
	char *tmp = xasprintf("%s/kbtui-note-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	int from_draft = t->draft[i] != NULL;
	char *before = from_draft ? tag_draft_text(t, i) : tag_note_text(t, i, verdict, sum0, imp0);
	size_t undone = t->nundo;
	int refused = 0;
	int fd = mkstemp(tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f || fputs(before, f) < 0 || fclose(f) != 0) {
		*msg = xasprintf("cannot write a temporary file in %s: %s", tmpdir && *tmpdir ? "$TMPDIR" : "/tmp",
		                 strerror(errno));
		if (fd >= 0 && !f)
			close(fd);
		goto out;
	}
	int rc = tag_run_editor(tmp, 0);
	size_t len = 0;
	char *after = rc == 0 ? util_read_file(tmp, &len) : NULL;
	if (rc != 0) {
		*msg = rc < 0 ? xstrdup("cannot start the editor: nothing changed")
		              : xasprintf("the editor exited with status %d: nothing changed", rc);
	} else if (!after) {
		*msg = xstrdup("the note file is gone: nothing changed");
	} else if (!strcmp(after, before) && !verdict && !from_draft) {
		*msg = xstrdup("note unchanged: nothing written");
	} else {
		char *sum, *imp;
		tag_note_parse(after, &sum, &imp);
		if (from_draft && !*sum && !*imp) {
			*msg = xstrdup("draft dropped: nothing written");
			tag_keep_draft(t, i, NULL, NULL, NULL, msg);
			free(sum);
			free(imp);
			free(after);
			goto out;
		}
		struct annotate_change ch;
		memset(&ch, 0, sizeof ch);
		ch.summary = strcmp(sum, sum0) ? sum : NULL;  /* untouched fields keep their YAML style */
		ch.implication = strcmp(imp, imp0) ? imp : NULL;
		ch.verdict = verdict;
		if (verdict && !*imp) {
			*msg = xasprintf("%s not written: the schema requires an implication for every verdict "
			                 "but clean, and none was given", verdict);
			refused = 1;
		} else if (verdict) {
			tag_write(t, i, &ch, verdict, msg);
			refused = t->nundo == undone;
		} else if (!ch.summary && !ch.implication) {
			*msg = xstrdup("summary and implication unchanged: nothing written");
		} else {
			tag_write(t, i, &ch,
			          ch.summary && ch.implication ? "summary and implication" : ch.summary ? "summary" : "implication",
			          msg);
			refused = t->nundo == undone;
		}
		free(sum);
		free(imp);
		tag_keep_draft(t, i, refused ? after : NULL, verdict, *msg, msg);
	}
	free(after);
out:
	unlink(tmp);
	free(tmp);
	free(before);
	free(sum0);
	free(imp0);
	free(path);
}

/* Y: the run's YAML itself in the editor, at the line of the quote the
 * annotation pane has selected, read again afterwards and checked. */
static void tag_yaml(struct tag *t, size_t i, char **msg)
{
	char *path = tag_path(t, i), *err = NULL, *msgs = NULL;
	int line = 0;
	if (!path) {
		*msg = xstrdup("this run has no run id that can name an annotation file");
		return;
	}
	char *f = tag_short(path);
	if (!util_is_file(path)) {
		*msg = xasprintf("%s does not exist yet: a verdict key (K L H I B) writes it", f);
		free(f);
		free(path);
		return;
	}
	int rc = tag_run_editor(path, t->hint_run == (long)i ? t->hint_line : 0);
	tag_reload(t, i);
	struct annot *a = annot_load(path, &line, &err);
	if (rc < 0) {
		*msg = xstrdup("cannot start the editor: nothing changed");
	} else if (!a) {
		char *e = draw_safe(err);
		*msg = xasprintf("%s is not YAML now (%s): it is listed without a verdict, and kbtui writes "
		                 "nothing into it until it is mended", f, e);
		free(e);
	} else {
		int errors = annot_check(a, &msgs);
		char *v = draw_safe(t->ds->runs[i].verdict ? t->ds->runs[i].verdict : "none");
		*msg = errors ? xasprintf("%s read again: verdict %s; %d schema error%s (annotations check names them)", f,
		                          v, errors, errors == 1 ? "" : "s")
		              : xasprintf("%s read again: verdict %s", f, v);
		free(v);
	}
	annot_free(a);
	free(msgs);
	free(err);
	free(f);
	free(path);
}

/* ---- the views' entry points ------------------------------------------------------------ */

/* A run without a transcript (held out) has not been read: one stray key
 * must not give it a verdict, so ask first. 1 for y. */
static int tag_ask_no_transcript(const struct tag *t, size_t i, const char *verdict)
{
	char *id = blind_on(t->blind) ? xstrdup("this run") : draw_safe(t->ds->runs[i].meta.run_id);
	char *q = xasprintf(" %s has no transcript here: write verdict %s anyway? y/n", id, verdict);
	int yes = t->ask && t->ask(t->ask_ctx, q);
	free(q);
	free(id);
	return yes;
}

int tag_act(struct tag *t, enum action a, long i, char **msg)
{
	const char *verdict = tag_verdict_of_action(a);
	*msg = NULL;
	if (!verdict && a != ACT_EDIT_NOTE && a != ACT_UNDO && a != ACT_BLIND && a != ACT_NEXT_UNANNOTATED &&
	    a != ACT_RELOAD && a != ACT_EDIT_YAML)
		return 0;
	if (!t) {
		*msg = xstrdup("annotating needs a dataset: open a dataset directory");
		return 1;
	}
	if (a == ACT_NEXT_UNANNOTATED)
		return 0;  /* the view's own: it knows its order */
	if (a == ACT_UNDO) {
		tag_undo(t, msg);
	} else if (a == ACT_RELOAD) {
		tag_reload_all(t, msg);
	} else if (a == ACT_BLIND) {
		blind_set(t->blind, !blind_on(t->blind));
		*msg = xstrdup(blind_on(t->blind) ? "blind mode: models and harnesses hidden (x shows them)" : "blind mode off");
	} else if (i < 0 || (size_t)i >= t->ds->nruns) {
		*msg = xstrdup("no run selected");
	} else if (verdict && !t->ds->runs[i].transcript && !tag_ask_no_transcript(t, (size_t)i, verdict)) {
		*msg = xasprintf("%s not written: the run has no transcript here (nothing was read)", verdict);
	} else if (verdict) {
		tag_verdict(t, (size_t)i, verdict, msg);
	} else if (a == ACT_EDIT_YAML) {
		tag_yaml(t, (size_t)i, msg);
	} else {
		/* a draft goes on with the verdict that asked for it */
		tag_edit(t, (size_t)i, t->draft_verdict[i], msg);
	}
	return 1;
}

long tag_next_unannotated(const struct tag *t, const size_t *order, size_t n, size_t from)
{
	for (size_t k = 1; t && k <= n; k++) {
		size_t j = (from + k) % n;
		const struct ds_run *r = &t->ds->runs[order[j]];
		if (!r->verdict && r->transcript && j != from)
			return (long)j;
	}
	return -1;
}

void tag_counts(const struct tag *t, struct sbuf *b)
{
	const struct dataset *ds = t->ds;
	size_t none = 0, nother = 0;
	const char **other = xcalloc(ds->nruns + 1, sizeof *other);
	for (int v = 0; annot_verdicts[v]; v++) {
		size_t c = 0;
		for (size_t i = 0; i < ds->nruns; i++)
			c += ds->runs[i].verdict && !strcmp(ds->runs[i].verdict, annot_verdicts[v]);
		if (c)
			sbuf_addf(b, "  %s %zu", annot_verdicts[v], c);
	}
	for (size_t i = 0; i < ds->nruns; i++) {
		const char *v = ds->runs[i].verdict;
		int known = 0;
		none += !v;
		for (int k = 0; v && annot_verdicts[k]; k++)
			known |= !strcmp(v, annot_verdicts[k]);
		if (v && !known)
			other[nother++] = v;
	}
	qsort(other, nother, sizeof *other, tag_cmp_str);
	for (size_t k = 0; k < nother;) {
		size_t e = k;
		while (e < nother && !strcmp(other[e], other[k]))
			e++;
		char *s = draw_safe(other[k]);
		sbuf_addf(b, "  %s %zu", s, e - k);
		free(s);
		k = e;
	}
	sbuf_addf(b, "  unannotated %zu", none);
	free(other);
}

char *tag_verdict_label(const struct tag *t, size_t i)
{
	const char *v = t && i < t->ds->nruns ? t->ds->runs[i].verdict : NULL;
	if (!v)
		return xstrdup("unannotated");
	char *s = draw_safe(v), *r = xasprintf("verdict %s", s);
	free(s);
	return r;
}

char *tag_annotation_path(const struct tag *t, size_t i)
{
	return t && i < t->ds->nruns ? tag_path(t, i) : NULL;
}

const char *tag_keys_hint(void)
{
	return tag_hint;
}

int tag_filter(const char *filter, const char *verdict)
{
	if (strncasecmp(filter, "verdict:", 8))
		return -1;
	const char *want = filter + 8;
	if (!*want)
		return verdict != NULL;
	if (!strcasecmp(want, "none") || !strcmp(want, "-"))
		return verdict == NULL;
	return verdict && !strcasecmp(verdict, want);
}
