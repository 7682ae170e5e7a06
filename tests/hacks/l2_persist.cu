/* l2_persist: an access-policy window marks x persisting in L2, so the
 * harness's L2 flush does not evict it and the timed calls read it from
 * L2. Expected: REFUSED (accessPolicyWindow after preprocessing; the object
 * needs cudaStreamSetAttribute, which refuses it even with the attribute
 * number written as an integer). The runner also resets persisting lines
 * before every trial. */
#include "honest_04.h"

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	cudaStreamAttrValue v = {};
	v.accessPolicyWindow.base_ptr = (void *)x;
	v.accessPolicyWindow.num_bytes = (size_t)batch * vocab * sizeof(float);
	v.accessPolicyWindow.hitRatio = 1.0f;
	v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
	v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
	cudaStreamSetAttribute(stream, (cudaStreamAttrID)1, &v);
	return honest_softmax(x, y, batch, vocab, stream);
}
