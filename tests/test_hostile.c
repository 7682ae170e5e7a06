/* test_hostile.c: transcripts written to hurt the reader. Huge lines and
 * results are generated at test time into temporary files (never committed)
 * and loaded in a child, so that the child's peak RSS measures what one
 * load costs. */
#include <errno.h>
#include <stdint.h>
#include <wchar.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tap.h"
#include "annot.h"
#include "benchlog.h"
#include "cmd.h"
#include "formula.h"
#include "parser.h"
#include "run.h"
#include "textsafe.h"
#include "util.h"

#if defined(__SANITIZE_ADDRESS__)
#define HOSTILE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HOSTILE_ASAN 1
#endif
#endif
#ifndef HOSTILE_ASAN
#define HOSTILE_ASAN 0
#endif

#define MB (1024L * 1024L)

static char tmpdir[] = "/tmp/kbhostile.XXXXXX";

static char *tmpfile_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

/* Writes head, n bytes of fill, tail, as one file. */
static void write_big(const char *path, const char *head, char fill, size_t n, const char *tail)
{
	FILE *f = fopen(path, "wb");
	char *blk = xmalloc(MB);
	memset(blk, fill, MB);
	fputs(head, f);
	for (size_t left = n; left;) {
		size_t k = left < (size_t)MB ? left : (size_t)MB;
		fwrite(blk, 1, k, f);
		left -= k;
	}
	fputs(tail, f);
	fclose(f);
	free(blk);
}

static void write_text(const char *path, const char *s, size_t n)
{
	FILE *f = fopen(path, "wb");
	fwrite(s, 1, n, f);
	fclose(f);
}

/* What a child saw loading one file. */
struct load_report {
	long maxrss_kb;
	size_t nev, malformed, ntool_result, longest;
	int loaded, first_error_line, linked;
	char first_kind[16];
};

static struct load_report load_in_child(const char *path)
{
	struct load_report rep;
	int fd[2];
	pid_t pid;
	memset(&rep, 0, sizeof rep);
	if (pipe(fd) != 0)
		return rep;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct load_report r;
		struct rusage ru;
		char *err = NULL;
		struct run *run = parser_load_file(path, NULL, &err);
		memset(&r, 0, sizeof r);
		if (run) {
			r.loaded = 1;
			r.nev = run->nev;
			r.malformed = (size_t)run->malformed;
			r.first_error_line = run->nerrors ? run->errors[0].line : 0;
			r.linked = 1;
			for (size_t i = 0; i < run->nev; i++) {
				const struct event *e = &run->ev[i];
				size_t l = e->text ? strlen(e->text) : 0;
				if (l > r.longest)
					r.longest = l;
				if (e->kind == EV_TOOL_RESULT) {
					r.ntool_result++;
					if (e->link < 0)
						r.linked = 0;
				}
			}
			if (run->nev)
				snprintf(r.first_kind, sizeof r.first_kind, "%s", ev_kind_name(run->ev[0].kind));
		}
		getrusage(RUSAGE_SELF, &ru);
		r.maxrss_kb = ru.ru_maxrss;
		if (write(fd[1], &r, sizeof r) != (ssize_t)sizeof r)
			_exit(2);
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], &rep, sizeof rep) != (ssize_t)sizeof rep)
		memset(&rep, 0, sizeof rep);
	close(fd[0]);
	waitpid(pid, NULL, 0);
	return rep;
}

/* The RSS bound: factor x the hostile payload (plus a fixed 64 MB for the
 * program itself). Sanitizer builds keep freed memory in quarantine and
 * shadow every byte, so there the number is only reported. */
static void check_rss(const struct load_report *r, size_t payload, const char *what, int factor)
{
	double ratio = (double)r->maxrss_kb * 1024.0 / (double)payload;
	printf("# %s: peak RSS %ld MB for a %zu MB payload (%.2fx)\n", what, r->maxrss_kb / 1024,
	       payload / MB, ratio);
	if (HOSTILE_ASAN)
		tap_skip("RSS bound not checked under AddressSanitizer");
	else
		ok((size_t)r->maxrss_kb * 1024 < (size_t)factor * payload + 64 * MB, "%s: peak RSS below %dx the payload",
		   what, factor);
}

