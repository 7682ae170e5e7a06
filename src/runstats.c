/* runstats.c: PLACEHOLDER, being written this session. */
#include "config.h"
#include "runstats.h"
