#include "forbid.h"