static void test_huge_line(void)
{
	/* a grok text event whose one line is 200 MB */
	size_t n = 200 * MB;
	char *p = tmpfile_path("huge_line.jsonl");
	write_big(p, "{\"type\":\"text\",\"data\":\"", 'A', n, "\"}\n{\"type\":\"end\",\"sessionId\":\"s\"}\n");
	struct load_report r = load_in_child(p);
	ok(r.loaded, "200 MB line: loaded without crashing");
	is_int(r.nev, 1, "200 MB line: read as one event");
	is_str(r.first_kind, "text", "200 MB line: the event is the text");
	is_int(r.longest, n, "200 MB line: its text is whole");
	is_int(r.malformed, 0, "200 MB line: no malformed line");
	/* the line and its one string: the text is moved out of the parsed
	 * tree into the event, not copied (it was 4x before) */
	check_rss(&r, n, "200 MB line", 3);
	unlink(p);
	free(p);

	/* the same size of bytes that are no JSON at all: one malformed line */
	p = tmpfile_path("huge_garbage.jsonl");
	write_big(p, "{\"type\":\"text\",\"data\":\"ok\"}\n", 'x', n, "\n{\"type\":\"end\",\"sessionId\":\"s\"}\n");
	r = load_in_child(p);
	ok(r.loaded, "200 MB garbage line: loaded without crashing");
	is_int(r.malformed, 1, "200 MB garbage line: one malformed line");
	is_int(r.first_error_line, 2, "200 MB garbage line: reported at line 2");
	is_int(r.nev, 1, "200 MB garbage line: the good line before it still read");
	check_rss(&r, n, "200 MB garbage line", 3);
	unlink(p);
	free(p);
}

static void test_huge_result(void)
{
	/* a claude tool_use answered by a 50 MB tool_result */
	size_t n = 50 * MB;
	char *p = tmpfile_path("huge_result.jsonl");
	write_big(p,
	          "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s1\",\"model\":\"m\",\"cwd\":\"/w\"}\n"
	          "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\","
	          "\"id\":\"t1\",\"name\":\"Bash\",\"input\":{\"command\":\"yes\"}}]},\"session_id\":\"s1\"}\n"
	          "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"t1\",\"type\":\"tool_result\","
	          "\"content\":\"",
	          'y', n, "\"}]},\"session_id\":\"s1\"}\n");
	struct load_report r = load_in_child(p);
	ok(r.loaded, "50 MB tool result: loaded");
	is_int(r.ntool_result, 1, "50 MB tool result: one tool_result");
	ok(r.linked, "50 MB tool result: linked to its call");
	is_int(r.longest, n, "50 MB tool result: content whole");
	is_int(r.malformed, 0, "50 MB tool result: no malformed line");
	check_rss(&r, n, "50 MB tool result", 4);
	unlink(p);
	free(p);
}

static struct run *load_mem(const char *s, size_t n)
{
	struct run *r = run_new();
	struct reader *rd = reader_new(r, NULL);
	reader_feed(rd, s, n);
	reader_finish(rd);
	reader_free(rd);
	return r;
}

