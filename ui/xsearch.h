/* xsearch.h: PLACEHOLDER, being written this session. */
#ifndef KB_XSEARCH_H
#define KB_XSEARCH_H
#endif
