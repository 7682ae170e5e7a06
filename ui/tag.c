/* tag.c: PLACEHOLDER, being written this session. */
#include "config.h"
#include "tag.h"
