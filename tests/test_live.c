/* test_live.c: the live agent end to end against a fake model server on
 * 127.0.0.1 that this test forks. The server answers each request with the
 * next scripted response (SSE in the OpenAI or the Anthropic wire format,
 * an HTTP error, a stream cut mid-way) and logs each request it got. The
 * agent writes a file, runs bash, gets the results and stops; the recorded
 * transcript.jsonl must load with the claude parser into the expected
 * events, and the API key must appear in no written file and no output. */
#include "tap.h"
#include "agent.h"
#include "jsonx.h"

#include <cjson/cJSON.h>
#include "llm.h"
#include "parser.h"
#include "run.h"
#include "util.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KEY "sk-test-SECRET-0123456789abcdef"

/* ---- the fake server ------------------------------------------------------ */

struct reply {
	int status;               /* 200, 429, 500 */
	const char *headers;      /* extra header lines, each ending "\r\n" */
	const char *body;
	long cut;                 /* close after this many body bytes; -1: whole */
	int delay_ms;             /* pause after the headers (a slow server) */
};

static pid_t srv_pid = -1;
static int srv_port;
static char srv_log[4096];

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Reads one request: headers and Content-Length body. */
static char *srv_read(int fd)
{
	struct sbuf b;
	char buf[4096];
	long want = -1;
	sbuf_init(&b);
	for (;;) {
		char *hdr_end = b.s ? strstr(b.s, "\r\n\r\n") : NULL;
		if (hdr_end && want < 0) {
			char *cl = strcasestr(b.s, "content-length:");
			want = (long)(hdr_end + 4 - b.s) + (cl ? atol(cl + 15) : 0);
		}
		if (want >= 0 && (long)b.len >= want)
			break;
		ssize_t n = read(fd, buf, sizeof buf);
		if (n <= 0)
			break;
		sbuf_add(&b, buf, (size_t)n);
	}
	return sbuf_detach(&b);
}

static void srv_write(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t k = write(fd, s, n);
		if (k <= 0)
			return;
		s += k;
		n -= (size_t)k;
	}
}

static void srv_answer(int fd, const struct reply *r)
{
	char head[512];
	size_t len = strlen(r->body), send = r->cut >= 0 && (size_t)r->cut < len ? (size_t)r->cut : len;
	const char *reason = r->status == 200 ? "OK" : r->status == 429 ? "Too Many Requests" : "Error";
	if (r->status == 200)
		snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n%s"
		         "Connection: close\r\n\r\n", r->headers ? r->headers : "");
	else
		snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n%s"
		         "Content-Length: %zu\r\nConnection: close\r\n\r\n", r->status, reason,
		         r->headers ? r->headers : "", len);
	srv_write(fd, head, strlen(head));
	if (r->delay_ms > 0)
		usleep((useconds_t)r->delay_ms * 1000);
	/* small pieces, so the client sees events split across reads */
	for (size_t i = 0; i < send; i += 13) {
		srv_write(fd, r->body + i, send - i < 13 ? send - i : 13);
		if (i % 130 == 0)
			usleep(200);
	}
}

/* Forks the server; it answers replies[0..n) in order, then 500s, and
 * dies after 60 s whatever happens. */
static void srv_start(const struct reply *replies, int n, const char *logpath)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t al = sizeof a;
	int one = 1, s = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 8) < 0) {
		perror("fake server");
		exit(1);
	}
	getsockname(s, (struct sockaddr *)&a, &al);
	srv_port = ntohs(a.sin_port);
	snprintf(srv_log, sizeof srv_log, "%s", logpath);
	fflush(stdout);
	srv_pid = fork();
	if (srv_pid == 0) {
		FILE *log = fopen(logpath, "w");
		alarm(60);
		for (int i = 0;; i++) {
			int c = accept(s, NULL, NULL);
			struct reply err500 = {500, NULL, "{\"error\":{\"message\":\"script exhausted\"}}", -1, 0};
			char *req;
			if (c < 0)
				_exit(0);
			req = srv_read(c);
			fprintf(log, "=== request %d at %.3f\n%s\n", i, now_s(), req);
			fflush(log);
			free(req);
			srv_answer(c, i < n ? &replies[i] : &err500);
			shutdown(c, SHUT_RDWR);
			close(c);
		}
	}
	close(s);
}

static void srv_stop(void)
{
	if (srv_pid > 0) {
		kill(srv_pid, SIGKILL);
		waitpid(srv_pid, NULL, 0);
	}
	srv_pid = -1;
}

/* Request i of the log (owned), "" when absent. */
static char *srv_request(int i, double *at)
{
	char *all = util_read_file(srv_log, NULL), *p, *q, mark[64];
	if (!all)
		return xstrdup("");
	snprintf(mark, sizeof mark, "=== request %d at ", i);
	p = strstr(all, mark);
	if (!p) {
		free(all);
		return xstrdup("");
	}
	if (at)
		*at = atof(p + strlen(mark));
	q = strstr(p + 1, "=== request ");
	p = xstrndup(p, q ? (size_t)(q - p) : strlen(p));
	free(all);
	return p;
}

static int srv_requests(void)
{
	int n = 0;
	char *s;
	while (*(s = srv_request(n, NULL))) {
		free(s);
		n++;
	}
	free(s);
	return n;
}

/* ---- scripted replies ----------------------------------------------------- */

#define OA(json) "data: " json "\n\n"

static const char oa_write[] =
	OA("{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"Plan: write \"}}]}")
	OA("{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"the file.\"}}]}")
	": keep-alive comment\n\n"
	OA("{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Writing \"}}]}")
	OA("{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"it.\"}}]}")
	OA("{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_w\",\"type\":\"function\",\"function\":{\"name\":\"write_file\",\"arguments\":\"\"}}]}}]}")
	OA("{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"path\\\": \\\"solution.cu\\\",\"}}]}}]}")
	OA("{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\" \\\"content\\\": \\\"hello kernel\\\\n\\\"}\"}}]}}]}")
	OA("{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}")
	OA("{\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":20,\"prompt_tokens_details\":{\"cached_tokens\":40}}}")
	OA("[DONE]");

static const char oa_bash[] =
	OA("{\"id\":\"c2\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"bash\",\"arguments\":\"{\\\"command\\\": \\\"cat solution.cu; echo key=${OPENAI_API_KEY:-none}\\\"}\"}}]}}]}")
	OA("{\"id\":\"c2\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}")
	OA("{\"id\":\"c2\",\"choices\":[],\"usage\":{\"prompt_tokens\":150,\"completion_tokens\":10}}")
	OA("[DONE]");

static const char oa_echo[] =
	OA("{\"id\":\"c4\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Your key is " KEY ".\"}}]}")
	OA("{\"id\":\"c4\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}")
	OA("[DONE]");

static const char oa_done[] =
	OA("{\"id\":\"c3\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"All done.\"}}]}")
	OA("{\"id\":\"c3\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}")
	OA("{\"id\":\"c3\",\"choices\":[],\"usage\":{\"prompt_tokens\":200,\"completion_tokens\":5}}")
	OA("[DONE]");

