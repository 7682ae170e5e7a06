/* nvml.c: PLACEHOLDER, being written this session. */
#include "config.h"
#include "nvml.h"
