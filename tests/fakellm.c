/* fakellm.c: a fake model server for the tests of `kbtui live`, speaking
 * both wire formats: POST .../chat/completions (OpenAI Chat Completions)
 * and POST .../v1/messages (Anthropic Messages), both streamed as SSE.
 * Listens on 127.0.0.1 at a port it picks and prints as "port=N"; the n-th
 * request gets the n-th reply of the script (fakellm.h has its shape):
 *   --script FILE           one reply a line, written by hand:
 *     {"reasoning": "...", "text": "...", "tool": "bash", "args": "{...}",
 *      "chunk": 4, "delay_ms": 50, "prompt_tokens": 1000, "completion_tokens": 50}
 *   --from-transcript FILE  the replies of a real recorded run, its tool
 *                           calls mapped to the live agent's tools
 *   --print-script          print the script (one reply a line) and exit
 *   --chunk N, --delay-ms MS  chunk and delay_ms of replies that name none
 * reasoning and text stream in pieces of chunk characters delay_ms apart,
 * then the tool calls, their arguments in pieces; usage closes the stream.
 * Requests past the script get a plain "done" text (the agent stops).
 * --log FILE gets each request body on one line (newlines as spaces); the
 * headers are never logged. The server exits after --timeout seconds.
 * --by-turn: a request gets the reply of its conversation's turn (the
 * number of assistant messages it carries) instead of the n-th: several
 * agents can share one server, each getting the whole script.
 * A path with "/outage/" in it gets 503 (Retry-After: 0): a provider down. */
#include "fakellm.h"
#include "jsonx.h"
#include "util.h"

#include <cjson/cJSON.h>

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static cJSON *script;      /* the replies, in order */
static int default_chunk = 4, default_delay;   /* for replies that name none */
static int by_turn;        /* --by-turn */

/* The turn of a request: its assistant messages, as kbtui writes them. */
static int fake_turn(const char *body)
{
	int n = 0;
	for (const char *p = body; (p = strstr(p, "\"role\":\"assistant\"")) != NULL; p += 18)
		n++;
	return n;
}

