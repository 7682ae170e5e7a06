/* export.h: PLACEHOLDER, being written this session. */
#ifndef KB_EXPORT_H
#define KB_EXPORT_H
#endif
