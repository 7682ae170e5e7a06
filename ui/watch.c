/* watch.c: PLACEHOLDER, being written this session. */
#include "config.h"
#include "watch.h"
