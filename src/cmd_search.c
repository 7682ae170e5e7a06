/* cmd_search.c: PLACEHOLDER, being written this session. */
#include "config.h"
