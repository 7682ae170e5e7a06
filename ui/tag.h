/* tag.h: PLACEHOLDER, being written this session. */
#ifndef KB_TAG_H
#define KB_TAG_H
#endif
