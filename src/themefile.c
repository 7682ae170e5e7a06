/* themefile.c: PLACEHOLDER, being written this session. */
#include "config.h"
#include "themefile.h"
