/* themefile.h: PLACEHOLDER, being written this session. */
#ifndef KB_THEMEFILE_H
#define KB_THEMEFILE_H
#endif