#define AN(type, json) "event: " type "\n" "data: " json "\n\n"

static const char an_write[] =
	AN("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":100,\"cache_read_input_tokens\":40,\"output_tokens\":1}}}")
	AN("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}")
	AN("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Plan: write \"}}")
	AN("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"the file.\"}}")
	AN("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"sig123\"}}")
	AN("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}")
	AN("ping", "{\"type\":\"ping\"}")
	AN("content_block_start", "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}")
	AN("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Writing it.\"}}")
	AN("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":1}")
	AN("content_block_start", "{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_w\",\"name\":\"write_file\",\"input\":{}}}")
	AN("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\": \\\"solution.cu\\\",\"}}")
	AN("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\" \\\"content\\\": \\\"hello kernel\\\\n\\\"}\"}}")
	AN("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":2}")
	AN("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":20}}")
	AN("message_stop", "{\"type\":\"message_stop\"}");

static const char an_bash[] =
	AN("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_2\",\"usage\":{\"input_tokens\":150,\"output_tokens\":1}}}")
	AN("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_b\",\"name\":\"bash\",\"input\":{}}}")
	AN("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"command\\\": \\\"cat solution.cu; echo key=${ANTHROPIC_API_KEY:-none}\\\"}\"}}")
	AN("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}")
	AN("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":10}}")
	AN("message_stop", "{\"type\":\"message_stop\"}");

static const char an_done[] =
	AN("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_3\",\"usage\":{\"input_tokens\":200,\"output_tokens\":1}}}")
	AN("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}")
	AN("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"All done.\"}}")
	AN("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}")
	AN("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5}}")
	AN("message_stop", "{\"type\":\"message_stop\"}");

/* ---- helpers ---------------------------------------------------------------- */

static char tmpdir[256];
static struct sbuf logged;    /* every on_event line of the agent */

static void on_event(void *ud, const char *kind, const char *name, const char *text, int is_error)
{
	(void)ud;
	sbuf_addf(&logged, "%s %s %s %d\n", kind, name ? name : "-", text, is_error);
}

/* 1 when the key occurs in any file under dir. */
static int key_in_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;
	if (!d)
		return 0;
	while (!found && (de = readdir(d)) != NULL) {
		char *p;
		struct stat sb;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = util_path_join(dir, de->d_name);
		if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
			found = key_in_tree(p);
		else if (S_ISREG(sb.st_mode)) {
			size_t len;
			char *data = util_read_file(p, &len);
			found = data && memmem(data, len, KEY, strlen(KEY)) != NULL;
			free(data);
		}
		free(p);
	}
	closedir(d);
	return found;
}

/* The user writes one message to the agent, before its second turn. */
static int inbox_calls;
static char *inbox(void *ud)
{
	(void)ud;
	return inbox_calls++ == 0 ? xstrdup("also check it") : NULL;
}

static void opts_init(struct agent_opts *o, enum llm_provider prov, const char *name)
{
	static char url[128], run[512], work[600];
	memset(o, 0, sizeof *o);
	snprintf(url, sizeof url, "http://127.0.0.1:%d%s", srv_port, prov == LLM_OPENAI ? "/v1" : "");
	snprintf(run, sizeof run, "%s/%s", tmpdir, name);
	snprintf(work, sizeof work, "%s/work", run);
	mkdir(run, 0777);
	mkdir(work, 0777);
	o->llm.provider = prov;
	o->llm.base_url = url;
	o->llm.api_key = KEY;
	o->llm.model = "fake-model";
	o->llm.backoff_s = 0.05;
	o->llm.stall_s = 10;
	o->llm.connect_s = 5;
	o->workdir = work;
	o->rundir = run;
	o->prompt = "Write solution.cu.";
	o->budget_s = 60;
	o->max_turns = 10;
	o->bash_timeout_s = 10;
	o->on_event = on_event;
	sbuf_reset(&logged);
}

static struct run *load(const struct agent_opts *o)
{
	char *path = util_path_join(o->rundir, "transcript.jsonl"), *err = NULL;
	struct run *r = parser_load_file(path, NULL, &err);
	if (!r)
		printf("# cannot load %s: %s\n", path, err);
	free(err);
	free(path);
	return r;
}

static const struct event *nth(const struct run *r, enum ev_kind k, int n)
{
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].kind == k && n-- == 0)
			return &r->ev[i];
	return NULL;
}

static const struct event *find_sys(const struct run *r, const char *name)
{
	for (size_t i = 0; i < r->nev; i++)
		if ((r->ev[i].kind == EV_SYSTEM || r->ev[i].kind == EV_ERROR) && r->ev[i].name &&
		    !strcmp(r->ev[i].name, name))
			return &r->ev[i];
	return NULL;
}

/* ---- the scripted conversation in both wire formats ------------------------ */

