/* crc32c.h: CRC-32C (Castagnoli), the checksum of cache entries. Chosen
 * over a 64-bit hash (FNV-1a, xxh3) because a CRC of 32 bits detects every
 * error burst of 32 bits or less with certainty, so any one damaged byte
 * of an entry is always caught, not merely almost always; and x86-64's
 * SSE4.2 computes it in hardware at several GB/s, no library needed (a
 * table is the fallback). */
#ifndef KB_CRC32C_H
#define KB_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* The CRC of n bytes at p continued from crc (0 to start). */
uint32_t crc32c(uint32_t crc, const void *p, size_t n);

#endif