static void fake_load(const char *path)
{
	FILE *f = fopen(path, "r");
	struct sbuf line;
	int c;
	if (!f) {
		fprintf(stderr, "fakellm: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	sbuf_init(&line);
	do {
		cJSON *o;
		c = fgetc(f);
		if (c != '\n' && c != EOF) {
			sbuf_addc(&line, (char)c);
			continue;
		}
		if (line.len && (o = cJSON_Parse(line.s)) != NULL)
			cJSON_AddItemToArray(script, o);
		sbuf_reset(&line);
	} while (c != EOF);
	sbuf_free(&line);
	fclose(f);
}

static void fake_from_transcript(const char *path)
{
	struct replay_stats st;
	char *err = NULL;
	cJSON *s = replay_script(path, &st, &err), *it;
	if (!s) {
		fprintf(stderr, "fakellm: %s\n", err ? err : path);
		exit(2);
	}
	fprintf(stderr, "fakellm: %s: replayed %d calls in %d replies, skipped %d%s%s\n", path,
	        st.calls, st.replies, st.skipped, st.skipped ? ": " : "", st.skipped_names);
	free(st.skipped_names);
	while ((it = cJSON_DetachItemFromArray(s, 0)) != NULL)
		cJSON_AddItemToArray(script, it);
	cJSON_Delete(s);
}

static int fake_send(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t k = write(fd, s, n);
		if (k <= 0)
			return -1;
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

static void fake_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	if (ms > 0)
		nanosleep(&ts, NULL);
}

/* The length of the piece of text at i: about chunk bytes, never cutting
 * a UTF-8 character (each piece travels as a JSON string). */
static size_t fake_piece(const char *text, size_t n, size_t i, int chunk)
{
	size_t k = (size_t)chunk;
	if (k > n - i)
		k = n - i;
	while (i + k < n && ((unsigned char)text[i + k] & 0xC0) == 0x80)
		k++;
	return k;
}

/* One reply of the script, read with its defaults. */
struct fake_step {
	const char *reasoning, *text;
	cJSON *calls;             /* owned: [{"name", "args"}] */
	int chunk, args_chunk, delay;
	double pin, pout, pcache;
};

static void fake_step_read(const cJSON *o, struct fake_step *s)
{
	const cJSON *v;
	const char *tool = jx_str(o, "tool");
	s->reasoning = jx_str(o, "reasoning");
	s->text = jx_str(o, "text");
	s->chunk = (int)jx_num(o, "chunk", default_chunk);
	s->args_chunk = (int)jx_num(o, "args_chunk", 48);
	s->delay = (int)jx_num(o, "delay_ms", default_delay);
	s->pin = jx_num(o, "prompt_tokens", 100);
	s->pout = jx_num(o, "completion_tokens", 10);
	s->pcache = jx_num(o, "cache_read_tokens", 0);
	if (s->chunk < 1)
		s->chunk = 4;
	if (s->args_chunk < 1)
		s->args_chunk = 48;
	if (cJSON_IsArray(v = jx_get(o, "calls"))) {
		s->calls = cJSON_Duplicate(v, 1);
	} else {
		s->calls = cJSON_CreateArray();
		if (tool) {
			cJSON *c = cJSON_CreateObject();
			cJSON_AddStringToObject(c, "name", tool);
			cJSON_AddStringToObject(c, "args", jx_str(o, "args") ? jx_str(o, "args") : "{}");
			cJSON_AddItemToArray(s->calls, c);
		}
	}
}

/* ---- OpenAI Chat Completions ------------------------------------------------ */

/* One SSE data line: the chunk object built around delta (taken). */
static int fake_oa_event(int fd, cJSON *delta, const char *finish, cJSON *usage)
{
	cJSON *o = cJSON_CreateObject(), *choices;
	char *s, *line;
	int rc;
	cJSON_AddStringToObject(o, "id", "chatcmpl-fake");
	cJSON_AddStringToObject(o, "object", "chat.completion.chunk");
	cJSON_AddStringToObject(o, "model", "fake-model");
	choices = cJSON_AddArrayToObject(o, "choices");
	if (delta) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "index", 0);
		cJSON_AddItemToObject(c, "delta", delta);
		if (finish)
			cJSON_AddStringToObject(c, "finish_reason", finish);
		else
			cJSON_AddNullToObject(c, "finish_reason");
		cJSON_AddItemToArray(choices, c);
	}
	if (usage)
		cJSON_AddItemToObject(o, "usage", usage);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	line = xasprintf("data: %s\n\n", s);
	rc = fake_send(fd, line);
	free(s);
	free(line);
	return rc;
}

/* Streams text in pieces as field of the delta. */
static int fake_oa_stream(int fd, const char *field, const char *text, int chunk, int delay)
{
	size_t n = strlen(text);
	for (size_t i = 0; i < n;) {
		size_t k = fake_piece(text, n, i, chunk);
		char *piece = xstrndup(text + i, k);
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, field, piece);
		free(piece);
		if (fake_oa_event(fd, d, NULL, NULL) < 0)
			return -1;
		i += k;
		fake_sleep_ms(delay);
	}
	return 0;
}

/* A call's first chunk has its index, id and name; its arguments follow
 * in pieces that name only the index, as the API streams them. */
static int fake_oa_call(int fd, int index, int served, const char *name, const char *args, int chunk)
{
	size_t n = strlen(args);
	size_t i = 0;
	do {
		size_t k = n ? fake_piece(args, n, i, chunk) : 0;
		cJSON *d = cJSON_CreateObject(), *calls = cJSON_AddArrayToObject(d, "tool_calls");
		cJSON *c = cJSON_CreateObject(), *fn;
		char *piece = xstrndup(args + i, k);
		cJSON_AddNumberToObject(c, "index", index);
		if (i == 0) {
			char id[64];
			snprintf(id, sizeof id, "call_%d_%d", served, index);
			cJSON_AddStringToObject(c, "id", id);
			cJSON_AddStringToObject(c, "type", "function");
		}
		fn = cJSON_AddObjectToObject(c, "function");
		if (i == 0)
			cJSON_AddStringToObject(fn, "name", name);
		cJSON_AddStringToObject(fn, "arguments", piece);
		free(piece);
		cJSON_AddItemToArray(calls, c);
		if (fake_oa_event(fd, d, NULL, NULL) < 0)
			return -1;
		i += k;
	} while (i < n);
	return 0;
}

