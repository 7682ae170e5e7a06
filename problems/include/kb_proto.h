/* kb_proto.h: what the checker and the runner say to each other.
 *
 * The checker (problems/harness/checker.cu) starts the runner with
 *   fd 3  a Unix stream socket: kb_req in, kb_rep out, one at a time
 *   fd 4  a shared-memory file (memfd) holding the call's buffers
 *   fd 1, fd 2  a pipe the checker reads: the solution's output, shown
 *         with a "solution| " prefix on the checker's stderr, never parsed
 * and nothing else. The runner only moves bytes and times a call; every
 * verdict is the checker's, printed on the checker's stdout.
 *
 *   ALLOC  map shm_bytes of fd 4; (re)allocate device buffers of bytes[i]
 *   LOAD   inputs: shared memory at off[i] -> device; outputs: set to
 *          all-ones bytes (NaN in every float type); device synchronised;
 *          persisting L2 lines reset
 *   RUN    events around one call on the runner's stream, then
 *          cudaDeviceSynchronize (all device work, any stream), then reply
 *   FETCH  outputs: device -> shared memory at off[i]
 *   QUIT   exit 0
 *
 * Every request carries a fresh nonce, which the reply repeats. The
 * runner holds solution code, so each reply is a claim: the checker times
 * LOAD, RUN and FETCH on its own host clock and compares every timed
 * output (see checker.cu).
 */
#ifndef KB_PROTO_H
#define KB_PROTO_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

/* All n bytes of p over the socket fd, sent (writing) or read; EINTR is
 * retried, and a peer that is gone is an error, never a SIGPIPE. 0, or -1. */
static inline int kb_proto_io(int fd, void *p, size_t n, int writing)
{
	unsigned char *b = (unsigned char *)p;
	while (n) {
		ssize_t k = writing ? send(fd, b, n, MSG_NOSIGNAL) : read(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

#define KB_PROTO_MAGIC 0x6b627033u   /* "kbp3" */
#define KB_PROTO_NBUF 8
#define KB_PROTO_NSCALAR 16
#define KB_PROTO_SOCK_FD 3
#define KB_PROTO_SHM_FD 4

enum kb_op { KB_OP_HELLO = 1, KB_OP_ALLOC, KB_OP_LOAD, KB_OP_RUN, KB_OP_FETCH, KB_OP_QUIT };

struct kb_req {
	uint32_t magic, op;
	uint64_t nonce;      /* fresh per request, from the checker's random source */
	uint32_t nbuf, nscalar;
	uint64_t shm_bytes;
	uint64_t off[KB_PROTO_NBUF], bytes[KB_PROTO_NBUF];
	uint32_t out[KB_PROTO_NBUF];
	double scalar[KB_PROTO_NSCALAR];
};

struct kb_rep {
	uint32_t magic, op;
	uint64_t nonce;      /* the request's: a reply made before the request is read cannot have it */
	int32_t rc;          /* the entry point's return (RUN); -1: the runner failed */
	int32_t cuda_err;    /* cudaError_t after the step, 0 none */
	int32_t sticky;      /* the CUDA context is lost */
	float event_ms;      /* RUN: cudaEventElapsedTime around the call */
	char msg[240];       /* the runner's words on a failure */
};

#endif
