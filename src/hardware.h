/* hardware.h: placeholder */
