/* live.h: PLACEHOLDER, being written this session. */
#ifndef KB_LIVE_H
#define KB_LIVE_H
#endif
