/* cmd_flags.c: PLACEHOLDER, being written this session. */
#include "config.h"
