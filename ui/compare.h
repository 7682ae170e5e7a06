/* compare.h: PLACEHOLDER, being written this session. */
#ifndef KB_COMPARE_H
#define KB_COMPARE_H
#endif
