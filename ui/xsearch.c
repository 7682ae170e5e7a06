/* xsearch.c: PLACEHOLDER, being written this session. */
#include "config.h"
#include "xsearch.h"
