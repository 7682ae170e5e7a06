#include "benchlog.h"