static void test_conversation(enum llm_provider prov)
{
	const char *pn = llm_provider_name(prov);
	struct reply script[3] = {
		{200, NULL, prov == LLM_OPENAI ? oa_write : an_write, -1, 0},
		{200, NULL, prov == LLM_OPENAI ? oa_bash : an_bash, -1, 0},
		{200, NULL, prov == LLM_OPENAI ? oa_done : an_done, -1, 0},
	};
	char logp[512], *req, *sol;
	struct agent_opts o;
	struct agent_result res;
	struct run *r;
	const struct event *e;
	long long in, out, cr;

	snprintf(logp, sizeof logp, "%s/%s.requests", tmpdir, pn);
	srv_start(script, 3, logp);
	opts_init(&o, prov, pn);
	o.inbox = inbox;
	inbox_calls = 0;
	is_int(agent_run(&o, &res), 0, "%s: the run is recorded", pn);
	is_int(inbox_calls, 2, "%s: the inbox is asked before turns 2 and 3", pn);
	srv_stop();
	is_int(res.end, AGENT_DONE, "%s: ends because the model stopped calling tools", pn);
	is_int(res.turns, 3, "%s: 3 turns", pn);
	is_int(res.tool_calls, 2, "%s: 2 tool calls", pn);
	is_int(res.tok_in, 450, "%s: input tokens summed over the turns", pn);
	is_int(res.tok_out, 35, "%s: output tokens summed", pn);
	sol = util_path_join(o.workdir, "solution.cu");
	{
		char *data = util_read_file(sol, NULL);
		is_str(data, "hello kernel\n", "%s: write_file wrote the file in the work directory", pn);
		free(data);
	}
	free(sol);

	req = srv_request(0, NULL);
	has_str(req, prov == LLM_OPENAI ? "POST /v1/chat/completions" : "POST /v1/messages", "%s: endpoint", pn);
	has_str(req, prov == LLM_OPENAI ? "Authorization: Bearer " KEY : "x-api-key: " KEY,
	        "%s: the key travels in the request header", pn);
	has_str(req, prov == LLM_OPENAI ? "\"include_usage\":true" : "anthropic-version: 2023-06-01",
	        "%s: provider specifics in the request", pn);
	free(req);
	req = srv_request(1, NULL);
	if (prov == LLM_OPENAI) {
		has_str(req, "\"tool_call_id\":\"call_w\"", "openai: turn 2 sends the tool result back by id");
		has_str(req, "{\"role\":\"user\",\"content\":\"also check it\"}", "openai: the user's message follows");
		has_str(req, "\"arguments\":\"{\\\"path\\\": \\\"solution.cu\\\", \\\"content\\\"",
		        "openai: turn 2 repeats the streamed arguments");
	} else {
		has_str(req, "\"tool_use_id\":\"toolu_w\"", "anthropic: turn 2 sends the tool_result back by id");
		has_str(req, "\"signature\":\"sig123\"", "anthropic: the thinking block goes back with its signature");
		has_str(req, "\"tool_use_id\":\"toolu_w\",\"content\":\"wrote 13 bytes to solution.cu\"},"
		        "{\"type\":\"text\",\"text\":\"also check it\"}]",
		        "anthropic: the user's message joins the tool results' message");
	}
	free(req);
	req = srv_request(2, NULL);
	has_str(req, "key=none", "%s: the bash tool's environment has no API key", pn);
	free(req);

	r = load(&o);
	ok(r != NULL, "%s: transcript.jsonl loads", pn);
	if (!r)
		return;
	is_str(r->meta.format, "claude", "%s: sniffed as claude stream-json", pn);
	is_int(r->malformed, 0, "%s: no malformed line", pn);
	is_int(r->incomplete, 0, "%s: the result line marks it complete", pn);
	is_str(r->meta.model, "fake-model", "%s: model from the init line", pn);
	e = nth(r, EV_SYSTEM, 0);
	ok(e && e->name && !strcmp(e->name, "init"), "%s: first event is system init", pn);
	e = nth(r, EV_USER, 0);
	is_str(e ? e->text : NULL, "Write solution.cu.", "%s: the prompt is the user event", pn);
	e = nth(r, EV_USER, 1);
	is_str(e ? e->text : NULL, "also check it", "%s: the user's message mid-run is recorded", pn);
	e = nth(r, EV_REASONING, 0);
	is_str(e ? e->text : NULL, "Plan: write the file.", "%s: reasoning accumulated from deltas", pn);
	e = nth(r, EV_TEXT, 0);
	is_str(e ? e->text : NULL, "Writing it.", "%s: text accumulated from deltas", pn);
	e = nth(r, EV_TOOL_CALL, 0);
	is_str(e ? e->name : NULL, "write_file", "%s: first tool call", pn);
	is_str(e ? e->call_id : NULL, prov == LLM_OPENAI ? "call_w" : "toolu_w", "%s: its id", pn);
	has_str(e ? e->args : NULL, "hello kernel", "%s: its arguments", pn);
	e = nth(r, EV_TOOL_RESULT, 0);
	ok(e && e->link >= 0 && r->ev[e->link].kind == EV_TOOL_CALL &&
	   !strcmp(r->ev[e->link].name, "write_file"), "%s: the write result is linked to its call", pn);
	has_str(e ? e->text : NULL, "wrote 13 bytes to solution.cu", "%s: write result text", pn);
	ok(e && !e->is_error, "%s: a write that worked is no error", pn);
	e = nth(r, EV_TOOL_CALL, 1);
	is_str(e ? e->name : NULL, "bash", "%s: second tool call is bash", pn);
	e = nth(r, EV_TOOL_RESULT, 1);
	ok(e && e->link >= 0 && !strcmp(r->ev[e->link].name, "bash"), "%s: bash result linked", pn);
	has_str(e ? e->text : NULL, "hello kernel\nkey=none\n", "%s: bash output in the result", pn);
	ok(e && !e->is_error, "%s: bash exit 0 is no error", pn);
	e = nth(r, EV_TEXT, 1);
	is_str(e ? e->text : NULL, "All done.", "%s: the final answer", pn);
	run_tokens(r, &in, &out, &cr, NULL, NULL);
	is_int(in, 450, "%s: replayed input tokens", pn);
	is_int(out, 35, "%s: replayed output tokens", pn);
	is_int(cr, 40, "%s: replayed cache-read tokens", pn);
	is_int((long long)run_count(r, EV_USAGE), 3, "%s: one usage event per turn", pn);
	is_int((long long)run_count(r, EV_ERROR), 0, "%s: no error event", pn);
	run_free(r);

	{
		char *rj = util_path_join(o.rundir, "result.json"), *data = util_read_file(rj, NULL);
		has_str(data, "\"has_solution\":\ttrue", "%s: result.json says a solution exists", pn);
		has_str(data, "\"correct\":\tfalse", "%s: result.json does not take the agent's word", pn);
		free(data);
		free(rj);
		rj = util_path_join(o.rundir, "solution.cu");
		data = util_read_file(rj, NULL);
		is_str(data, "hello kernel\n", "%s: solution.cu is copied beside the transcript", pn);
		free(data);
		free(rj);
		rj = util_path_join(o.rundir, "final.txt");
		data = util_read_file(rj, NULL);
		is_str(data, "All done.", "%s: final.txt holds the last answer", pn);
		free(data);
		free(rj);
	}
	ok(!key_in_tree(o.rundir), "%s: the key is in no file under the run directory", pn);
	ok(!strstr(logged.s ? logged.s : "", KEY), "%s: the key is in no logged event", pn);
	agent_result_free(&res);
}

/* ---- faults ------------------------------------------------------------------ */

static void test_429(void)
{
	struct reply script[2] = {
		{429, "Retry-After: 1\r\n", "{\"error\":{\"message\":\"rate limited, key " KEY "\"}}", -1, 0},
		{200, NULL, oa_echo, -1, 0},
	};
	char logp[512], *r0, *r1;
	double t0 = 0, t1 = 0;
	struct agent_opts o;
	struct agent_result res;
	struct run *r;
	const struct event *e;

	snprintf(logp, sizeof logp, "%s/429.requests", tmpdir);
	srv_start(script, 2, logp);
	opts_init(&o, LLM_OPENAI, "r429");
	agent_run(&o, &res);
	srv_stop();
	is_int(res.end, AGENT_DONE, "429: the retried turn succeeds");
	is_int(srv_requests(), 2, "429: two requests");
	r0 = srv_request(0, &t0);
	r1 = srv_request(1, &t1);
	ok(t1 - t0 >= 0.9, "429: the retry waited for Retry-After: 1 (%.2f s, backoff alone is 0.05)", t1 - t0);
	free(r0);
	free(r1);
	r = load(&o);
	e = r ? find_sys(r, "retry") : NULL;
	ok(e != NULL, "429: a retry event is recorded");
	has_str(e ? e->text : NULL, "HTTP 429", "429: it names the status");
	ok(e && !strstr(e->text, KEY), "429: a key echoed by the server is scrubbed");
	has_str(e ? e->text : NULL, "[redacted]", "429: ... and replaced");
	ok(!key_in_tree(o.rundir), "429: no key in the run directory, though the model said it");
	ok(!strstr(logged.s ? logged.s : "", KEY), "429: nor in the logged events");
	has_str(logged.s, "Your key is [redacted].", "429: the model's text is logged scrubbed");
	run_free(r);
	agent_result_free(&res);
}