static void test_deep_nesting(void)
{
	int depth = 10000;
	struct sbuf b;
	sbuf_init(&b);
	sbuf_addf(&b, "{\"type\":\"thought\",\"data\":\"before\"}\n{\"type\":\"text\",\"data\":");
	for (int i = 0; i < depth; i++)
		sbuf_add(&b, "[", 1);
	for (int i = 0; i < depth; i++)
		sbuf_add(&b, "]", 1);
	sbuf_addf(&b, "}\n{\"type\":\"text\",\"data\":\"after\"}\n{\"type\":\"end\",\"sessionId\":\"s\"}\n");
	struct run *r = load_mem(b.s, b.len);
	is_int(r->malformed, 1, "10,000-deep JSON: the deep line refused as malformed");
	is_int(r->nerrors ? r->errors[0].line : 0, 2, "10,000-deep JSON: reported at line 2");
	is_int(r->nev, 2, "10,000-deep JSON: the lines around it still read");
	if (r->nev == 2) {
		is_str(r->ev[0].text, "before", "10,000-deep JSON: line 1 text");
		is_str(r->ev[1].text, "after", "10,000-deep JSON: line 3 text");
	}
	ok(!r->incomplete, "10,000-deep JSON: the end marker after it still seen");
	run_free(r);

	/* the deep line first: the sniffer must survive it too */
	r = load_mem(b.s + strlen("{\"type\":\"thought\",\"data\":\"before\"}\n"),
	             b.len - strlen("{\"type\":\"thought\",\"data\":\"before\"}\n"));
	is_int(r->nev, 1, "10,000-deep JSON first: the next line read");
	is_int(r->malformed, 1, "10,000-deep JSON first: one malformed line");
	run_free(r);
	sbuf_free(&b);

	/* formulas and annotation YAML nest too */
	sbuf_init(&b);
	for (int i = 0; i < depth; i++)
		sbuf_add(&b, "(", 1);
	sbuf_add(&b, "1", 1);
	for (int i = 0; i < depth; i++)
		sbuf_add(&b, ")", 1);
	double v = 0;
	struct formula_error fe;
	is_int(formula_eval(b.s, NULL, 0, &v, &fe), -1, "10,000-deep formula refused");
	sbuf_reset(&b);
	sbuf_addf(&b, "run_id: r\nnotes: ");
	for (int i = 0; i < depth; i++)
		sbuf_add(&b, "[", 1);
	for (int i = 0; i < depth; i++)
		sbuf_add(&b, "]", 1);
	sbuf_add(&b, "\n", 1);
	char *p = tmpfile_path("deep.yaml");
	write_text(p, b.s, b.len);
	int line = 0;
	char *err = NULL;
	struct annot *a = annot_load(p, &line, &err);
	ok(a == NULL, "10,000-deep YAML annotation refused");
	has_str(err, "deep", "10,000-deep YAML: the message says why");
	annot_free(a);
	free(err);
	unlink(p);
	free(p);
	sbuf_free(&b);
}

static void test_bad_bytes(void)
{
	/* invalid UTF-8 raw in the line, and a NUL escaped in the JSON */
	static const char t[] = "{\"type\":\"text\",\"data\":\"bad \xff\xfe\xc0\xaf ok\"}\n"
	                        "{\"type\":\"thought\",\"data\":\"nul\\u0000after\"}\n"
	                        "{\"type\":\"text\",\"data\":\"last\"}\n"
	                        "{\"type\":\"end\",\"sessionId\":\"s\"}\n";
	struct run *r = load_mem(t, sizeof t - 1);
	is_int(r->malformed, 0, "invalid UTF-8 / escaped NUL: no malformed line");
	is_int(r->nev, 3, "invalid UTF-8 / escaped NUL: three events");
	if (r->nev == 3) {
		is_str(r->ev[0].text, "bad \xff\xfe\xc0\xaf ok", "invalid UTF-8 stored as-is");
		char *s = textsafe(r->ev[0].text, strlen(r->ev[0].text), 0);
		is_str(s, "bad <FF><FE><C0><AF> ok", "textsafe shows each invalid byte as <XX>");
		free(s);
		ok(r->ev[1].text && !strncmp(r->ev[1].text, "nul", 3), "escaped NUL: the text before it kept");
		is_str(r->ev[1].text, "nul\xe2\x90\x80" "after", "escaped NUL: shown as U+2400, the text after it kept too");
		is_str(r->ev[2].text, "last", "the line after the NUL read");
	}
	run_free(r);

	/* a raw NUL byte inside a line: the line is read, its string ends at
	 * the NUL (events hold C strings), and the lines after it are read */
	static const char t2[] = "{\"type\":\"text\",\"data\":\"one\"}\n"
	                         "{\"type\":\"thought\",\"data\":\"raw\0nul\"}\n"
	                         "{\"type\":\"text\",\"data\":\"three\"}\n"
	                         "{\"type\":\"end\",\"sessionId\":\"s\"}\n";
	r = load_mem(t2, sizeof t2 - 1);
	is_int(r->malformed, 0, "raw NUL byte: no malformed line");
	is_int(r->nev, 3, "raw NUL byte: all three lines read");
	if (r->nev == 3) {
		is_str(r->ev[1].text, "raw", "raw NUL byte: the text ends at the NUL");
		is_str(r->ev[2].text, "three", "raw NUL byte: the line after it read");
	}
	ok(!r->incomplete, "raw NUL byte: the end marker after it seen");
	run_free(r);

	/* textsafe with a NUL inside its length */
	char *s = textsafe("a\0b", 3, 0);
	is_str(s, "a^@b", "textsafe shows a NUL as ^@");
	free(s);
}

