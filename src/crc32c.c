/* crc32c.c: CRC-32C in SSE4.2's crc32 instruction where the processor has
 * it, else by a byte table; both give the same value. */
#include "crc32c.h"

#include <string.h>

#define CRC32C_POLY 0x82f63b78u   /* reflected Castagnoli polynomial */

static uint32_t crc32c_table[256];

static void crc32c_init_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ CRC32C_POLY : c >> 1;
		crc32c_table[i] = c;
	}
}

static uint32_t crc32c_soft(uint32_t c, const unsigned char *p, size_t n)
{
	if (!crc32c_table[1])
		crc32c_init_table();
	while (n--)
		c = crc32c_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CRC32C_HW 1

/* a times b modulo the polynomial, both as reflected CRCs (bit 31 is x^0) */
static uint32_t crc32c_mulmod(uint32_t a, uint32_t b)
{
	uint32_t m = 1u << 31, p = 0;
	for (;;) {
		if (a & m) {
			p ^= b;
			if ((a & (m - 1)) == 0)
				break;
		}
		m >>= 1;
		b = b & 1 ? (b >> 1) ^ CRC32C_POLY : b >> 1;
	}
	return p;
}

/* x^(8n) modulo the polynomial: what n zero bytes do to a CRC register. */
static uint32_t crc32c_zeros(size_t n)
{
	uint32_t p = 1u << 31, sq = 1u << 23;   /* x^0, x^8 */
	for (; n; n >>= 1) {
		if (n & 1)
			p = crc32c_mulmod(sq, p);
		sq = crc32c_mulmod(sq, sq);
	}
	return p;
}

#define CRC32C_LANE 4096   /* bytes each of three streams takes a block */

/* Three streams over three lanes of a block hide the instruction's
 * three-cycle latency (one result a cycle); the lanes' CRCs are then
 * joined: the register after A then B is A's moved past |B| zero bytes,
 * xor B's from zero. */
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t c, const unsigned char *p, size_t n)
{
	static uint32_t lane;   /* crc32c_zeros(CRC32C_LANE), made once */
	uint64_t c64 = c;
	while (n && ((uintptr_t)p & 7)) {
		c64 = __builtin_ia32_crc32qi((uint32_t)c64, *p++);
		n--;
	}
	if (n >= 3 * CRC32C_LANE && !lane)
		lane = crc32c_zeros(CRC32C_LANE);
	for (; n >= 3 * CRC32C_LANE; n -= 3 * CRC32C_LANE, p += 3 * CRC32C_LANE) {
		uint64_t c1 = 0, c2 = 0, v0, v1, v2;
		for (size_t k = 0; k < CRC32C_LANE; k += 8) {
			memcpy(&v0, p + k, 8);
			memcpy(&v1, p + CRC32C_LANE + k, 8);
			memcpy(&v2, p + 2 * CRC32C_LANE + k, 8);
			c64 = __builtin_ia32_crc32di(c64, v0);
			c1 = __builtin_ia32_crc32di(c1, v1);
			c2 = __builtin_ia32_crc32di(c2, v2);
		}
		uint32_t r = crc32c_mulmod(lane, (uint32_t)c64) ^ (uint32_t)c1;
		c64 = crc32c_mulmod(lane, r) ^ (uint32_t)c2;
	}
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		c64 = __builtin_ia32_crc32di(c64, v);
	}
	while (n--)
		c64 = __builtin_ia32_crc32qi((uint32_t)c64, *p++);
	return (uint32_t)c64;
}
#endif

uint32_t crc32c(uint32_t crc, const void *p, size_t n)
{
	uint32_t c = ~crc;
#ifdef CRC32C_HW
	static int hw = -1;
	if (hw < 0) {
		__builtin_cpu_init();
		hw = __builtin_cpu_supports("sse4.2") != 0;
	}
	if (hw)
		return ~crc32c_hw(c, p, n);
#endif
	return ~crc32c_soft(c, p, n);
}
