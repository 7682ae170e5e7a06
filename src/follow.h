/* follow.h: PLACEHOLDER, being written this session. */
#ifndef KB_FOLLOW_H
#define KB_FOLLOW_H
#endif