/* 1 when s[0..n) has a byte a terminal would act on: C0 but \n, DEL, ESC,
 * BEL, or a C1 control encoded in UTF-8 (C2 80..C2 9F) or raw. */
static int has_control(const char *s, size_t n, int allow_nl)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n; i++) {
		if ((u[i] < 0x20 && !(allow_nl && u[i] == '\n')) || u[i] == 0x7f)
			return 1;
		if (u[i] == 0xc2 && i + 1 < n && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f)
			return 1;
		if (u[i] >= 0x80 && u[i] <= 0x9f && (i == 0 || u[i - 1] != 0xc2))
			return 1;
	}
	return 0;
}

static char *dump_of(const char *path, int jsonl, size_t *n)
{
	char *buf = NULL;
	FILE *out = open_memstream(&buf, n);
	FILE *err = fopen("/dev/null", "w");
	cmd_dump(path, NULL, jsonl, out, err);
	fclose(out);
	fclose(err);
	return buf;
}

static void test_escapes(void)
{
	static const char t[] =
		"{\"type\":\"thought\",\"data\":\"title \\u001b]0;pwned\\u0007 bell \\u0007\"}\n"
		"{\"type\":\"text\",\"data\":\"clear \\u001b[2J home \\u001b[H up \\u001b[5A clip \\u001b]52;c;aGk=\\u0007\"}\n"
		"{\"type\":\"text\",\"data\":\"csi8 \\u009b31m dcs \\u0090x\\u009c st raw \x1b[1m bs \\b del \\u007f cr \\r\"}\n"
		"{\"type\":\"error\",\"data\":\"osc8 \\u001b]8;;http://x\\u001b\\\\link\\u001b]8;;\\u001b\\\\\"}\n"
		"{\"type\":\"end\",\"sessionId\":\"s\\u001b[31m\"}\n";
	char *p = tmpfile_path("escapes.jsonl");
	size_t n;
	write_text(p, t, sizeof t - 1);

	char *d = dump_of(p, 0, &n);
	ok(n > 0 && !has_control(d, n, 1), "kbtui dump: no ESC, BEL, C0 or C1 control byte in the output");
	has_str(d, "^[]0;pwned^G", "kbtui dump: the title change shown as text");
	has_str(d, "^[]52;c;aGk=^G", "kbtui dump: the OSC 52 clipboard write shown as text");
	has_str(d, "^[[2J", "kbtui dump: the clear-screen shown as text");
	has_str(d, "<U+009B>31m", "kbtui dump: an 8-bit CSI shown as text");
	free(d);

	d = dump_of(p, 1, &n);
	int esc = 0, bel = 0;
	for (size_t i = 0; i < n; i++) {
		esc += d[i] == 0x1b;
		bel += d[i] == 0x07;
	}
	is_int(esc + bel, 0, "kbtui dump --jsonl: no raw ESC or BEL");
	has_str(d, "\\u001b]0;pwned\\u0007", "kbtui dump --jsonl: ESC and BEL escaped as JSON");
	ok(!has_control(d, n, 1), "kbtui dump --jsonl: no raw C0 or C1 control byte");
	has_str(d, "\\u009b31m", "kbtui dump --jsonl: an 8-bit CSI escaped as JSON");
	has_str(d, "del \\u007f", "kbtui dump --jsonl: DEL escaped as JSON");
	free(d);
	unlink(p);
	free(p);
}

