/* annotate.c: PLACEHOLDER, being written this session. */
#include "config.h"
#include "annotate.h"