static void fake_openai(int fd, const struct fake_step *s, int served)
{
	cJSON *usage, *d, *c;
	int i = 0;

	if (fake_send(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n") < 0)
		return;
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "role", "assistant");
	cJSON_AddStringToObject(d, "content", "");
	if (fake_oa_event(fd, d, NULL, NULL) < 0)
		return;
	if (s->reasoning && fake_oa_stream(fd, "reasoning_content", s->reasoning, s->chunk, s->delay) < 0)
		return;
	if (s->text && fake_oa_stream(fd, "content", s->text, s->chunk, s->delay) < 0)
		return;
	cJSON_ArrayForEach(c, s->calls) {
		const char *args = jx_str(c, "args");
		if (fake_oa_call(fd, i++, served, jx_str(c, "name") ? jx_str(c, "name") : "",
		                 args ? args : "{}", s->args_chunk) < 0)
			return;
	}
	if (fake_oa_event(fd, cJSON_CreateObject(), i ? "tool_calls" : "stop", NULL) < 0)
		return;
	usage = cJSON_CreateObject();
	cJSON_AddNumberToObject(usage, "prompt_tokens", s->pin);
	cJSON_AddNumberToObject(usage, "completion_tokens", s->pout);
	cJSON_AddNumberToObject(usage, "total_tokens", s->pin + s->pout);
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(usage, "prompt_tokens_details"), "cached_tokens", s->pcache);
	if (fake_oa_event(fd, NULL, NULL, usage) < 0)
		return;
	fake_send(fd, "data: [DONE]\n\n");
}

/* ---- Anthropic Messages ----------------------------------------------------- */

/* One named SSE event; o (taken) gets its "type" first. */
static int fake_an_event(int fd, const char *type, cJSON *o)
{
	cJSON *t = cJSON_CreateObject();
	char *s, *line;
	int rc;
	cJSON_AddStringToObject(t, "type", type);
	for (cJSON *it; (it = cJSON_DetachItemFromArray(o, 0)) != NULL;) {
		char *k = it->string;
		it->string = NULL;
		cJSON_AddItemToObject(t, k, it);
		free(k);
	}
	cJSON_Delete(o);
	s = cJSON_PrintUnformatted(t);
	cJSON_Delete(t);
	line = xasprintf("event: %s\ndata: %s\n\n", type, s);
	rc = fake_send(fd, line);
	free(s);
	free(line);
	return rc;
}

static int fake_an_delta(int fd, int index, const char *dtype, const char *field, const char *piece)
{
	cJSON *o = cJSON_CreateObject(), *d;
	cJSON_AddNumberToObject(o, "index", index);
	d = cJSON_AddObjectToObject(o, "delta");
	cJSON_AddStringToObject(d, "type", dtype);
	cJSON_AddStringToObject(d, field, piece);
	return fake_an_event(fd, "content_block_delta", o);
}

/* A content block: its start (block, taken), text in deltas, its stop. */
static int fake_an_block(int fd, int index, cJSON *block, const char *dtype, const char *field,
                         const char *text, int chunk, int delay)
{
	cJSON *o = cJSON_CreateObject();
	size_t n = strlen(text);
	cJSON_AddNumberToObject(o, "index", index);
	cJSON_AddItemToObject(o, "content_block", block);
	if (fake_an_event(fd, "content_block_start", o) < 0)
		return -1;
	for (size_t i = 0; i < n;) {
		size_t k = fake_piece(text, n, i, chunk);
		char *piece = xstrndup(text + i, k);
		int rc = fake_an_delta(fd, index, dtype, field, piece);
		free(piece);
		if (rc < 0)
			return -1;
		i += k;
		fake_sleep_ms(delay);
	}
	return 0;
}

static int fake_an_stop(int fd, int index)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "index", index);
	return fake_an_event(fd, "content_block_stop", o);
}