static void test_cut(void)
{
	struct reply script[3] = {
		{200, NULL, oa_write, 300, 0},
		{200, NULL, oa_write, 100, 0},
		{200, NULL, oa_done, -1, 0},
	};
	char logp[512];
	struct agent_opts o;
	struct agent_result res;
	struct run *r;
	const struct event *e;

	/* no turn retries: the cut is the end of the run */
	snprintf(logp, sizeof logp, "%s/cut.requests", tmpdir);
	srv_start(script, 3, logp);
	opts_init(&o, LLM_OPENAI, "cut");
	o.stream_retries = -1;
	agent_run(&o, &res);
	srv_stop();
	is_int(res.end, AGENT_ERROR, "cut: a stream cut mid-way ends the run in error without retries");
	has_str(res.error, "ended before its end marker", "cut: the error says the stream was cut");
	r = load(&o);
	e = r ? nth(r, EV_ERROR, 0) : NULL;
	ok(e && e->is_error, "cut: an error event is recorded");
	has_str(e ? e->text : NULL, "ended before its end marker", "cut: error event text");
	is_int(r ? (long long)run_count(r, EV_TOOL_CALL) : -1, 0, "cut: the partial turn's tool call is not run");
	e = r ? find_sys(r, "error_during_execution") : NULL;
	ok(e && e->is_error, "cut: the result line is an error");
	is_int(r ? r->malformed : -1, 0, "cut: the transcript is well formed");
	run_free(r);
	agent_result_free(&res);

	/* with retries the turn is asked again and the run finishes */
	struct reply script2[2] = {{200, NULL, oa_write, 250, 0}, {200, NULL, oa_done, -1, 0}};
	srv_start(script2, 2, logp);
	opts_init(&o, LLM_OPENAI, "cut2");
	agent_run(&o, &res);
	srv_stop();
	is_int(res.end, AGENT_DONE, "cut: the turn is retried after a dropped stream");
	r = load(&o);
	is_int(r ? (long long)run_count(r, EV_ERROR) : -1, 1, "cut: one error event for the drop");
	e = r ? nth(r, EV_TEXT, 0) : NULL;
	is_str(e ? e->text : NULL, "All done.", "cut: the retried turn's answer is recorded");
	run_free(r);
	agent_result_free(&res);
}

static void test_garbage_and_500(void)
{
	struct reply script[3] = {
		{500, NULL, "{\"error\":{\"message\":\"overloaded\"}}", -1, 0},
		{200, NULL, "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}\n\ndata: \x01\xff garbage {{{\n\n", -1, 0},
		{200, NULL, oa_done, -1, 0},
	};
	char logp[512];
	struct agent_opts o;
	struct agent_result res;
	struct run *r;
	const struct event *e;

	snprintf(logp, sizeof logp, "%s/garbage.requests", tmpdir);
	srv_start(script, 3, logp);
	opts_init(&o, LLM_OPENAI, "garbage");
	o.stream_retries = -1;
	agent_run(&o, &res);
	srv_stop();
	is_int(srv_requests(), 2, "500 then garbage: the 500 is retried, the garbage is not");
	is_int(res.end, AGENT_ERROR, "garbage: ends the run in error");
	has_str(res.error, "malformed stream data", "garbage: the error names it");
	r = load(&o);
	e = r ? nth(r, EV_ERROR, 0) : NULL;
	has_str(e ? e->text : NULL, "malformed stream data", "garbage: recorded as an error event");
	e = r ? find_sys(r, "retry") : NULL;
	has_str(e ? e->text : NULL, "HTTP 500", "500: recorded as a retry");
	run_free(r);
	agent_result_free(&res);
}

static void test_unreachable_and_nokey(void)
{
	struct agent_opts o;
	struct agent_result res;
	struct llm_reply rep;
	cJSON *conv = llm_conv_new();
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t al = sizeof a;

	/* a port that was free a moment ago and has no listener */
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(s, (struct sockaddr *)&a, sizeof a);
	getsockname(s, (struct sockaddr *)&a, &al);
	srv_port = ntohs(a.sin_port);
	close(s);
	opts_init(&o, LLM_OPENAI, "unreachable");
	agent_run(&o, &res);
	is_int(res.end, AGENT_ERROR, "unreachable: the run ends in error");
	has_str(res.error, "cannot reach http://127.0.0.1:", "unreachable: one clear message");
	agent_result_free(&res);

	llm_conv_user(conv, "hi");
	o.llm.api_key = NULL;
	is_int(llm_chat(&o.llm, conv, &rep), LLM_ERR_CONFIG, "no key: nothing is sent");
	is_str(rep.error, "no API key: set OPENAI_API_KEY", "no key: the message names the variable");
	llm_reply_free(&rep);
	cJSON_Delete(conv);
}

static void test_budgets(void)
{
	struct reply script[2] = {{200, NULL, oa_write, -1, 0}, {200, NULL, oa_done, -1, 0}};
	struct reply slow[1] = {{200, NULL, oa_done, -1, 4000}};
	char logp[512];
	struct agent_opts o;
	struct agent_result res;
	struct run *r;
	const struct event *e;
	double t0;

	snprintf(logp, sizeof logp, "%s/budget.requests", tmpdir);
	srv_start(script, 2, logp);
	opts_init(&o, LLM_OPENAI, "turns");
	o.max_turns = 1;
	agent_run(&o, &res);
	srv_stop();
	is_int(res.end, AGENT_BUDGET_TURNS, "budget: --max-turns 1 stops after the first turn's tools");
	is_int(res.tool_calls, 1, "budget: the first turn's tool call ran");
	r = load(&o);
	e = r ? find_sys(r, "error_max_turns") : NULL;
	ok(e && e->is_error, "budget: the result line says error_max_turns");
	run_free(r);
	agent_result_free(&res);

	srv_start(slow, 1, logp);
	opts_init(&o, LLM_OPENAI, "slow");
	o.budget_s = 1;
	t0 = now_s();
	agent_run(&o, &res);
	srv_stop();
	is_int(res.end, AGENT_BUDGET_TIME, "budget: a slow server cannot stretch the wall-clock budget");
	ok(now_s() - t0 < 3, "budget: the turn was cut at the budget (%.2f s, server waits 4 s)", now_s() - t0);
	agent_result_free(&res);
}

/* ---- tools ------------------------------------------------------------------- */

static void tool_is(const struct agent_opts *o, const char *name, const char *args, int want_err,
                    const char *want, const char *what)
{
	int err = -1;
	char *s = agent_tool(o, name, args, &err);
	ok(err == want_err && s && strstr(s, want), "%s", what);
	if (!(err == want_err && s && strstr(s, want)))
		printf("#   is_error %d, got \"%s\"\n", err, s ? s : "(null)");
	free(s);
}

/* Files the agent made that are not plain files, or far too big: each tool
 * answers at once, within its caps, and says why. */
