/* runner.cu: the program the solution under test is linked into (with the
 * problem's call.cu). It is started by the checker only, speaks
 * kb_proto.h on fd 3 and fd 4, and decides nothing: it copies inputs in,
 * calls the entry point, times the call with CUDA events, synchronises the
 * whole device, and copies outputs out. Whatever it (or the solution)
 * prints goes to a pipe the checker shows as the solution's output.
 *
 * After CUDA's initialisation (HELLO) it installs the seccomp filter of
 * kb_seccomp.h on itself: a forbidden system call ends it with a status
 * that names the call.
 *
 * Its stream is a blocking one (cudaStreamCreate): work the solution puts
 * on the legacy default stream is ordered with it, so the end event waits
 * for that work too; work on a stream of the solution's own escapes the
 * events but not the checker's host clock around the device-wide
 * synchronisation (see checker.cu). */
#include "kb_proto.h"
#include "kb_seccomp.h"

#include <cuda_runtime.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

extern "C" int kb_call_solution(void *const *buf, const double *scalar, cudaStream_t stream);

struct rn_state {
	unsigned char *shm;
	size_t shm_bytes;
	int nbuf;
	void *dev[KB_PROTO_NBUF];
	size_t bytes[KB_PROTO_NBUF];
	cudaStream_t s;
	cudaEvent_t e0, e1;
};

