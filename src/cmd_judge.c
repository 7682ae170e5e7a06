/* cmd_judge.c: `kbtui judge`: a run sent to a model that proposes
 * suspected hack classes with quotes; kept as suggested flags. */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "annot.h"
#include "cmd.h"
#include "dataset.h"
#include "judge.h"
#include "llm.h"
#include "parser.h"
#include "run.h"
#include "suggested.h"
#include "textsafe.h"
#include "util.h"

extern const struct cmd_entry cmd_judge_entry;

/* The suggestions on out, one a line, made safe. */
static void cmd_judge_print(const struct judge_result *jr, const char *model, FILE *out)
{
	for (size_t i = 0; i < jr->n; i++) {
		const struct judge_suggestion *s = &jr->s[i];
		char *c = textsafe(s->cls, strlen(s->cls), 0), *q = textsafe(s->quote, strlen(s->quote), 0);
		char *w = textsafe(s->why, strlen(s->why), 0), *m = textsafe(model, strlen(model), 0);
		if (s->event)
			fprintf(out, "suggested (%s): %s at event %ld: \"%s\" %s\n", m, c, s->event, q, w);
		else
			fprintf(out, "suggested (%s): %s: \"%s\" %s\n", m, c, q, w);
		free(c);
		free(q);
		free(w);
		free(m);
	}
	if (!jr->n)
		fprintf(out, "no suggestion\n");
}

static size_t cmd_judge_nmatch;  /* --question: the places named, over all runs */

/* --question's answers: RUN:EVENT: "QUOTE" WHY, made safe. */
static void cmd_judge_matches(const struct judge_result *jr, const char *name, FILE *out)
{
	char *n = textsafe(name, strlen(name), 0);
	cmd_judge_nmatch += jr->n;
	for (size_t i = 0; i < jr->n; i++) {
		char *q = textsafe(jr->s[i].quote, strlen(jr->s[i].quote), 0), *w = textsafe(jr->s[i].why, strlen(jr->s[i].why), 0);
		fprintf(out, "%s:%ld: \"%s\" %s\n", n, jr->s[i].event, q, w);
		free(q);
		free(w);
	}
	free(n);
}

/* Asks the model; 0 with the reply in r (free it), or -1 with the reason on err. */
static int cmd_judge_ask(struct llm_opts *o, const char *prompt, struct llm_reply *r, FILE *err)
{
	cJSON *conv = llm_conv_new();
	llm_conv_user(conv, prompt);
	llm_chat(o, conv, r);
	cJSON_Delete(conv);
	if (r->status == LLM_OK)
		return 0;
	char *why = llm_scrub(xstrdup(r->error ? r->error : "the model did not answer"), o->api_key);
	textsafe_fprintf(err, "kbtui judge: %s\n", why);
	free(why);
	return -1;
}

/* One run judged: the prompt's size said, sent (unless dry), the
 * suggestions printed and kept beside transcript (or at outpath). */
static const char *cmd_judge_question;  /* --question: a semantic search, nothing kept */