static void test_tool_files(struct agent_opts *o)
{
	char *fifo = util_path_join(o->workdir, "pipe"), *big = util_path_join(o->workdir, "sparse.bin");
	char *inlink = util_path_join(o->workdir, "inlink"), *expect;
	int fd;
	mkfifo(fifo, 0666);
	tool_is(o, "read_file", "{\"path\":\"pipe\"}", 1, "pipe is a FIFO", "read_file of a FIFO is refused, not waited on");
	/* a NUL would cut the path ("solution.cu\0.bak" is solution.cu), a
	 * control byte would act on a terminal: both refused, shown escaped */
	tool_is(o, "write_file", "{\"path\":\"solution.cu\\u0000.bak\",\"content\":\"x\"}", 1,
	        "hold a NUL byte (\\u0000): refused", "write_file: a NUL in the path is refused, not cut there");
	tool_is(o, "write_file", "{\"path\":\"a\\\\u0000b\",\"content\":\"x\"}", 0, "",
	        "write_file: an escaped backslash before u0000 is no NUL (the file a\\u0000b is written)");
	tool_is(o, "read_file", "{\"path\":\"x\\u001b[31m.cu\"}", 1, "the path \"x\\x1b[31m.cu\" holds the control byte \\x1b: refused",
	        "read_file: a control byte in the path is refused, shown escaped");
	tool_is(o, "write_file", "{\"path\":\"a\\tb\",\"content\":\"x\"}", 1, "holds the control byte \\x09",
	        "write_file: a tab in the path is refused too");
	tool_is(o, "write_file", "{\"path\":\"pipe\",\"content\":\"x\"}", 1, "pipe is a FIFO",
	        "write_file to a FIFO is refused");
	tool_is(o, "edit_file", "{\"path\":\"pipe\",\"old_string\":\"a\",\"new_string\":\"b\"}", 1, "pipe is a FIFO",
	        "edit_file of a FIFO is refused");
	tool_is(o, "read_file", "{\"path\":\"sub\"}", 1, "sub is a directory", "read_file of a directory says so");
	/* 64 GiB, sparse: reading it whole would take the machine's memory */
	fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	ok(fd >= 0 && write(fd, "head", 4) == 4 && ftruncate(fd, 64LL << 30) == 0, "a sparse 64 GiB file is made");
	if (fd >= 0)
		close(fd);
	{
		int err = -1;
		char *s = agent_tool(o, "read_file", "{\"path\":\"sparse.bin\"}", &err);
		ok(!err && s && !strncmp(s, "head", 4) && strlen(s) < (300u << 10),
		   "read_file of a 64 GiB file gives its start, capped (%zu bytes)", s ? strlen(s) : 0);
		expect = xasprintf("[file truncated: %u of %lld bytes shown]", 256u << 10, 64LL << 30);
		has_str(s, expect, "... and tells the model it was cut and how big the file is");
		free(expect);
		free(s);
	}
	tool_is(o, "edit_file", "{\"path\":\"sparse.bin\",\"old_string\":\"head\",\"new_string\":\"b\"}", 1,
	        "edit_file rewrites files up to", "edit_file of a 64 GiB file is refused");
	unlink(big);
	/* a link to a file inside stays usable */
	symlink("sub/dir/a.txt", inlink);
	tool_is(o, "read_file", "{\"path\":\"inlink\"}", 0, "x = 2; z = 1;", "a link to a file inside the work directory reads it");
	unlink(inlink);
	/* the eval tool takes solution.cu only as a regular file of the work directory */
	{
		char *sol = util_path_join(o->workdir, "solution.cu");
		const char *problem = o->problem;
		unlink(sol);
		symlink("/etc/passwd", sol);
		o->problem = "04_kahan_softmax";
		tool_is(o, "eval", "{}", 1, "solution.cu is a symbolic link", "eval refuses a solution.cu that is a link");
		char *other = util_path_join(o->rundir, "other-name.cu");
		unlink(sol);
		FILE *f = fopen(other, "w");
		if (f)
			fclose(f);
		ok(link(other, sol) == 0, "a hard link solution.cu is made");
		tool_is(o, "eval", "{}", 1, "solution.cu is a hard link", "... and refused too");
		unlink(other);
		free(other);
		o->problem = problem;
		unlink(sol);
		free(sol);
	}
	unlink(fifo);
	free(fifo);
	free(big);
	free(inlink);
}

static void test_tools(void)
{
	struct agent_opts o;
	char *link;
	opts_init(&o, LLM_OPENAI, "tools");
	link = util_path_join(o.workdir, "out");
	symlink("/etc", link);
	free(link);
	tool_is(&o, "write_file", "{\"path\":\"sub/dir/a.txt\",\"content\":\"x = 1; x = 1;\"}", 0, "wrote 13 bytes",
	        "write_file creates missing parent directories");
	tool_is(&o, "read_file", "{\"path\":\"sub/dir/a.txt\"}", 0, "x = 1; x = 1;", "read_file reads it back");
	tool_is(&o, "edit_file", "{\"path\":\"sub/dir/a.txt\",\"old_string\":\"x = 1;\",\"new_string\":\"y\"}", 1,
	        "occurs 2 times", "edit_file refuses an ambiguous old_string");
	tool_is(&o, "edit_file", "{\"path\":\"sub/dir/a.txt\",\"old_string\":\"zzz\",\"new_string\":\"y\"}", 1,
	        "not found", "edit_file says when old_string is missing");
	tool_is(&o, "edit_file", "{\"path\":\"sub/dir/a.txt\",\"old_string\":\"1; x\",\"new_string\":\"2; z\"}", 0,
	        "edited", "edit_file replaces a unique string");
	tool_is(&o, "read_file", "{\"path\":\"sub/dir/a.txt\"}", 0, "x = 2; z = 1;", "... with the right result");
	tool_is(&o, "read_file", "{\"path\":\"../tools/work/sub/dir/a.txt\"}", 1, "leaves the work directory",
	        "a path with .. is refused");
	tool_is(&o, "read_file", "{\"path\":\"/etc/passwd\"}", 1, "outside the work directory",
	        "an absolute path elsewhere is refused");
	tool_is(&o, "read_file", "{\"path\":\"out/passwd\"}", 1, "resolves outside",
	        "a symlink out of the work directory is refused for reading");
	tool_is(&o, "write_file", "{\"path\":\"out/evil\",\"content\":\"x\"}", 1, "resolves outside",
	        "... and for writing");
	tool_is(&o, "bash", "{\"command\":\"pwd; exit 3\"}", 1, "/tools/work\n[exit status 3]",
	        "bash runs in the work directory and reports the exit status");
	tool_is(&o, "bash", "{\"command\":\"sleep 20\",\"timeout\":0.5}", 1, "timed out",
	        "bash kills a command at its timeout");
	o.output_cap = 100;
	tool_is(&o, "bash", "{\"command\":\"seq 1 10000\"}", 0, "[output truncated at 100 bytes]",
	        "bash output is capped");
	tool_is(&o, "bash", "{}", 1, "\"command\"", "bash without a command says what is missing");
	tool_is(&o, "eval", "{}", 1, "eval backend unavailable", "eval without a problem is unavailable");
	tool_is(&o, "rm_rf", "{}", 1, "no tool named rm_rf", "an unknown tool is an error result");
	tool_is(&o, "read_file", "[1,2]", 1, "not a JSON object", "arguments that are not an object");
	test_tool_files(&o);
}

