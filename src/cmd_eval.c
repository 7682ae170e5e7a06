#include "eval.h"