/* Found by fuzz_annot: a plain scalar libyaml will not emit plain (it
 * starts with "..." or "---") comes back quoted under the tag "!", still
 * the same string. */
static void test_annot_dots(void)
{
	static const char y[] = "run_id: r1\nnotes: ....tran\nlabel: --- x\n";
	char *p = tmpfile_path("dots.yaml"), *err = NULL, *text;
	int line = 0;
	write_text(p, y, sizeof y - 1);
	struct annot *a = annot_load(p, &line, &err);
	ok(a != NULL, "annotation with '....tran' loads");
	text = a ? annot_emit(a, &err) : NULL;
	ok(text != NULL, "and emits");
	if (text) {
		write_text(p, text, strlen(text));
		struct annot *b = annot_load(p, &line, &err);
		ok(b != NULL, "the emitted text loads again");
		is_str(b ? annot_get(b, "notes") : NULL, "....tran", "the '....' scalar comes back the same string");
		is_str(b ? annot_get(b, "label") : NULL, "--- x", "the '---' scalar comes back the same string");
		annot_free(b);
	}
	free(text);
	free(err);
	annot_free(a);
	unlink(p);
	free(p);
}

/* Found by fuzz_annot: the blank line annot_emit puts between top-level
 * sections went into a keep-chomping block scalar ("|+") before it, so
 * each save grew the value by a newline. */
static void test_annot_keep(void)
{
	static const char y[] = "run_id: r1\nsummary: |+\n  two lines\n  here\n\nnotes: >+2\n   x\n\nverdict: pass\n";
	char *p = tmpfile_path("keep.yaml"), *err = NULL;
	int line = 0;
	write_text(p, y, sizeof y - 1);
	struct annot *a = annot_load(p, &line, &err);
	is_str(a ? annot_get(a, "summary") : NULL, "two lines\nhere\n\n", "'|+' scalar loads with its trailing newlines");
	for (int round = 1; a && round <= 2; round++) {
		char *text = annot_emit(a, &err);
		annot_free(a);
		a = NULL;
		if (!text)
			break;
		write_text(p, text, strlen(text));
		free(text);
		a = annot_load(p, &line, &err);
		is_str(a ? annot_get(a, "summary") : NULL, "two lines\nhere\n\n", "save %d keeps the '|+' value", round);
		is_str(a ? annot_get(a, "notes") : NULL, " x\n\n", "save %d keeps the '>+2' value", round);
	}
	annot_free(a);
	free(err);
	unlink(p);
	free(p);
}

/* Found by fuzz_benchlog: "shape 2e50" at the start of a timing line was
 * converted to int out of range (undefined; UBSan stops there). A shape
 * number is bounded as in "shape=<i>" fields: below 1e6. */
static void test_benchlog_shape(void)
{
	static const char *const lines[] = {"shape 2e50 kernel 1.5 ms", "shape=1e9 took 2.0 ms",
	                                    "shape 7 kernel 1.5 ms"};
	static const int want[] = {-1, -1, 7};
	for (int i = 0; i < 3; i++) {
		struct benchlog_line bl;
		enum benchlog_kind k = benchlog_classify(lines[i], strlen(lines[i]), &bl);
		is_int(k, BL_TIMING, "'%s' is a timing line", lines[i]);
		is_int(bl.shape, want[i], "'%s' names shape %d", lines[i], want[i]);
	}
}

