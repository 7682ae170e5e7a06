/* flags.c: PLACEHOLDER, being written this session. */
#include "config.h"
#include "flags.h"