/* ---- stream decoding without HTTP ------------------------------------------ */

static void test_stream_units(void)
{
	static const char two[] =
		OA("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"bash\",\"arguments\":\"{\\\"comm\"}}]}}]}")
		OA("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"b\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\"}}]}}]}")
		OA("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"and\\\":\\\"ls\\\"}\"}}]}}]}")
		OA("{\"choices\":[{\"delta\":{\"reasoning\":\"hm\",\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"\\\":\\\"x\\\"}\"}}]}}]}")
		OA("{\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}],\"usage\":null}")
		OA("[DONE]");
	struct llm_opts lo = {.provider = LLM_OPENAI, .api_key = KEY};
	struct llm_opts ao = {.provider = LLM_ANTHROPIC, .api_key = KEY};
	int bad = 0;
	for (size_t k = 1; k <= 64; k++) {
		struct llm_reply r = {0};
		struct llm_stream *st;
		sbuf_init(&r.text);
		sbuf_init(&r.reasoning);
		sbuf_init(&r.signature);
		st = llm_stream_new(&lo, &r);
		for (size_t i = 0; i < sizeof two - 1; i += k)
			llm_stream_feed(st, two + i, sizeof two - 1 - i < k ? sizeof two - 1 - i : k);
		if (!llm_stream_done(st) || r.ncalls != 2 || strcmp(r.calls[0].args.s, "{\"command\":\"ls\"}") ||
		    strcmp(r.calls[1].args.s, "{\"path\":\"x\"}") || strcmp(r.calls[1].name, "read_file") ||
		    strcmp(r.calls[1].id, "b") || strcmp(r.reasoning.s, "hm"))
			bad++;
		llm_stream_free(st);
		llm_reply_free(&r);
	}
	is_int(bad, 0, "openai: interleaved tool calls accumulate by index, in pieces of 1..64 bytes");

	{
		/* vLLM-style servers name the reasoning both ways in one delta */
		static const char both[] =
			OA("{\"choices\":[{\"delta\":{\"reasoning_content\":\"think \",\"reasoning\":\"think \"}}]}")
			OA("{\"choices\":[{\"delta\":{\"reasoning_content\":\"\",\"reasoning\":\"once\"}}]}")
			OA("{\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}")
			OA("[DONE]");
		struct llm_reply r2 = {0};
		struct llm_stream *s2;
		sbuf_init(&r2.text);
		sbuf_init(&r2.reasoning);
		s2 = llm_stream_new(&lo, &r2);
		llm_stream_feed(s2, both, sizeof both - 1);
		is_str(r2.reasoning.s, "think once", "openai: reasoning_content and reasoning in one delta count once");
		llm_stream_free(s2);
		llm_reply_free(&r2);
	}

	struct llm_reply r = {0};
	struct llm_stream *st;
	sbuf_init(&r.text);
	st = llm_stream_new(&ao, &r);
	llm_stream_feed(st, an_write, (size_t)(strstr(an_write, "\n\n") + 2 - an_write));
	ok(!llm_stream_done(st), "anthropic: not done before message_stop");
	is_int(llm_stream_feed(st, "data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
	                       "\"message\":\"Overloaded\"}}\n\n", 87), -1, "anthropic: an error event fails the stream");
	is_int(r.status, LLM_ERR_STREAM, "... as a stream error");
	has_str(r.error, "Overloaded", "... with the server's message");
	llm_stream_free(st);
	llm_reply_free(&r);

	/* hostile streams: mutated copies of the real ones, decoded whole and
	 * in pieces, end in the same status and never crash */
	srand(11);
	bad = 0;
	for (int round = 0; round < 300; round++) {
		const char *src = round % 2 ? an_write : oa_write;
		size_t len = strlen(src);
		char *m = xstrdup(src);
		enum llm_status st1 = LLM_OK, st2 = LLM_OK;
		for (int k = 0; k < 1 + round % 8; k++)
			m[rand() % (int)len] = (char)(rand() % 256 ? rand() % 256 : '{');
		for (int pass = 0; pass < 2; pass++) {
			struct llm_opts *po = round % 2 ? &ao : &lo;
			struct llm_reply rr = {0};
			struct llm_stream *ss;
			size_t step = pass ? 1 + (size_t)(rand() % 9) : len;
			sbuf_init(&rr.text);
			ss = llm_stream_new(po, &rr);
			for (size_t i = 0; i < len; i += step)
				if (llm_stream_feed(ss, m + i, len - i < step ? len - i : step) < 0)
					break;
			*(pass ? &st2 : &st1) = rr.status;
			if (rr.status != LLM_OK && !rr.error)
				bad++;
			llm_stream_free(ss);
			llm_reply_free(&rr);
		}
		if (st1 != st2)
			bad++;
		free(m);
	}
	is_int(bad, 0, "300 mutated streams: same status whole and in pieces, every failure has a message");

	char *s = llm_scrub(xstrdup("a " KEY " b " KEY), KEY);
	is_str(s, "a [redacted] b [redacted]", "llm_scrub replaces every occurrence");
	free(s);
	s = llm_scrub(xstrdup("{\"peak_fraction\": 0.5}"), "e");
	is_str(s, "{\"peak_fraction\": 0.5}", "llm_scrub: a key under 8 characters is no key, the text stays whole");
	free(s);
	is_int((long long)agent_parse_duration("1h30m"), 5400, "duration 1h30m");
	is_int((long long)agent_parse_duration("45m"), 2700, "duration 45m");
	is_int((long long)agent_parse_duration("90"), 90, "duration in plain seconds");
	ok(agent_parse_duration("5x") < 0 && agent_parse_duration("") < 0, "bad durations are refused");
}

/* ---- the reasoning effort in the request ------------------------------------ */

static void test_effort_body(void)
{
	cJSON *conv = llm_conv_new();
	llm_conv_user(conv, "hi");
	struct llm_opts o = {.provider = LLM_OPENAI, .model = "m", .effort = "high"};
	char *b = llm_request_body(&o, conv);
	cJSON *j = cJSON_Parse(b);
	is_str(jx_str(j, "reasoning_effort"), "high", "openai: the effort is the body's reasoning_effort");
	cJSON_Delete(j);
	free(b);
	o.effort = NULL;
	b = llm_request_body(&o, conv);
	ok(!strstr(b, "reasoning_effort"), "openai: no effort, no reasoning_effort");
	free(b);
	o = (struct llm_opts){.provider = LLM_ANTHROPIC, .model = "m", .effort = "medium"};
	b = llm_request_body(&o, conv);
	j = cJSON_Parse(b);
	is_int((long long)jx_num(jx_get(j, "thinking"), "budget_tokens", -1), 8192,
	       "anthropic: effort medium without --thinking is a thinking budget of 8192");
	ok(!jx_get(j, "reasoning_effort"), "anthropic: no reasoning_effort key (the API has none)");
	cJSON_Delete(j);
	free(b);
	o.thinking_budget = 3000;
	b = llm_request_body(&o, conv);
	ok(strstr(b, "\"budget_tokens\":3000") != NULL, "anthropic: --thinking wins over the effort");
	free(b);
	o.thinking_budget = 0;
	o.effort = "high";
	o.max_tokens = 4096;
	is_int(llm_effort_budget(&o), 3072, "anthropic: the effort's budget stays below max_tokens");
	o.effort = "minimal";
	is_int(llm_effort_budget(&o), 0, "anthropic: minimal effort, no thinking");
	cJSON_Delete(conv);
}

