/* artifact.c: PLACEHOLDER, being written this session. */
#include "config.h"
#include "artifact.h"
