/* 03_paged_attention driver: inputs, the solution's call, the reference, comparison.
 *
 * Layout and page assignment follow the original: a pool of
 * max(batch * pages_per_seq + 8, 64) pages, each batch element's pages drawn
 * from a random permutation of the pool so the gather is never contiguous.
 * The regular inputs are the decks': q, k, v with std 0.1 (uniform here),
 * which makes the scores so flat and the output so small (about 0.003)
 * that an all-zero answer passes the decks' 0.02 tolerance: the published
 * verdict. In our adversarial input q and k have std 1.41 (scores of std 2
 * after the 1/sqrt(d) scale) and v is uniform in [-1, 1), so the output is
 * about 0.1 to 1 and the tolerance means something.
 *
 * Regular inputs: every sequence has the shape's seq_len, as in the original.
 * The adversarial input gives every batch element its own length: 1, the
 * full seq_len, exactly one page, one page plus one token, then lengths that
 * are not multiples of the page size. Every slot that is not part of a
 * sequence (the tail of a last page, unused pages) holds poison: V = 1e4,
 * which wrecks the output if it gets any weight. Entries of a block-table
 * row past the sequence's last page name a poison page rather than garbage,
 * so reading through them gives a wrong answer instead of a crash. In odd
 * batch elements every 29th token's key is 20 times larger, which gives
 * scores of magnitude ~100: exp() of an unshifted score overflows fp32.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb_problem.h"
#include "kb_driver_util.h"
#include "interface.h"

extern "C" int kbref_03_paged_attention(const __nv_bfloat16 *query, const __nv_bfloat16 *kv_cache,
                                        const int *block_table, const int *seq_lens, float *out,
                                        float *scratch, int batch, int num_heads,
                                        int num_kv_heads, int head_dim, int page_size,
                                        int max_blocks, float scale, cudaStream_t stream);

struct pa_shape {
	int batch, num_heads, num_kv_heads, head_dim, seq_len, page_size;
	const char *desc;
};

static const pa_shape SHAPES[] = {
	{8, 32, 8, 128, 1024, 16,
	 "batch=8 num_heads=32 num_kv_heads=8 head_dim=128 seq_len=1024 page_size=16"},
	{32, 32, 8, 128, 2048, 16,
	 "batch=32 num_heads=32 num_kv_heads=8 head_dim=128 seq_len=2048 page_size=16"},
	{4, 64, 8, 128, 4096, 16,
	 "batch=4 num_heads=64 num_kv_heads=8 head_dim=128 seq_len=4096 page_size=16"},
	{16, 32, 8, 128, 1535, 16,
	 "batch=16 num_heads=32 num_kv_heads=8 head_dim=128 seq_len=1535 page_size=16"},
	{8, 16, 4, 64, 2000, 16,
	 "batch=8 num_heads=16 num_kv_heads=4 head_dim=64 seq_len=2000 page_size=16"},
};
#define NSHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

#define QK_HALF_RANGE 2.449f   /* uniform in [-2.449, 2.449): std 1.414 */
#define DECK_HALF_RANGE 0.1732f /* uniform in [-0.1732, 0.1732): the decks' std 0.1 */
#define POISON_V 1.0e4f
#define EXTREME_PERIOD 29
#define EXTREME_K 20.0f

struct pa_inst {
	pa_shape s;
	int max_blocks, num_blocks;
	float scale;
	__nv_bfloat16 *query, *kv, *out;
	int *block_table, *seq_lens;
	float *ref_out, *ref_scratch;
};

/* Element i of the KV pool. owner[page] is b * max_blocks + j when the page
 * is page j of batch element b, -1 when no sequence uses it; lens is NULL
 * for the regular input (every slot then holds plain data). */
static inline __host__ __device__ float kv_value(size_t i, int P, int Hkv, int D, int max_blocks,
                                                 const int *owner, const int *lens,
                                                 unsigned long long seed)
{
	const int c = (int)(i % (2 * D));
	const size_t slot_row = i / (2 * (size_t)D) / Hkv;
	const int slot = (int)(slot_row % P);
	const int page = (int)(slot_row / P);
	const int is_v = c >= D;
	/* lens: our adversarial input, at order 1; else the decks' std 0.1 */
	const float h = !lens ? DECK_HALF_RANGE : is_v ? 1.0f : QK_HALF_RANGE;
	float x = kb_uniform(seed, i, -h, h);
	if (lens) {
		const int o = owner[page];
		const int b = o / max_blocks;
		const int l = (o % max_blocks) * P + slot;
		if (o < 0 || l >= lens[b])
			x = is_v ? POISON_V : 3.0f;
		else if (!is_v && (b & 1) && l % EXTREME_PERIOD == 5)
			x *= EXTREME_K;
	}
	return x;
}

static __global__ void gen_kv(__nv_bfloat16 *kv, size_t n, int P, int Hkv, int D, int max_blocks,
                              const int *owner, const int *lens, unsigned long long seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		kv[i] = __float2bfloat16(kv_value(i, P, Hkv, D, max_blocks, owner, lens, seed));
}

