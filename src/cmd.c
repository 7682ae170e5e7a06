#include "cmd.h"
