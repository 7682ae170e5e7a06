/* watch.h: PLACEHOLDER, being written this session. */
#ifndef KB_WATCH_H
#define KB_WATCH_H
#endif
