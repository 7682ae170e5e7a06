/* fakellm.c: a fake OpenAI-compatible Chat Completions server for the tests
 * of `kbtui live` on a screen. Listens on 127.0.0.1 at a port it picks and
 * prints as "port=N"; answers POST .../chat/completions with a streamed
 * (SSE) reply scripted by --script FILE, one JSON object a line, the n-th
 * line for the n-th request:
 *   {"reasoning": "...", "text": "...", "tool": "bash", "args": "{...}",
 *    "chunk": 4, "delay_ms": 50, "prompt_tokens": 1000, "completion_tokens": 50}
 * reasoning and text stream in pieces of chunk characters delay_ms apart;
 * a tool call follows them when tool is set; usage closes the stream.
 * Requests past the script get a plain "done" text (the agent stops).
 * --log FILE gets each request body on one line (newlines as spaces); the
 * headers are never logged. The server exits after --timeout seconds. */
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

static cJSON **script;
static int nscript;

static void fake_load(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[65536];
	if (!f) {
		fprintf(stderr, "fakellm: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while (fgets(line, sizeof line, f)) {
		cJSON *o = cJSON_Parse(line);
		if (!o)
			continue;
		script = realloc(script, (size_t)(nscript + 1) * sizeof *script);
		script[nscript++] = o;
	}
	fclose(f);
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

/* One SSE data line: the chunk object built around delta (taken). */
static int fake_event(int fd, cJSON *delta, const char *finish, cJSON *usage)
{
	cJSON *o = cJSON_CreateObject(), *choices = cJSON_AddArrayToObject(o, "choices");
	char *s, *line;
	int rc;
	cJSON_AddStringToObject(o, "id", "chatcmpl-fake");
	cJSON_AddStringToObject(o, "object", "chat.completion.chunk");
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
	line = malloc(strlen(s) + 16);
	sprintf(line, "data: %s\n\n", s);
	rc = fake_send(fd, line);
	free(s);
	free(line);
	return rc;
}

static void fake_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	if (ms > 0)
		nanosleep(&ts, NULL);
}

/* Streams text in pieces as field of the delta. */
static int fake_stream(int fd, const char *field, const char *text, int chunk, int delay)
{
	size_t n = strlen(text);
	for (size_t i = 0; i < n;) {
		size_t k = (size_t)chunk;
		char piece[256];
		cJSON *d = cJSON_CreateObject();
		if (k > n - i)
			k = n - i;
		if (k >= sizeof piece)
			k = sizeof piece - 1;
		/* do not cut a UTF-8 character */
		while (i + k < n && ((unsigned char)text[i + k] & 0xC0) == 0x80)
			k++;
		memcpy(piece, text + i, k);
		piece[k] = 0;
		cJSON_AddStringToObject(d, field, piece);
		if (fake_event(fd, d, NULL, NULL) < 0)
			return -1;
		i += k;
		fake_sleep_ms(delay);
	}
	return 0;
}

static void fake_reply(int fd, const cJSON *step)
{
	const char *reasoning = cJSON_GetStringValue(cJSON_GetObjectItem(step, "reasoning"));
	const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(step, "text"));
	const char *tool = cJSON_GetStringValue(cJSON_GetObjectItem(step, "tool"));
	const char *args = cJSON_GetStringValue(cJSON_GetObjectItem(step, "args"));
	cJSON *v;
	int chunk = (v = cJSON_GetObjectItem(step, "chunk")) ? v->valueint : 4;
	int delay = (v = cJSON_GetObjectItem(step, "delay_ms")) ? v->valueint : 0;
	double pin = (v = cJSON_GetObjectItem(step, "prompt_tokens")) ? v->valuedouble : 100;
	double pout = (v = cJSON_GetObjectItem(step, "completion_tokens")) ? v->valuedouble : 10;
	cJSON *usage, *d;

	if (chunk < 1)
		chunk = 4;
	if (fake_send(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n") < 0)
		return;
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "role", "assistant");
	if (fake_event(fd, d, NULL, NULL) < 0)
		return;
	if (reasoning && fake_stream(fd, "reasoning_content", reasoning, chunk, delay) < 0)
		return;
	if (text && fake_stream(fd, "content", text, chunk, delay) < 0)
		return;
	if (tool) {
		cJSON *calls, *c, *fn;
		d = cJSON_CreateObject();
		calls = cJSON_AddArrayToObject(d, "tool_calls");
		c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "index", 0);
		cJSON_AddStringToObject(c, "id", "call_fake");
		cJSON_AddStringToObject(c, "type", "function");
		fn = cJSON_AddObjectToObject(c, "function");
		cJSON_AddStringToObject(fn, "name", tool);
		cJSON_AddStringToObject(fn, "arguments", args ? args : "{}");
		cJSON_AddItemToArray(calls, c);
		if (fake_event(fd, d, NULL, NULL) < 0)
			return;
	}
	if (fake_event(fd, cJSON_CreateObject(), tool ? "tool_calls" : "stop", NULL) < 0)
		return;
	usage = cJSON_CreateObject();
	cJSON_AddNumberToObject(usage, "prompt_tokens", pin);
	cJSON_AddNumberToObject(usage, "completion_tokens", pout);
	if (fake_event(fd, NULL, NULL, usage) < 0)
		return;
	fake_send(fd, "data: [DONE]\n\n");
}

/* Reads one request; its body (owned) or NULL. */
static char *fake_read(int fd)
{
	size_t cap = 65536, len = 0, need = 0, hdr = 0;
	char *b = malloc(cap + 1);
	for (;;) {
		ssize_t k;
		if (len == cap)
			b = realloc(b, (cap *= 2) + 1);
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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"script", required_argument, NULL, 's'},
		{"log", required_argument, NULL, 'l'},
		{"timeout", required_argument, NULL, 't'},
		{NULL, 0, NULL, 0},
	};
	const char *log = NULL;
	int ch, timeout = 120, lfd, served = 0;
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof a;
	cJSON *done = cJSON_Parse("{\"text\":\"done\"}");

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (ch == 's')
			fake_load(optarg);
		else if (ch == 'l')
			log = optarg;
		else if (ch == 't')
			timeout = atoi(optarg);
		else
			return 2;
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
		char *body;
		if (fd < 0)
			continue;
		body = fake_read(fd);
		if (body) {
			if (log) {
				FILE *f = fopen(log, "a");
				for (char *p = body; *p; p++)
					if (*p == '\n' || *p == '\r')
						*p = ' ';
				if (f) {
					fprintf(f, "%s\n", body);
					fclose(f);
				}
			}
			fake_reply(fd, served < nscript ? script[served] : done);
			served++;
			free(body);
		}
		close(fd);
	}
}
