/* export: CSV fields (RFC 4180 quoting, the guard against formulas) and a
 * whole CSV of rows whose annotation text tries a formula. */
#include "tap.h"
#include "export.h"
#include "util.h"

static void field_is(const char *in, const char *want, const char *what)
{
	struct sbuf b;
	sbuf_init(&b);
	export_csv_field(&b, in);
	is_str(b.len ? b.s : "", want, "csv field: %s", what);
	sbuf_free(&b);
}

int main(void)
{
	field_is("plain", "plain", "plain text unchanged");
	field_is(NULL, "", "NULL is an empty field");
	field_is("", "", "empty stays empty");
	field_is("a,b", "\"a,b\"", "a comma: quoted");
	field_is("say \"hi\"", "\"say \"\"hi\"\"\"", "quotes doubled inside quotes");
	field_is("=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\"", "= first: ' added, then quoted");
	field_is("=1+1", "'=1+1", "= first: ' added");
	field_is("+1", "'+1", "+ first: ' added");
	field_is("-2+3", "'-2+3", "- first: ' added");
	field_is("@SUM(A1)", "'@SUM(A1)", "@ first: ' added");
	field_is("\t=1", "'\t=1", "tab first: ' added");
	/* a raw CR would return a terminal's cursor and hide what came before */
	field_is("\r=1", "'^M=1", "CR first: ' added, the CR made visible");
	field_is("a\nb", "\"a\nb\"", "a line break is kept, quoted");
	field_is("\x1b]52;c;aGk=\x07", "^[]52;c;aGk=^G", "OSC 52: made visible");
	field_is("\x1b]0;title\x07", "^[]0;title^G", "title change: made visible");
	field_is("csi \x1b[2J c1 \xc2\x9b" "31m", "csi ^[[2J c1 <U+009B>31m", "CSI and the 8-bit CSI: made visible");
	field_is("\xe2\x80\xae" "abc", "<U+202E>abc", "a bidi override: made visible");
	field_is("bad \xff", "bad <FF>", "invalid UTF-8: made visible");
	field_is("\x1b=1", "^[=1", "ESC then = is not a formula after it is made visible");
	field_is("a=1", "a=1", "= later in the text: unchanged");
	field_is("x-y", "x-y", "- later in the text: unchanged");

	struct export_row r = {
		.run_id = "20260101_000000_grok_m_01_fp8_gemm", .model = "m", .harness = "grok",
		.problem = "01_fp8_gemm", .correct = 1, .peak_fraction = 0.25,
		.verdict = "=cmd|' /C calc'!A0", .annotator = "@alice",
		/* the run key's new columns are guarded as well */
		.label = "-grok/m [+1]", .effort = "+1", .gpu = "=GPU",
	};
	struct sbuf b;
	sbuf_init(&b);
	export_csv(&b, &r, 1, 0);
	is_str(b.s, "run_id,model,harness,problem,correct,peak_fraction,verdict,annotator,label,effort,gpu\r\n"
	              "20260101_000000_grok_m_01_fp8_gemm,m,grok,01_fp8_gemm,true,0.25,'=cmd|' /C calc'!A0,'@alice,"
	              "'-grok/m [+1],'+1,'=GPU\r\n",
	       "export_csv: verdict and annotator that start a formula get a '");
	sbuf_free(&b);
	return tap_done();
}
