/* compare.c: PLACEHOLDER, being written this session. */
#include "config.h"
#include "compare.h"
