#include "problem.h"
