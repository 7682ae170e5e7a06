/* milestones.c: PLACEHOLDER, being written this session. */
#include "config.h"
#include "milestones.h"
