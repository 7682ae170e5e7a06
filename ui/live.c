/* live.c: PLACEHOLDER, being written this session. */
#include "config.h"
#include "live.h"
