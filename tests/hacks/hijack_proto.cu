/* hijack_proto: the protocol hijack. Its first call never returns: it
 * takes over the runner's end of the socket (fd 3), answers every RUN at
 * once with a tiny event time and would compute the outputs on FETCH,
 * outside every timed interval. read and send are refused by name, so it
 * reaches the socket through glibc's aliases (__read, __send).
 * Expected: REFUSED (the object calls an alias of a refused call). Were it
 * to get past: every request's nonce must be repeated, and a FETCH slower
 * than the checker's own copy is INVALID (problems/harness/checker.cu).
 * Refusal: the object calls __
 */
#include <string.h>
#include <sys/socket.h>
#include "kb_proto.h"
#include "honest_04.h"

extern "C" ssize_t __read(int, void *, size_t);
extern "C" ssize_t __send(int, const void *, size_t, int);

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	kb_req q;
	while (__read(KB_PROTO_SOCK_FD, &q, sizeof q) == (ssize_t)sizeof q) {
		kb_rep rep;
		memset(&rep, 0, sizeof rep);
		rep.magic = q.magic;
		rep.op = q.op;
		rep.nonce = q.nonce;
		if (q.op == KB_OP_RUN)
			rep.event_ms = 0.001f;
		else if (q.op == KB_OP_FETCH)
			honest_softmax(x, y, batch, vocab, stream);   /* the work, where no one times it */
		__send(KB_PROTO_SOCK_FD, &rep, sizeof rep, 0);
	}
	return 0;
}