/* ---- two threads: the screen parses while the agent builds JSON ----------- */

/* The agent's side: cJSON trees built, printed and freed as agent.c does
 * (the printed text freed with free). */
static void *arena_agent(void *arg)
{
	volatile int *stop = arg;
	long bad = 0;
	while (!*stop) {
		cJSON *o = cJSON_CreateObject();
		char *s;
		cJSON_AddStringToObject(o, "type", "assistant");
		cJSON_AddStringToObject(o, "text", "a tool result of some length, as the agent records it");
		s = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
		if (!s || strcmp(s, "{\"type\":\"assistant\",\"text\":\"a tool result of some length, as the agent records it\"}"))
			bad++;
		free(s);
	}
	return (void *)bad;
}

/* kbtui live parses the growing transcript (in per-line cJSON arenas) on
 * the screen's thread while the agent's thread records the run: the arena
 * must be the parsing thread's own, or the agent's trees land in it and are
 * released under it (a crash a few turns into a real run). */
static void test_arena_threads(void)
{
	struct sbuf lines;
	pthread_t th;
	volatile int stop = 0;
	void *bad = NULL;
	long events = 0;
	double t0 = (double)time(NULL);

	sbuf_init(&lines);
	for (int i = 0; i < 400; i++)
		sbuf_addf(&lines, "{\"type\":\"assistant\",\"message\":{\"id\":\"m%d\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
		          "\"text\":\"line %d of a transcript being followed\"}]}}\n", i, i);
	pthread_create(&th, NULL, arena_agent, (void *)&stop);
	for (int round = 0; round < 200 && (double)time(NULL) - t0 < 20; round++) {
		struct run *r = run_new();
		struct reader *rd = reader_new(r, parser_find("claude"));
		reader_feed(rd, lines.s, lines.len);
		reader_finish(rd);
		events += (long)r->nev;
		reader_free(rd);
		run_free(r);
	}
	stop = 1;
	pthread_join(th, &bad);
	ok(events >= 400, "the screen's thread parsed %ld events meanwhile", events);
	is_int((long long)(long)bad, 0, "the agent's thread built, printed and freed its JSON intact while the "
	       "screen's thread parsed in arenas");
	sbuf_free(&lines);
}

/* ---- what the agent leaves behind, what the server says ------------------- */

/* An OpenAI stream with one bash call running cmd (JSON-escaped twice:
 * inside the arguments string inside the SSE JSON). Owned. */
static char *oa_bash_of(const char *id, const char *cmd)
{
	struct sbuf b;
	sbuf_init(&b);
	for (const char *p = cmd; *p; p++) {
		if (*p == '"' || *p == '\\')
			sbuf_adds(&b, "\\\\\\");
		sbuf_addc(&b, *p);
	}
	char *s = xasprintf(
		"data: {\"id\":\"%s\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_%s\","
		"\"type\":\"function\",\"function\":{\"name\":\"bash\",\"arguments\":\"{\\\"command\\\": \\\"%s\\\"}\"}}]}}]}\n\n"
		"data: {\"id\":\"%s\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
		"data: [DONE]\n\n", id, id, b.s, id);
	sbuf_free(&b);
	return s;
}

/* The agent links solution.cu to a secret: the run's record never holds it. */
static void test_final_link(void)
{
	char logp[512], *secret = xasprintf("%s/secret.txt", tmpdir), *cmd, *body, *p, *res;
	struct agent_opts o;
	struct agent_result r;
	FILE *f = fopen(secret, "w");
	if (f) {
		fputs("TOPSECRET-shadow-line\n", f);
		fclose(f);
	}
	cmd = xasprintf("ln -sf %s solution.cu", secret);
	body = oa_bash_of("c9", cmd);
	free(cmd);
	struct reply script[2] = {{200, NULL, body, -1, 0}, {200, NULL, oa_done, -1, 0}};
	snprintf(logp, sizeof logp, "%s/link.requests", tmpdir);
	srv_start(script, 2, logp);
	opts_init(&o, LLM_OPENAI, "finallink");
	o.problem = "04_kahan_softmax";
	o.problems_dir = tap_path("problems");
	o.final_eval = 1;
	agent_run(&o, &r);
	srv_stop();
	p = util_path_join(o.rundir, "solution.cu");
	ok(access(p, F_OK) != 0, "final: a solution.cu that links out is not copied into the run");
	free(p);
	p = util_path_join(o.rundir, "result.json");
	res = util_read_file(p, NULL);
	has_str(res, "\"solution_refused\":\t\"solution.cu is a symbolic link", "final: result.json says it was refused, and why");
	has_str(res, "\"has_solution\":\tfalse", "final: ... and that the run has no solution");
	free(res);
	free(p);
	has_str(logged.s, "solution.cu refused, not copied nor judged", "final: an error event says so");
	cmd = xasprintf("grep -rq TOPSECRET '%s'", o.rundir);
	ok(system(cmd) != 0, "final: the secret is in no file of the run");
	free(cmd);
	agent_result_free(&r);
	free(body);
	free(secret);
}

/* A tool name and an error body with escapes: kbtui live --headless shows
 * them, never sends them to the terminal. */
static void test_hostile_output(void)
{
	static const char evil_call[] =
		OA("{\"id\":\"c7\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"visible\\u0000 then the hidden tail\"}}]}")
		OA("{\"id\":\"c7\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_e\",\"type\":\"function\",\"function\":{\"name\":\"\\u001b]0;pwned\\u0007bash\\u009b2J\",\"arguments\":\"{}\"}}]}}]}")
		OA("{\"id\":\"c7\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}")
		OA("[DONE]");
	struct reply script[2] = {
		{200, NULL, evil_call, -1, 0},
		{400, NULL, "{\"error\":{\"message\":\"bad \\u001b]52;c;SGVsbG8=\\u0007 request \\u009b31m\\u202e\"}}", -1, 0},
	};
	char logp[512], url[128], outdir[512], *outs, *errs;
	size_t on, en;
	FILE *out, *err;

	if (!util_is_file(tap_path("problems/04_kahan_softmax/PROMPT.txt"))) {
		tap_skip("no problems/04_kahan_softmax in the source tree");
		return;
	}
	snprintf(logp, sizeof logp, "%s/evil.requests", tmpdir);
	snprintf(outdir, sizeof outdir, "%s/evilrun", tmpdir);
	srv_start(script, 2, logp);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/v1", srv_port);
	setenv("OPENAI_API_KEY", KEY, 1);
	char *argv[] = {"live", "--problem", "04", "--problems", (char *)tap_path("problems"), "--model", "fake-model",
	                "--base-url", url, "--no-eval", "--headless", "--max-turns", "5", "--out", outdir, NULL};
	out = open_memstream(&outs, &on);
	err = open_memstream(&errs, &en);
	int rc = cmd_live(15, argv, out, err);
	fclose(out);
	fclose(err);
	srv_stop();
	is_int(rc, 1, "hostile: the run ends in error (exit 1)");
	ok(!memchr(outs, 0x1b, on) && !memchr(errs, 0x1b, en), "hostile: no ESC reaches the terminal");
	ok(!strstr(outs, "\xc2\x9b") && !strstr(errs, "\xc2\x9b"), "hostile: no C1 CSI reaches it");
	ok(!strstr(outs, "\xe2\x80\xae") && !strstr(errs, "\xe2\x80\xae"), "hostile: no bidi override reaches it");
	has_str(outs, "tool_call   ^[]0;pwned^Gbash", "hostile: the tool name is shown, escapes made visible");
	has_str(errs, "bad ^[]52;c;SGVsbG8=^G request", "hostile: the server's error body is shown, made visible");
	has_str(outs, "visible\xe2\x90\x80 then the hidden tail",
	        "hostile: a \\u0000 in the model's text is shown (U+2400), and what follows it too");
	free(outs);
	free(errs);
}

