/* follow.c: PLACEHOLDER, being written this session. */
#include "config.h"
#include "follow.h"
