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
	field_is("\r=1", "\"'\r=1\"", "CR first: ' added and quoted");
	field_is("a=1", "a=1", "= later in the text: unchanged");
	field_is("x-y", "x-y", "- later in the text: unchanged");

	struct export_row r = {
		.run_id = "20260101_000000_grok_m_01_fp8_gemm", .model = "m", .harness = "grok",
		.problem = "01_fp8_gemm", .correct = 1, .peak_fraction = 0.25,
		.verdict = "=cmd|' /C calc'!A0", .annotator = "@alice",
	};
	struct sbuf b;
	sbuf_init(&b);
	export_csv(&b, &r, 1);
	is_str(b.s, "run_id,model,harness,problem,correct,peak_fraction,verdict,annotator\r\n"
	              "20260101_000000_grok_m_01_fp8_gemm,m,grok,01_fp8_gemm,true,0.25,'=cmd|' /C calc'!A0,'@alice\r\n",
	       "export_csv: verdict and annotator that start a formula get a '");
	sbuf_free(&b);
	return tap_done();
}
