#include "hardware.h"
