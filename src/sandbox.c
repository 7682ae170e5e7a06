/* sandbox.c: PLACEHOLDER, being written this session. */
#include "config.h"
#include "sandbox.h"
