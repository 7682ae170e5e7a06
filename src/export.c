/* export.c: PLACEHOLDER, being written this session. */
#include "config.h"
#include "export.h"