/* The helpers every human-readable output goes through (textsafe.h). */
static void test_textsafe_out(void)
{
	char *p = tmpfile_path("out.txt");
	FILE *f = fopen(p, "w+");
	static const char nul[] = "clean\0\x1b]52;c;aGk=\x07 rest";
	textsafe_fput(f, nul, sizeof nul - 1, 0);
	fputc('|', f);
	textsafe_fprintf(f, "file %s: type %s\n", "a\x1b]0;t\x07.jsonl", "x\xc2\x9b" "2J\xe2\x80\xae" "z\xff");
	/* an argument's newline cannot start a line of its own; the format's can */
	textsafe_fprintf(f, "kbtui: %s: bad\n", "x.jsonl\nkbtui: all runs clean");
	/* %m, and wide strings and characters, as glibc's printf */
	errno = ENOENT;
	textsafe_fprintf(f, "[%m|%ls|%lc]\n", L"wide", (wint_t)L'w');
	textsafe_fprintf(f, "[%c|%3c|%c]\n", '\n', 'x', '\033');
	/* every conversion the project uses still formats as printf does */
	textsafe_fprintf(f, "[%5.2f|%-4s|%.*s|%zu|%lld|%3d|%x|%c|%%|%ld|%s]\n", 3.14159, "ab", 3, "abcdef",
	                 (size_t)42, -7LL, 5, 255u, 'q', 123456789L, (const char *)NULL);
	textsafe_fput_cell(f, "\x1b[2Jabcdefgh", 6, 0);
	fputc('|', f);
	textsafe_fput_cell(f, "ab", 6, 1);
	fputc('|', f);
	fflush(f);
	rewind(f);
	char buf[1024] = "";
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	ok(!has_control(buf, n, 1), "textsafe_fput/fprintf/fput_cell: no control byte written");
	has_str(buf, "clean^@^[]52;c;aGk=^G rest|", "textsafe_fput: a NUL shows as ^@ and the rest follows");
	has_str(buf, "file a^[]0;t^G.jsonl: type x<U+009B>2J<U+202E>z<FF>\n",
	        "textsafe_fprintf: file name and record type made visible, the newline kept");
	has_str(buf, "\nkbtui: x.jsonl^Jkbtui: all runs clean: bad\n",
	        "textsafe_fprintf: a newline in an argument shows as ^J, so it cannot forge a line");
	ok(!strstr(buf, "\nkbtui: all runs clean"), "textsafe_fprintf: no forged line");
	has_str(buf, "[No such file or directory|wide|w]\n", "textsafe_fprintf: %%m, %%ls and %%lc as printf");
	has_str(buf, "[^J|  x|^[]\n", "textsafe_fprintf: %%c as a string of one (a newline as ^J, an escape as ^[)");
	has_str(buf, "[ 3.14|ab  |abc|42|-7|  5|ff|q|%|123456789|(null)]\n",
	        "textsafe_fprintf: widths, precisions, length modifiers and %% as printf");
	has_str(buf, "^[[2J~|", "textsafe_fput_cell: cut to 6 columns with ~");
	has_str(buf, "|    ab|", "textsafe_fput_cell: right-aligned");
	unlink(p);
	free(p);

	/* cuts between characters */
	const char *e = "\xc3\xa9\xc3\xa9\xc3\xa9";  /* three 2-byte characters */
	is_int(textsafe_cut(e, 6, 5), 4, "textsafe_cut: 5 bytes of 2-byte characters keeps 4");
	is_int(textsafe_cut(e, 6, 6), 6, "textsafe_cut: all of it when it fits");
	is_int(textsafe_cut("ab\xff", 3, 2), 2, "textsafe_cut: an invalid byte is one character");
	is_int(textsafe_cut("\xe2\x80\xae", 3, 2), 0, "textsafe_cut: never half a 3-byte character");
	struct run *r = run_new();
	run_error(r, 7, "type %s", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	if (r->nerrors == 1) {
		char *s = textsafe(r->errors[0].msg, strlen(r->errors[0].msg), 0);
		ok(strlen(r->errors[0].msg) < sizeof r->errors[0].msg && !strstr(s, "<C3>"),
		   "a parser message cut to its buffer ends on a whole character");
		free(s);
	}
	run_free(r);

	/* JSON */
	struct sbuf b;
	sbuf_init(&b);
	textsafe_json_str(&b, "q\"\\\n\t\x1b]0;t\x07\x7f\xc2\x9b\xe2\x80\xae\xe2\x81\xa6\xff ok", 24);
	is_str(b.s, "\"q\\\"\\\\\\n\\t\\u001b]0;t\\u0007\\u007f\\u009b\\u202e\\u2066\\ufffd ok\"",
	       "textsafe_json_str: quotes, controls, DEL, C1, bidi escaped; an invalid byte as \\ufffd");
	sbuf_reset(&b);
	textsafe_json_fix(&b, "{\"a\": \"x\x7f\xc2\x9b\xe2\x80\xae\xff\",\n\t\"b\": 1}");
	is_str(b.s, "{\"a\": \"x\\u007f\\u009b\\u202e\\ufffd\",\n\t\"b\": 1}",
	       "textsafe_json_fix: a library's JSON gets the same escapes, its layout kept");

	/* each byte that is not plain ASCII at every offset of plain text, on
	 * both sides of the 16 bytes the functions copy at a time */
	static const char *const odd[][4] = {  /* bytes, textsafe, json_str, json_fix */
		{"\x01", "^A", "\\u0001", "\\u0001"}, {"\x7f", "^?", "\\u007f", "\\u007f"},
		{"\"", "\"", "\\\"", "\""}, {"\\", "\\", "\\\\", "\\"}, {"\n", " ", "\\n", "\n"},
		{"\t", " ", "\\t", "\t"}, {"\xc2\x85", "<U+0085>", "\\u0085", "\\u0085"},
		{"\xe2\x80\xae", "<U+202E>", "\\u202e", "\\u202e"}, {"\xff", "<FF>", "\\ufffd", "\\ufffd"},
		{"\xc3\xa9", "\xc3\xa9", "\xc3\xa9", "\xc3\xa9"},
	};
	const char *pad = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789";
	int wrong = 0;
	for (size_t o = 0; o < sizeof odd / sizeof *odd; o++)
		for (int k = 0; k < 40; k++)
			for (int k2 = 0; k2 < 40; k2 += 7) {
				char in[160], want[3][200];
				snprintf(in, sizeof in, "%.*s%s%.*s", k, pad, odd[o][0], k2, pad);
				snprintf(want[0], sizeof want[0], "%.*s%s%.*s", k, pad, odd[o][1], k2, pad);
				snprintf(want[1], sizeof want[1], "\"%.*s%s%.*s\"", k, pad, odd[o][2], k2, pad);
				snprintf(want[2], sizeof want[2], "%.*s%s%.*s", k, pad, odd[o][3], k2, pad);
				char *t = textsafe(in, strlen(in), 0);
				sbuf_reset(&b);
				textsafe_json_str(&b, in, strlen(in));
				int bad = strcmp(t, want[0]) || strcmp(b.s, want[1]);
				sbuf_reset(&b);
				textsafe_json_fix(&b, in);
				bad |= strcmp(b.s, want[2]) != 0;
				if (bad && wrong++ < 3)
					printf("# %zu at %d: %s | %s\n", o, k, t, b.s);
				free(t);
			}
	is_int(wrong, 0, "textsafe, json_str and json_fix: an odd byte at every offset of plain text");
	sbuf_free(&b);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		printf("# mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_deep_nesting();
	test_bad_bytes();
	test_escapes();
	test_annot_dots();
	test_annot_keep();
	test_benchlog_shape();
	test_huge_result();
	test_huge_line();
	test_textsafe_out();
	rmdir(tmpdir);
	return tap_done();
}