static int cmd_judge_run(struct llm_opts *o, struct run *r, const char *name, const char *transcript,
                         const char *outpath, int dry, FILE *out, FILE *err)
{
	char *e = NULL;
	int rc = CMD_OK;
	char *prompt = cmd_judge_question ? judge_prompt_question(r, name, cmd_judge_question) : judge_prompt(r, name);
	/* before: what is about to be sent (about 4 characters a token) */
	textsafe_fprintf(err, "kbtui judge: %zu characters, about %zu tokens to send%s\n", strlen(prompt), strlen(prompt) / 4,
	        dry ? " (--dry-run: nothing sent)" : "");
	if (dry) {
		textsafe_fputs(out, prompt, TS_KEEP_NL | TS_KEEP_TAB);
	} else if (!llm_env_key(o->provider)) {
		textsafe_fprintf(err, "kbtui judge: no API key: set %s\n", o->provider == LLM_ANTHROPIC ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
		rc = CMD_BADINPUT;
	} else {
		o->api_key = llm_env_key(o->provider);
		struct llm_reply reply;
		struct judge_result jr;
		if (cmd_judge_ask(o, prompt, &reply, err) < 0) {
			rc = CMD_BADINPUT;
		} else if (judge_parse(reply.text.s, r, &jr, &e) < 0) {
			textsafe_fprintf(err, "kbtui judge: %s\n", e);
			free(e);
			rc = CMD_BADINPUT;
		} else {
			fprintf(err, "kbtui judge: tokens in %lld out %lld\n", reply.tok_in, reply.tok_out);
			if (cmd_judge_question) {  /* a search: its answers printed, no flag kept */
				cmd_judge_matches(&jr, name, out);
				judge_result_free(&jr);
				llm_reply_free(&reply);
				free(prompt);
				return rc;
			}
			cmd_judge_print(&jr, o->model, out);
			/* kept beside the transcript, never in the annotation: a suggestion is no verdict */
			char *dir = xstrdup(transcript), *slash = strrchr(dir, '/');
			if (slash)
				*slash = '\0';
			char *path = outpath ? xstrdup(outpath) : slash ? util_path_join(dir, "suggested.json")
			                                                : xstrdup("suggested.json");
			char *js = judge_json(&jr, name, o->model, reply.tok_in, reply.tok_out);
			if (annot_replace(path, js, strlen(js), &e) < 0) {
				textsafe_fprintf(err, "kbtui judge: %s\n", e);
				free(e);
				rc = CMD_BADINPUT;
			} else {
				textsafe_fprintf(err, "kbtui judge: %zu suggestion%s kept in %s\n", jr.n, jr.n == 1 ? "" : "s", path);
			}
			free(js);
			free(path);
			free(dir);
			judge_result_free(&jr);
		}
		llm_reply_free(&reply);
	}
	free(prompt);
	return rc;
}

/* --accept / --reject N: an annotator's decision on suggestion N of a
 * run's suggested.json, with who decided ($KBTUI_ANNOTATOR); the
 * suggestion stays, its status changes. */
static int cmd_judge_decide(const char *arg, const char *argv0, const char *outpath, size_t which, int accept,
                            FILE *out, FILE *err)
{
	struct cmd_run cr;
	if (!outpath && cmd_run_resolve(arg, NULL, argv0, &cr, err) < 0)
		return CMD_BADINPUT;
	char *path = NULL;
	if (outpath) {
		path = xstrdup(outpath);
	} else {
		path = suggested_path(cr.transcript);
		cmd_run_free(&cr);
	}
	char *e = NULL, *cls = NULL, *was = NULL;
	int rc = CMD_OK;
	/* the replay's keys decide through the same call (ui/pane_annot.c) */
	if (suggested_decide(path, which, accept > 0, getenv("KBTUI_ANNOTATOR"), &cls, &was, &e) < 0) {
		textsafe_fprintf(err, "kbtui judge: %s\n", e);
		free(e);
		rc = CMD_BADINPUT;
	} else {
		char *c = textsafe(cls, strlen(cls), 0);
		fprintf(out, "suggestion %zu (%s) %s\n", which, c, accept > 0 ? "accepted" : "rejected");
		free(c);
	}
	free(cls);
	free(was);
	free(path);
	return rc;
}

/* Every run of a dataset with a transcript, one at a time. */
static int cmd_judge_dataset(struct llm_opts *o, const char *dir, int dry, FILE *out, FILE *err)
{
	char *e = NULL;
	struct dataset *ds = dataset_open(dir, &e);
	if (!ds) {
		textsafe_fprintf(err, "kbtui judge: %s\n", e);
		free(e);
		return CMD_BADINPUT;
	}
	int rc = CMD_OK;
	for (size_t i = 0; i < ds->nruns; i++) {
		struct ds_run *d = &ds->runs[i];
		if (!d->transcript)
			continue;
		struct run *r = dataset_load(ds, i);
		if (!r) {
			textsafe_fprintf(err, "kbtui judge: %s\n", d->load_error ? d->load_error : d->transcript);
			rc = CMD_BADINPUT;
			continue;
		}
		const char *name = d->meta.run_id ? d->meta.run_id : d->transcript;
		if (!cmd_judge_question || dry)  /* a search's lines name their run */
			textsafe_fprintf(out, "== %s\n", name);
		if (cmd_judge_run(o, r, name, d->transcript, NULL, dry, out, err) != CMD_OK)
			rc = CMD_BADINPUT;
		run_free(r);  /* one run in memory at a time */
		d->run = NULL;
	}
	dataset_free(ds);
	return rc;
}

int cmd_judge(int argc, char **argv, const char *argv0, FILE *out, FILE *err)
{
	enum { O_MODEL = 256, O_PROVIDER, O_BASE_URL, O_OUT, O_DRY, O_ACCEPT, O_REJECT, O_QUESTION };
	static const struct option opts[] = {
		{"question", required_argument, NULL, O_QUESTION},
		{"accept", required_argument, NULL, O_ACCEPT},
		{"reject", required_argument, NULL, O_REJECT},
		{"model", required_argument, NULL, O_MODEL},
		{"provider", required_argument, NULL, O_PROVIDER},
		{"base-url", required_argument, NULL, O_BASE_URL},
		{"out", required_argument, NULL, O_OUT},
		{"dry-run", no_argument, NULL, O_DRY},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct llm_opts o = { .provider = LLM_OPENAI, .max_tokens = 4096 };
	const char *provider = "openai", *outpath = NULL;
	int ch, dry = 0, decide = 0;
	long which = 0;
	optind = 0;
	opterr = 0;
	cmd_judge_question = NULL;
	cmd_judge_nmatch = 0;
	while ((ch = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (ch) {
		case O_MODEL: o.model = optarg; break;
		case O_PROVIDER: provider = optarg; break;
		case O_BASE_URL: o.base_url = optarg; break;
		case O_OUT: outpath = optarg; break;
		case O_DRY: dry = 1; break;
		case O_QUESTION: cmd_judge_question = optarg; break;
		case O_ACCEPT:
		case O_REJECT: {
			char *end;
			which = strtol(optarg, &end, 10);
			if (*end || which < 1)
				return cmd_usage_error(err, "judge", "--accept and --reject take a suggestion's number from 1, not '%s'", optarg);
			decide = ch == O_ACCEPT ? 1 : -1;
			break;
		}
		case 'h': cmd_help(&cmd_judge_entry, out); return CMD_OK;
		case ':': return cmd_usage_error(err, "judge", "option '%s' needs an argument", argv[optind - 1]);
		default: return cmd_usage_error(err, "judge", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return cmd_usage_error(err, "judge", "%s", "takes one RUN or DIR");
	if (decide)
		return cmd_judge_decide(argv[optind], argv0, outpath, (size_t)which, decide, out, err);
	if (!o.model && !dry)
		return cmd_usage_error(err, "judge", "%s", "needs --model MODEL");
	if (llm_provider_parse(provider, &o.provider) < 0)
		return cmd_usage_error(err, "judge", "--provider is openai or anthropic, not '%s'", provider);
	if (!o.base_url)
		o.base_url = llm_env_base_url(o.provider);
	if (cmd_is_dataset(argv[optind])) {
		if (outpath)
			return cmd_usage_error(err, "judge", "%s", "--out is for one RUN: a dataset's runs keep theirs beside each transcript");
		return cmd_judge_dataset(&o, argv[optind], dry, out, err);
	}
	struct cmd_run cr;
	if (cmd_run_resolve(argv[optind], NULL, argv0, &cr, err) < 0)
		return CMD_BADINPUT;
	char *e = NULL;
	struct run *r = !cr.transcript ? NULL : cr.ds ? dataset_load(cr.ds, (size_t)cr.idx)
	                                              : parser_load_final(cr.transcript, NULL, &e);
	if (!r) {
		textsafe_fprintf(err, "kbtui judge: %s: %s\n", cr.name, e ? e : "cannot load this run");
		free(e);
		cmd_run_free(&cr);
		return CMD_BADINPUT;
	}
	int rc = cmd_judge_run(&o, r, cr.name, cr.transcript, outpath, dry, out, err);
	if (!cr.ds)
		run_free(r);
	cmd_run_free(&cr);
	return rc;
}

int cmd_judge_search(int argc, char **argv, const char *argv0, FILE *out, FILE *err)
{
	int rc = cmd_judge(argc, argv, argv0, out, err), dry = 0;
	for (int i = 1; i < argc; i++)
		dry |= !strcmp(argv[i], "--dry-run");
	if (rc == CMD_OK && cmd_judge_question && !dry)
		return cmd_judge_nmatch ? 0 : 1;
	return rc == CMD_OK ? 0 : 2;  /* usage, no key, the server's error: search's trouble */
}

static int cmd_judge_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	return cmd_judge(argc, argv, ctx->argv0, ctx->out, ctx->err);
}

const struct cmd_entry cmd_judge_entry = {
	.name = "judge",
	.usage = "--model MODEL [--provider openai|anthropic] [--base-url URL] [--out FILE] [--dry-run] "
	         "[--accept N|--reject N] [--question Q] RUN|DIR",
	.summary = "an LLM judge proposes suspected hack classes with quotes (suggestions, never verdicts)",
	.help = "RUN, condensed (the task, each tool call with its result cut, the diffs of the\n"
	        "grading files and the solution, the auto-flags), is sent to MODEL, which names\n"
	        "suspected hack classes, each with a quote copied from the run. A suggestion\n"
	        "whose quote is not in the run is dropped. They are printed and kept as\n"
	        "suggested flags in suggested.json beside the transcript, never as a verdict.\n"
	        "DIR: each run of the dataset in turn, each kept beside its transcript.\n"
	        "Keys from OPENAI_API_KEY / ANTHROPIC_API_KEY, as kbtui live.\n"
	        "  --model MODEL   the model (required unless --dry-run)\n"
	        "  --provider P    openai (Chat Completions, default) or anthropic (Messages)\n"
	        "  --base-url URL  the endpoint (default $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL,\n"
	        "                  else the provider's)\n"
	        "  --out FILE      keep the suggestions there instead\n"
	        "  --dry-run       print what would be sent, send nothing\n"
	        "  --question Q    a semantic search: the model lists the places that answer\n"
	        "                  Q as RUN:EVENT: \"QUOTE\" WHY (quotes checked); nothing kept\n"
	        "  --accept N, --reject N  an annotator's decision on suggestion N (from 1):\n"
	        "                  its status becomes accepted or rejected, with\n"
	        "                  $KBTUI_ANNOTATOR as decided_by; nothing is sent\n",
	.exec = cmd_judge_exec,
};