static void fake_anthropic(int fd, const struct fake_step *s, int served)
{
	cJSON *o, *m, *u, *b, *c;
	char id[64];
	int idx = 0, ncalls = 0;

	if (fake_send(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n") < 0)
		return;
	o = cJSON_CreateObject();
	m = cJSON_AddObjectToObject(o, "message");
	snprintf(id, sizeof id, "msg_fake_%d", served);
	cJSON_AddStringToObject(m, "id", id);
	cJSON_AddStringToObject(m, "type", "message");
	cJSON_AddStringToObject(m, "role", "assistant");
	cJSON_AddStringToObject(m, "model", "fake-model");
	cJSON_AddArrayToObject(m, "content");
	cJSON_AddNullToObject(m, "stop_reason");
	cJSON_AddNullToObject(m, "stop_sequence");
	u = cJSON_AddObjectToObject(m, "usage");
	cJSON_AddNumberToObject(u, "input_tokens", s->pin - s->pcache);
	cJSON_AddNumberToObject(u, "cache_creation_input_tokens", 0);
	cJSON_AddNumberToObject(u, "cache_read_input_tokens", s->pcache);
	cJSON_AddNumberToObject(u, "output_tokens", 1);
	if (fake_an_event(fd, "message_start", o) < 0 || fake_an_event(fd, "ping", cJSON_CreateObject()) < 0)
		return;
	if (s->reasoning && *s->reasoning) {
		char sig[64];
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "thinking");
		cJSON_AddStringToObject(b, "thinking", "");
		cJSON_AddStringToObject(b, "signature", "");
		snprintf(sig, sizeof sig, "sig-fake-%d", served);
		if (fake_an_block(fd, idx, b, "thinking_delta", "thinking", s->reasoning, s->chunk, s->delay) < 0 ||
		    fake_an_delta(fd, idx, "signature_delta", "signature", sig) < 0 || fake_an_stop(fd, idx) < 0)
			return;
		idx++;
	}
	if (s->text && *s->text) {
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "text");
		cJSON_AddStringToObject(b, "text", "");
		if (fake_an_block(fd, idx, b, "text_delta", "text", s->text, s->chunk, s->delay) < 0 ||
		    fake_an_stop(fd, idx) < 0)
			return;
		idx++;
	}
	cJSON_ArrayForEach(c, s->calls) {
		const char *args = jx_str(c, "args");
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "tool_use");
		snprintf(id, sizeof id, "toolu_fake_%d_%d", served, ncalls++);
		cJSON_AddStringToObject(b, "id", id);
		cJSON_AddStringToObject(b, "name", jx_str(c, "name") ? jx_str(c, "name") : "");
		cJSON_AddObjectToObject(b, "input");
		if (fake_an_block(fd, idx, b, "input_json_delta", "partial_json", args ? args : "{}",
		                  s->args_chunk, 0) < 0 || fake_an_stop(fd, idx) < 0)
			return;
		idx++;
	}
	o = cJSON_CreateObject();
	m = cJSON_AddObjectToObject(o, "delta");
	cJSON_AddStringToObject(m, "stop_reason", ncalls ? "tool_use" : "end_turn");
	cJSON_AddNullToObject(m, "stop_sequence");
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(o, "usage"), "output_tokens", s->pout);
	if (fake_an_event(fd, "message_delta", o) < 0)
		return;
	fake_an_event(fd, "message_stop", cJSON_CreateObject());
}

/* Reads one request: its body (owned) or NULL; *line gets the request
 * line (owned), "POST /v1/messages HTTP/1.1". */
