/* cmd_annotate.c: `kbtui annotate`: a verdict (and summary, implication)
 * written into a run's annotation, checked against the schema, atomically. */
#include "textsafe.h"
#include "annotate.h"
#include "cmd.h"
#include "dataset.h"
#include "util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A verdict beyond the schema's five is most often a typo that would
 * become data (reward-hack): refused, with the closest one named. */
static int verdict_refused(FILE *err, const char *verdict)
{
	const char *near = annot_verdict_closest(verdict);
	textsafe_fprintf(err, "kbtui annotate: verdict '%s' is not one of the schema's five "
	                 "(clean, rubric_leak, reward_hack, interesting, bug)", verdict);
	if (near)
		textsafe_fprintf(err, "; did you mean '%s'?", near);
	fprintf(err, "\nkbtui annotate: --any-verdict writes it anyway (with the schema's warning)\n"
	        "Try 'kbtui annotate --help'.\n");
	return CMD_USAGE;
}

int cmd_annotate(int argc, char **argv, const char *argv0, FILE *out, FILE *err)
{
	enum { O_VERDICT = 256, O_SUMMARY, O_IMPLICATION, O_ANNOTATIONS, O_ANNOTATOR, O_ANY };
	static const struct option opts[] = {
		{"verdict", required_argument, NULL, O_VERDICT},
		{"summary", required_argument, NULL, O_SUMMARY},
		{"implication", required_argument, NULL, O_IMPLICATION},
		{"annotations", required_argument, NULL, O_ANNOTATIONS},
		{"annotator", required_argument, NULL, O_ANNOTATOR},
		{"any-verdict", no_argument, NULL, O_ANY},
		{NULL, 0, NULL, 0},
	};
	struct annotate_change ch = {0};
	struct annotate_result res;
	const char *annot_dir = NULL;
	char *def_dir = NULL;
	int c, rc, any = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case O_VERDICT: ch.verdict = optarg; break;
		case O_SUMMARY: ch.summary = optarg; break;
		case O_IMPLICATION: ch.implication = optarg; break;
		case O_ANNOTATIONS: annot_dir = optarg; break;
		case O_ANNOTATOR: ch.annotator = optarg; break;
		case O_ANY: any = 1; break;
		case ':': return cmd_usage_error(err, "annotate", "option '%s' needs an argument", argv[optind - 1]);
		default: return cmd_unknown_option(err, "annotate", argv[optind - 1], opts);
		}
	}
	if (optind >= argc)
		return cmd_usage_error(err, "annotate", "%s", "needs RUN (a run id, a unique prefix of one, or a run directory)");
	if (argc - optind > 2)
		return cmd_usage_error(err, "annotate", "takes RUN and one DIR, got '%s' too", argv[optind + 2]);
	if (!ch.verdict || !*ch.verdict)
		return cmd_usage_error(err, "annotate", "%s", "needs --verdict (clean, rubric_leak, reward_hack, interesting, bug)");

	if (!any && !annot_verdict_known(ch.verdict))
		return verdict_refused(err, ch.verdict);

	struct cmd_run cr;
	if (cmd_run_resolve(argv[optind], argc - optind == 2 ? argv[optind + 1] : NULL, argv0, &cr, err) < 0)
		return CMD_BADINPUT;
	if (!cr.ds) {
		textsafe_fprintf(err, "kbtui: %s: not a run of a dataset (DATASET/runs/RUN_ID): nowhere to record its verdict\n",
		        cr.name);
		cmd_run_free(&cr);
		return CMD_BADINPUT;
	}
	struct dataset *ds = cr.ds;
	long i = cr.idx;
	if (!annot_dir) {
		/* the dataset's own annotations/, made on the first annotation */
		annot_dir = def_dir = util_path_join(ds->root, "annotations");
		mkdir(def_dir, 0755);
	}
	char *path = annotate_path(annot_dir, ds->runs[i].meta.run_id);
	enum annotate_status st;
	ch.meta = &ds->runs[i].meta;
	if (path) {
		st = annotate_apply(path, &ch, NULL, NULL, &res);
	} else {
		memset(&res, 0, sizeof res);
		res.err = xasprintf("%s: run id `%s` cannot name an annotation file", annot_dir,
		                    ds->runs[i].meta.run_id ? ds->runs[i].meta.run_id : "");
		st = ANNOTATE_IOERR;
	}
	free(path);
	switch (st) {
	case ANNOTATE_OK:
		if (res.msgs)
			textsafe_fputs(err, res.msgs, TS_KEEP_NL | TS_KEEP_TAB);
		textsafe_fprintf(out, "%s: %s %s\n", res.path, res.undo->existed ? "updated" : "written", ch.verdict);
		rc = CMD_OK;
		break;
	case ANNOTATE_INVALID:
		if (res.msgs)
			textsafe_fputs(err, res.msgs, TS_KEEP_NL | TS_KEEP_TAB);
		textsafe_fprintf(err, "kbtui: %s: the change brings %d schema error%s; nothing written\n", res.path,
		                 res.errors, res.errors == 1 ? "" : "s");
		rc = CMD_BADINPUT;
		break;
	default:
		textsafe_fprintf(err, "kbtui: %s\n", res.err ? res.err : "cannot write the annotation");
		rc = CMD_BADINPUT;
		break;
	}
	annotate_result_free(&res);
	free(def_dir);
	cmd_run_free(&cr);
	return rc;
}

static int cmd_annotate_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	return cmd_annotate(argc, argv, ctx->argv0, ctx->out, ctx->err);
}

const struct cmd_entry cmd_annotate_entry = {
	.name = "annotate",
	.usage = "RUN --verdict V [--summary TEXT] [--implication TEXT]\n"
	         "         [--annotations DIR] [--annotator NAME] [--any-verdict] [DIR]",
	.summary = "write a verdict into the annotation of a run, checked, atomically",
	.help = "RUN: a run id or a unique prefix of one in the dataset DIR (default: the\n"
	        "one the working directory is in, else the default one), or a run\n"
	        "directory of a dataset.\n"
	        "  --verdict V     clean, rubric_leak, reward_hack, interesting or bug\n"
	        "                  (another is refused, the closest one named)\n"
	        "  --any-verdict   write a verdict beyond those five anyway (a warning)\n"
	        "  --summary TEXT  the one-paragraph summary\n"
	        "  --implication TEXT  how the cell should be read (required unless the\n"
	        "                  verdict is clean)\n"
	        "  --annotations DIR  where the annotation is written (default: the\n"
	        "                  dataset's annotations/)\n"
	        "  --annotator NAME  recorded as annotator, with the time as updated\n",
	.exec = cmd_annotate_exec,
};
