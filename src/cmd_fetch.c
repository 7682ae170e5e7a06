#include "fetch.h"