/* ---- the command ------------------------------------------------------------ */

/* --deck names a deck of the problems folder, checked before any request. */
static void test_cmd_deck(void)
{
	char outdir[512], *outs, *errs;
	size_t on, en;
	snprintf(outdir, sizeof outdir, "%s/deckrun", tmpdir);
	setenv("OPENAI_API_KEY", KEY, 1);
	char *argv[] = {"live", "--problem", "01", "--problems", (char *)tap_path("problems"), "--model", "fake-model",
	                "--base-url", "http://127.0.0.1:9/v1", "--headless", "--deck", "kbcom-2099", "--out", outdir, NULL};
	FILE *out = open_memstream(&outs, &on), *err = open_memstream(&errs, &en);
	int rc = cmd_live((int)(sizeof argv / sizeof *argv) - 1, argv, out, err);
	fclose(out);
	fclose(err);
	is_int(rc, 1, "live --deck of no deck: 1");
	has_str(errs, "kbtui live: no deck 'kbcom-2099' (decks: kbcom-2026-08-b200 kbcom-2026-08-h100", "the decks listed");
	ok(!getenv("KBTUI_DECK"), "and none passed on to the eval");
	free(outs);
	free(errs);
}

static void test_cmd(void)
{
	struct reply script[3] = {{200, NULL, oa_write, -1, 0}, {200, NULL, oa_bash, -1, 0}, {200, NULL, oa_done, -1, 0}};
	char logp[512], url[128], outdir[512], *outs, *errs, *prompt, *copied;
	size_t on, en;
	FILE *out, *err;
	int rc;

	if (!util_is_file(tap_path("problems/04_kahan_softmax/PROMPT.txt"))) {
		tap_skip("no problems/04_kahan_softmax in the source tree");
		return;
	}
	snprintf(logp, sizeof logp, "%s/cmd.requests", tmpdir);
	snprintf(outdir, sizeof outdir, "%s/cmdrun", tmpdir);
	srv_start(script, 3, logp);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/v1", srv_port);
	setenv("OPENAI_API_KEY", KEY, 1);
	char *argv[] = {"live", "--problem", "04", "--problems", (char *)tap_path("problems"), "--model", "fake-model",
	                "--base-url", url, "--no-eval", "--headless", "--max-turns", "5", "--out", outdir, NULL};
	out = open_memstream(&outs, &on);
	err = open_memstream(&errs, &en);
	rc = cmd_live(15, argv, out, err);
	fclose(out);
	fclose(err);
	srv_stop();
	is_int(rc, 0, "kbtui live: exit 0 when the model finishes");
	has_str(outs, "tool_call   write_file", "kbtui live: a log line per tool call");
	has_str(outs, "kbtui live: done after 3 turns, 2 tool calls", "kbtui live: a summary line");
	ok(!strstr(outs, KEY) && !strstr(errs, KEY), "kbtui live: the key is in no output");
	ok(getenv("OPENAI_API_KEY") == NULL, "kbtui live: the key left the environment");
	{
		struct rlimit rl;
		ok(getrlimit(RLIMIT_CORE, &rl) == 0 && rl.rlim_cur == 0 && rl.rlim_max == 0,
		   "kbtui live: no core file can hold the key (RLIMIT_CORE 0)");
		is_int(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 0, "kbtui live: the process is not dumpable");
	}
	prompt = util_read_file(tap_path("problems/04_kahan_softmax/PROMPT.txt"), NULL);
	{
		char *p = util_path_join(outdir, "work/PROMPT.txt");
		copied = util_read_file(p, NULL);
		free(p);
	}
	ok(prompt && copied && !strcmp(prompt, copied), "kbtui live: the problem's files are in the work directory");
	ok(!key_in_tree(outdir), "kbtui live: no key in the run directory");
	free(prompt);
	free(copied);
	free(outs);
	free(errs);

	char *bad[] = {"live", "--model", "m", NULL};
	out = open_memstream(&outs, &on);
	err = open_memstream(&errs, &en);
	rc = cmd_live(3, bad, out, err);
	fclose(out);
	fclose(err);
	is_int(rc, 2, "kbtui live without --problem is a usage error");
	has_str(errs, "--problem NAME and --model MODEL are required", "... saying what is missing");
	free(outs);
	free(errs);
	char *nokey[] = {"live", "--problem", "04", "--model", "m", NULL};
	unsetenv("OPENAI_API_KEY");
	out = open_memstream(&outs, &on);
	err = open_memstream(&errs, &en);
	rc = cmd_live(5, nokey, out, err);
	fclose(out);
	fclose(err);
	is_int(rc, 1, "kbtui live without a key fails");
	is_str(errs, "kbtui live: no API key: set OPENAI_API_KEY\n", "... with one clear message");
	free(outs);
	free(errs);
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/kbtui-test-live-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	alarm(300);   /* every wait is bounded; this bounds the whole test */
	sbuf_init(&logged);
	/* the tools' children would inherit these if the agent did not drop them */
	setenv("OPENAI_API_KEY", KEY, 1);
	setenv("ANTHROPIC_API_KEY", KEY, 1);
	test_stream_units();
	test_effort_body();
	test_arena_threads();
	test_tools();
	test_conversation(LLM_OPENAI);
	test_conversation(LLM_ANTHROPIC);
	test_429();
	test_budgets();
	test_cut();
	test_garbage_and_500();
	test_unreachable_and_nokey();
	test_cmd();
	test_cmd_deck();
	test_final_link();
	test_hostile_output();
	srv_stop();
	sbuf_free(&logged);
	if (getenv("KB_KEEP"))
		printf("# kept %s\n", tmpdir);
	else {
		char *cmd = xasprintf("rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmpdir);
		free(cmd);
	}
	return tap_done();
}