static char *fake_read(int fd, char **line)
{
	size_t cap = 65536, len = 0, need = 0, hdr = 0;
	char *b = xmalloc(cap + 1);
	*line = NULL;
	for (;;) {
		ssize_t k;
		if (len == cap)
			b = xrealloc(b, (cap *= 2) + 1);
		if ((k = read(fd, b + len, cap - len)) <= 0)
			break;
		len += (size_t)k;
		b[len] = 0;
		if (!hdr) {
			char *end = strstr(b, "\r\n\r\n"), *cl;
			if (!end)
				continue;
			hdr = (size_t)(end - b) + 4;
			*end = 0;
			for (cl = b; (cl = strchr(cl, '\n')) != NULL; cl++)
				if (!strncasecmp(cl + 1, "content-length:", 15))
					need = strtoul(cl + 16, NULL, 10);
			*line = xstrndup(b, strcspn(b, "\r\n"));
			*end = '\r';
		}
		if (hdr && len >= hdr + need)
			break;
	}
	if (!hdr) {
		free(b);
		return NULL;
	}
	b[len < hdr + need ? len : hdr + need] = 0;
	memmove(b, b + hdr, strlen(b + hdr) + 1);
	return b;
}

static void fake_log(const char *log, char *body)
{
	FILE *f;
	if (!log)
		return;
	for (char *p = body; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	if ((f = fopen(log, "a")) != NULL) {
		fprintf(f, "%s\n", body);
		fclose(f);
	}
}

static void fake_serve(int fd, const char *reqline, const cJSON *step, int served)
{
	struct fake_step s;
	int anthropic = strstr(reqline, "/v1/messages ") != NULL;
	if (strncmp(reqline, "POST ", 5) || (!anthropic && !strstr(reqline, "/chat/completions "))) {
		fake_send(fd, "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
		          "{\"error\":{\"message\":\"fakellm: no such endpoint\"}}");
		return;
	}
	if (strstr(reqline, "/outage/")) {
		fake_send(fd, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 0\r\n"
		          "Connection: close\r\n\r\n{\"error\":{\"message\":\"fakellm: the provider is down\"}}");
		return;
	}
	fake_step_read(step, &s);
	if (anthropic)
		fake_anthropic(fd, &s, served);
	else
		fake_openai(fd, &s, served);
	cJSON_Delete(s.calls);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"script", required_argument, NULL, 's'},
		{"from-transcript", required_argument, NULL, 'f'},
		{"print-script", no_argument, NULL, 'p'},
		{"log", required_argument, NULL, 'l'},
		{"chunk", required_argument, NULL, 'c'},
		{"delay-ms", required_argument, NULL, 'd'},
		{"timeout", required_argument, NULL, 't'},
		{"by-turn", no_argument, NULL, 'b'},
		{NULL, 0, NULL, 0},
	};
	const char *log = NULL;
	int ch, timeout = 120, lfd, served = 0, print = 0;
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof a;
	cJSON *done = cJSON_Parse("{\"text\":\"done\"}");

	script = cJSON_CreateArray();
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (ch == 's')
			fake_load(optarg);
		else if (ch == 'f')
			fake_from_transcript(optarg);
		else if (ch == 'p')
			print = 1;
		else if (ch == 'l')
			log = optarg;
		else if (ch == 'c')
			default_chunk = atoi(optarg);
		else if (ch == 'd')
			default_delay = atoi(optarg);
		else if (ch == 't')
			timeout = atoi(optarg);
		else if (ch == 'b')
			by_turn = 1;
		else
			return 2;
	}
	if (print) {
		const cJSON *it;
		cJSON_ArrayForEach(it, script) {
			char *s = cJSON_PrintUnformatted(it);
			puts(s);
			free(s);
		}
		cJSON_Delete(script);
		cJSON_Delete(done);
		return fflush(stdout) ? 1 : 0;
	}
	signal(SIGPIPE, SIG_IGN);
	alarm((unsigned)timeout);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 8) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen) < 0) {
		perror("fakellm");
		return 1;
	}
	printf("port=%d\n", ntohs(a.sin_port));
	fflush(stdout);
	for (;;) {
		int fd = accept(lfd, NULL, NULL);
		char *body, *reqline;
		if (fd < 0)
			continue;
		body = fake_read(fd, &reqline);
		if (body) {
			const cJSON *step = cJSON_GetArrayItem(script, by_turn ? fake_turn(body) : served);
			fake_log(log, body);
			fake_serve(fd, reqline ? reqline : "", step ? step : done, served);
			served++;
			free(body);
		}
		free(reqline);
		close(fd);
	}
}
