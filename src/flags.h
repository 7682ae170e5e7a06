/* flags.h: PLACEHOLDER, being written this session. */
#ifndef KB_FLAGS_H
#define KB_FLAGS_H
#endif