/* The CUDA state after a step, into the reply. */
static void rn_cuda(kb_rep *rep, cudaError_t e)
{
	if (e == cudaSuccess)
		e = cudaGetLastError();
	if (e == cudaSuccess)
		e = cudaDeviceSynchronize();
	if (e == cudaSuccess)
		return;
	cudaGetLastError();
	rep->cuda_err = (int32_t)e;
	rep->sticky = cudaDeviceSynchronize() != cudaSuccess;
	snprintf(rep->msg, sizeof rep->msg, "%s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
}

static void rn_alloc(rn_state *st, const kb_req *q, kb_rep *rep)
{
	if (st->shm) {
		cudaHostUnregister(st->shm);
		munmap(st->shm, st->shm_bytes);
	}
	st->shm = NULL;
	for (int i = 0; i < st->nbuf; i++)
		cudaFree(st->dev[i]);
	st->nbuf = 0;
	void *m = mmap(NULL, q->shm_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, KB_PROTO_SHM_FD, 0);
	if (m == MAP_FAILED || q->nbuf > KB_PROTO_NBUF) {
		rep->rc = -1;
		snprintf(rep->msg, sizeof rep->msg, "cannot map the shared buffers: %s", strerror(errno));
		return;
	}
	st->shm = (unsigned char *)m;
	st->shm_bytes = q->shm_bytes;
	/* pinned, the copies run at bus speed; pageable is only slower */
	if (cudaHostRegister(m, q->shm_bytes, cudaHostRegisterDefault) != cudaSuccess)
		cudaGetLastError();
	for (uint32_t i = 0; i < q->nbuf; i++) {
		cudaError_t e = cudaMalloc(&st->dev[i], q->bytes[i]);
		if (e != cudaSuccess) {
			rep->rc = -1;
			rn_cuda(rep, e);
			return;
		}
		st->bytes[i] = q->bytes[i];
		st->nbuf = (int)i + 1;
	}
}

/* A request's buffer i lies within the mapping and the device buffer. */
static int rn_fits(const rn_state *st, const kb_req *q, uint32_t i)
{
	return (int)i < st->nbuf && q->bytes[i] <= st->bytes[i] && q->off[i] <= st->shm_bytes &&
	       q->bytes[i] <= st->shm_bytes - q->off[i];
}

static void rn_move(rn_state *st, const kb_req *q, kb_rep *rep, int fetch)
{
	cudaError_t e = cudaSuccess;
	for (uint32_t i = 0; i < q->nbuf && e == cudaSuccess; i++) {
		if (!rn_fits(st, q, i)) {
			rep->rc = -1;
			snprintf(rep->msg, sizeof rep->msg, "buffer %u does not fit", i);
			return;
		}
		if (fetch && q->out[i])
			e = cudaMemcpy(st->shm + q->off[i], st->dev[i], q->bytes[i], cudaMemcpyDeviceToHost);
		else if (!fetch && q->out[i])
			e = cudaMemset(st->dev[i], 0xFF, q->bytes[i]);
		else if (!fetch)
			e = cudaMemcpy(st->dev[i], st->shm + q->off[i], q->bytes[i], cudaMemcpyHostToDevice);
	}
	if (!fetch && e == cudaSuccess)
		e = cudaCtxResetPersistingL2Cache();  /* nothing kept in L2 on purpose across trials */
	rn_cuda(rep, e);
}

static void rn_run(rn_state *st, const kb_req *q, kb_rep *rep)
{
	float ms = 0;
	cudaEventRecord(st->e0, st->s);
	rep->rc = kb_call_solution(st->dev, q->scalar, st->s);
	cudaError_t e = cudaPeekAtLastError();
	cudaEventRecord(st->e1, st->s);
	if (e == cudaSuccess)
		e = cudaDeviceSynchronize();
	rn_cuda(rep, e);
	if (!rep->cuda_err && cudaEventElapsedTime(&ms, st->e0, st->e1) == cudaSuccess)
		rep->event_ms = ms;
}

/* 0 when fd 3 is a socket and fd 4 is open: the checker started us. */
static int fcntl_ok(void)
{
	struct stat a, b;
	return fstat(KB_PROTO_SOCK_FD, &a) == 0 && S_ISSOCK(a.st_mode) && fstat(KB_PROTO_SHM_FD, &b) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	rn_state st;
	kb_req q;
	(void)argv;
	memset(&st, 0, sizeof st);
	if (argc != 1 || fcntl_ok() != 0) {
		fprintf(stderr, "kbrun: started by the checker only (it speaks on fd %d and %d)\n", KB_PROTO_SOCK_FD,
		        KB_PROTO_SHM_FD);
		return 2;
	}
	while (kb_proto_io(KB_PROTO_SOCK_FD, &q, sizeof q, 0) == 0 && q.magic == KB_PROTO_MAGIC) {
		kb_rep rep;
		memset(&rep, 0, sizeof rep);
		rep.magic = KB_PROTO_MAGIC;
		rep.op = q.op;
		rep.nonce = q.nonce;
		if (q.op == KB_OP_QUIT)
			return 0;
		if (q.op == KB_OP_HELLO) {
			cudaError_t e = cudaSetDevice(0);
			if (e == cudaSuccess)
				e = cudaStreamCreate(&st.s);
			if (e == cudaSuccess)
				e = cudaEventCreate(&st.e0);
			if (e == cudaSuccess)
				e = cudaEventCreate(&st.e1);
			rn_cuda(&rep, e);
			/* CUDA is up (its device nodes open, its threads made): from
			 * here on no exec, fork, trace, socket or new file */
			if (!rep.cuda_err && kb_seccomp_install() < 0) {
				rep.rc = -1;
				snprintf(rep.msg, sizeof rep.msg, "cannot install the seccomp filter: %s", strerror(errno));
			}
		} else if (q.op == KB_OP_ALLOC) {
			rn_alloc(&st, &q, &rep);
		} else if (q.op == KB_OP_LOAD || q.op == KB_OP_FETCH) {
			rn_move(&st, &q, &rep, q.op == KB_OP_FETCH);
		} else if (q.op == KB_OP_RUN) {
			rn_run(&st, &q, &rep);
		} else {
			rep.rc = -1;
			snprintf(rep.msg, sizeof rep.msg, "unknown request %u", q.op);
		}
		if (kb_proto_io(KB_PROTO_SOCK_FD, &rep, sizeof rep, 1) < 0)
			return 1;
	}
	return 1;
}