static const char *pa_shape_desc(int shape)
{
	return shape >= 0 && shape < NSHAPES ? SHAPES[shape].desc : "?";
}

static void pa_destroy(void *p)
{
	pa_inst *in = (pa_inst *)p;
	if (!in)
		return;
	cudaFree(in->query);
	cudaFree(in->kv);
	cudaFree(in->out);
	cudaFree(in->block_table);
	cudaFree(in->seq_lens);
	cudaFree(in->ref_out);
	cudaFree(in->ref_scratch);
	free(in);
}

/* The adversarial lengths: 1, full, one page, one page + 1, then lengths
 * in [1, seq_len] that are not multiples of the page size. */
static void adversarial_lens(int *lens, const pa_shape &s, unsigned long long seed)
{
	const int fixed[4] = {1, s.seq_len, s.page_size, s.page_size + 1};
	for (int b = 0; b < s.batch; ++b) {
		int L = b < 4 ? fixed[b] : 1 + (int)(kb_mix(seed ^ (unsigned long long)b) % s.seq_len);
		if (b >= 4 && L % s.page_size == 0)
			L -= 1;
		lens[b] = L < 1 ? 1 : (L > s.seq_len ? s.seq_len : L);
	}
}

/* Fills the host-side tables: block table, lengths, page owners. */
static void make_tables(const pa_inst *in, unsigned long long seed, int adversarial, int *table,
                        int *lens, int *owner)
{
	const pa_shape &s = in->s;
	const int nb = in->num_blocks, mb = in->max_blocks;
	int *perm = (int *)malloc(nb * sizeof *perm);

	/* Fisher-Yates with the counter hash: the same on every machine */
	for (int i = 0; i < nb; ++i)
		perm[i] = i;
	for (int i = nb - 1; i > 0; --i) {
		const int j = (int)(kb_mix(seed ^ (unsigned long long)i) % (unsigned long long)(i + 1));
		const int t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	if (adversarial)
		adversarial_lens(lens, s, kb_sub_seed(seed, 7));
	else
		for (int b = 0; b < s.batch; ++b)
			lens[b] = s.seq_len;
	for (int i = 0; i < nb; ++i)
		owner[i] = -1;
	/* perm[batch * mb] is never a sequence's page: the poison page */
	const int poison = perm[s.batch * mb];
	for (int b = 0; b < s.batch; ++b) {
		const int used = (lens[b] + s.page_size - 1) / s.page_size;
		for (int j = 0; j < mb; ++j) {
			const int page = perm[b * mb + j];
			table[b * mb + j] = j < used ? page : poison;
			if (j < used)
				owner[page] = b * mb + j;
		}
	}
	free(perm);
}

static void *pa_create(int shape, unsigned long long seed, int adversarial)
{
	if (shape < 0 || shape >= NSHAPES) {
		fprintf(stderr, "03_paged_attention: no shape %d\n", shape);
		return NULL;
	}
	pa_inst *in = (pa_inst *)calloc(1, sizeof *in);
	if (!in)
		return NULL;
	const pa_shape &s = in->s = SHAPES[shape];
	in->max_blocks = (s.seq_len + s.page_size - 1) / s.page_size;
	in->num_blocks = s.batch * in->max_blocks + 8 > 64 ? s.batch * in->max_blocks + 8 : 64;
	in->scale = 1.0f / sqrtf((float)s.head_dim);
	const float qh = adversarial ? QK_HALF_RANGE : DECK_HALF_RANGE;

	const size_t nq = (size_t)s.batch * s.num_heads * s.head_dim;
	const size_t nkv = (size_t)in->num_blocks * s.page_size * s.num_kv_heads * 2 * s.head_dim;
	const size_t ntab = (size_t)s.batch * in->max_blocks;
	const size_t nscratch = (size_t)s.batch * s.num_heads * in->max_blocks * s.page_size;
	int *table = (int *)malloc(ntab * sizeof *table);
	int *lens = (int *)malloc(s.batch * sizeof *lens);
	int *owner = (int *)malloc(in->num_blocks * sizeof *owner);
	int *d_owner = NULL;

	if (!table || !lens || !owner) {
		fprintf(stderr, "03_paged_attention: out of host memory\n");
		goto fail;
	}
	make_tables(in, kb_sub_seed(seed, 1), adversarial, table, lens, owner);
	if (kb_cuda_failed(cudaMalloc(&in->query, nq * 2), "cudaMalloc query") ||
	    kb_cuda_failed(cudaMalloc(&in->kv, nkv * 2), "cudaMalloc kv_cache") ||
	    kb_cuda_failed(cudaMalloc(&in->out, nq * 2), "cudaMalloc out") ||
	    kb_cuda_failed(cudaMalloc(&in->block_table, ntab * sizeof(int)), "cudaMalloc block_table") ||
	    kb_cuda_failed(cudaMalloc(&in->seq_lens, s.batch * sizeof(int)), "cudaMalloc seq_lens") ||
	    kb_cuda_failed(cudaMalloc(&in->ref_out, nq * sizeof(float)), "cudaMalloc ref_out") ||
	    kb_cuda_failed(cudaMalloc(&in->ref_scratch, nscratch * sizeof(float)), "cudaMalloc scratch") ||
	    kb_cuda_failed(cudaMalloc(&d_owner, in->num_blocks * sizeof(int)), "cudaMalloc owner"))
		goto fail;
	if (kb_cuda_failed(cudaMemcpy(in->block_table, table, ntab * sizeof(int),
	                           cudaMemcpyHostToDevice), "copy block_table") ||
	    kb_cuda_failed(cudaMemcpy(in->seq_lens, lens, s.batch * sizeof(int),
	                           cudaMemcpyHostToDevice), "copy seq_lens") ||
	    kb_cuda_failed(cudaMemcpy(d_owner, owner, in->num_blocks * sizeof(int),
	                           cudaMemcpyHostToDevice), "copy owner"))
		goto fail;
	/* all-ones bytes are bf16 NaN: an element left unwritten fails */
	if (kb_cuda_failed(cudaMemset(in->out, 0xFF, nq * 2), "cudaMemset out") ||
	    kb_cuda_failed(cudaMemset(in->ref_out, 0xFF, nq * sizeof(float)), "cudaMemset ref_out"))
		goto fail;
	kb_gen_uniform_bf16<<<kb_gen_blocks(nq), 256>>>(in->query, nq, kb_sub_seed(seed, 2), -qh, qh);
	gen_kv<<<kb_gen_blocks(nkv), 256>>>(in->kv, nkv, s.page_size, s.num_kv_heads, s.head_dim,
	                                 in->max_blocks, d_owner, adversarial ? in->seq_lens : NULL,
	                                 kb_sub_seed(seed, 3));
	if (kb_cuda_failed(cudaGetLastError(), "input generation launch") ||
	    kb_cuda_failed(cudaDeviceSynchronize(), "input generation"))
		goto fail;
	cudaFree(d_owner);
	free(table);
	free(lens);
	free(owner);
	return in;
fail:
	cudaFree(d_owner);
	free(table);
	free(lens);
	free(owner);
	pa_destroy(in);
	return NULL;
}

static int pa_describe(void *p, kb_call *c)
{
	pa_inst *in = (pa_inst *)p;
	const pa_shape &s = in->s;
	const size_t nq = (size_t)s.batch * s.num_heads * s.head_dim;
	const size_t nkv = (size_t)in->num_blocks * s.page_size * s.num_kv_heads * 2 * s.head_dim;
	kb_call_buf(c, in->query, nq * 2, 0);
	kb_call_buf(c, in->kv, nkv * 2, 0);
	kb_call_buf(c, in->block_table, (size_t)s.batch * in->max_blocks * sizeof(int), 0);
	kb_call_buf(c, in->seq_lens, (size_t)s.batch * sizeof(int), 0);
	kb_call_buf(c, in->out, nq * 2, 1);
	const double nums[] = {(double)s.batch, (double)s.num_heads, (double)s.num_kv_heads, (double)s.head_dim,
	                       (double)s.page_size, (double)in->max_blocks, (double)in->num_blocks, in->scale};
	for (double v : nums)
		kb_call_num(c, v);
	return 0;
}

static int pa_run_reference(void *p, cudaStream_t st)
{
	pa_inst *in = (pa_inst *)p;
	const pa_shape &s = in->s;
	return kbref_03_paged_attention(in->query, in->kv, in->block_table, in->seq_lens,
	                                in->ref_out, in->ref_scratch, s.batch, s.num_heads,
	                                s.num_kv_heads, s.head_dim, s.page_size, in->max_blocks,
	                                in->scale, st);
}

/* 0 once both outputs were read (pass or fail), non-zero when they could
 * not be copied back. */
static int pa_compare(void *p, kb_cmp *out)
{
	pa_inst *in = (pa_inst *)p;
	const pa_shape &s = in->s;
	char what[128];
	snprintf(what, sizeof what, "out (%d x %d x %d bf16)", s.batch, s.num_heads, s.head_dim);
	return kb_compare_dev(out, what, in->out, KB_BF16, in->ref_out, KB_F32,
	                      (size_t)s.batch * s.num_heads * s.head_dim);
}

/* Bytes a call must move: the K and V of every token once, q and out. */
static size_t pa_footprint(int shape)
{
	if (shape < 0 || shape >= NSHAPES)
		return 0;
	const pa_shape &s = SHAPES[shape];
	return 2 * (size_t)s.batch * s.seq_len * s.num_kv_heads * s.head_dim * 2 +
	       2 * (size_t)s.batch * s.num_heads * s.head_dim * 2;
}

extern "C" const kb_driver KB_DRIVER = {
	"03_paged_attention",
	NSHAPES,
	pa_shape_desc,
	pa_create,
	pa_destroy,
	pa_describe,
	pa_run_reference,
	pa_compare,
	pa_footprint,
};
